/**
 * The FUSE mount against bindfs (FUSE passthrough) and the local disk: sequential throughput with
 * large and small blocks, and unpacking and building a real source tree. The mounts and the build
 * are classes of their own ({@link io.braidfs.bench.fuse.LocalBraidMount}, {@link
 * io.braidfs.bench.fuse.BindfsMount}, {@link io.braidfs.bench.fuse.SourceBuild}) so that {@code
 * braid bench} reuses them. Results and the command are in docs/benchmarks.md.
 */
package io.braidfs.bench.fuse;
