/**
 * The references and systems {@code braid bench} compares, started for a run and closed after it:
 * HDFS as separate NameNode and DataNode JVMs ({@link io.braidfs.bench.ref.HdfsCluster}), Braid
 * in-process with its FUSE mount and its Hadoop FileSystem ({@link
 * io.braidfs.bench.ref.BraidSystem}) and the bindfs FUSE passthrough ({@link
 * io.braidfs.bench.ref.BindfsMount}). Each one owns its processes, mounts and directories and
 * leaves none behind after {@code close()}.
 */
package io.braidfs.bench.ref;
