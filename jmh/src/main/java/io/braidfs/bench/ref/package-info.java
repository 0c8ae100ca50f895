/**
 * The references Braid is measured against: other systems and plain baselines (BENCHMARKING.md,
 * "The references"), each started and stopped by the benchmark driver as real processes and
 * sockets, never stand-ins. Each class starts one reference and closes everything it started.
 */
package io.braidfs.bench.ref;
