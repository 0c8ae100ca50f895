package io.braidfs.client;

/**
 * One file as {@link BraidAdmin#fsck} found it.
 *
 * <p>Thread-safety: immutable.
 *
 * @param path the file's absolute path
 * @param health the worst health among its chunks
 * @param replication the file's replication
 * @param length its length in bytes
 * @param chunks the chunks recorded for it
 * @param underReplicatedChunks its chunks with fewer good replicas than the replication
 * @param corruptChunks its chunks whose every replica is corrupt
 * @param missingChunks its chunks with no replica on a live data server
 * @param openForWrite whether a writer holds it (its last chunks may still grow)
 */
public record FsckFile(
    String path,
    FileHealth health,
    int replication,
    long length,
    long chunks,
    long underReplicatedChunks,
    long corruptChunks,
    long missingChunks,
    boolean openForWrite) {}
