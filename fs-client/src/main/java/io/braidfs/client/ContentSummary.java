package io.braidfs.client;

/**
 * Totals over a subtree ({@link BraidClient#contentSummary}: du, Hadoop's getContentSummary).
 *
 * <p>Thread-safety: immutable.
 *
 * @param length the sum of the file lengths in bytes
 * @param fileCount the number of regular files (and symlinks and special files, which add no
 *     length)
 * @param directoryCount the number of directories, the target included if it is one
 * @param spaceConsumed the raw bytes consumed: each file's allocated bytes times its replication
 */
public record ContentSummary(
    long length, long fileCount, long directoryCount, long spaceConsumed) {}
