/**
 * Data-path throughput: one client writing a large file durably through a real in-process
 * MiniCluster and reading it back, side by side with the local disk (written with fsync) and a
 * plain loopback TCP stream. Results and the command are in docs/benchmarks.md.
 */
package io.braidfs.bench.data;
