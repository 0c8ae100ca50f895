/**
 * Metadata-server throughput: creates and stats per second over real loopback RPC against an
 * in-process {@code MdsServer} with a durable store, and the same operations on the local file
 * system as the reference. Results and commands are in docs/benchmarks.md.
 */
package io.braidfs.bench.mds;
