/**
 * The FUSE mount against bindfs (FUSE passthrough) and the local disk: sequential throughput with
 * large and small blocks, and unpacking and building a real source tree. Results and the command
 * are in docs/benchmarks.md.
 */
package io.braidfs.bench.fuse;
