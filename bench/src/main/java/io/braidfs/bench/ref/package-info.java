/**
 * The references Braid is measured against: other systems and plain baselines (BENCHMARKING.md,
 * "The references"), each started and stopped by the benchmark driver as real processes and
 * sockets, never stand-ins: HDFS as separate NameNode and DataNode JVMs, Braid in-process with its
 * FUSE mount and Hadoop FileSystem, bindfs, sshfs with its own sshd, a raw TCP source. Each class
 * starts one reference and closes everything it started.
 */
package io.braidfs.bench.ref;
