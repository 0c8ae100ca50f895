/**
 * The FUSE mount against bindfs (FUSE passthrough) and the local disk: sequential throughput with
 * large and small blocks, and unpacking and building a real source tree. The build is a class of
 * its own ({@link io.braidfs.bench.fuse.SourceBuild}) and the mounts are the references of {@code
 * io.braidfs.bench.ref}, so that {@code braid bench} shares them. Results and the command are in
 * docs/benchmarks.md.
 */
package io.braidfs.bench.fuse;
