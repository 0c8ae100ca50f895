package io.braidfs.client;

/**
 * A file's checksum as {@link BraidClient#checksum} composes it: the CRC32C of the file's byte
 * stream, so it depends on the bytes alone, not on how the file is striped, chunked or replicated:
 * equal files in different layouts compare equal (the definition of HDFS's COMPOSITE_CRC with
 * CRC32C, which lets DistCp compare files across block sizes).
 *
 * <p>Thread-safety: immutable.
 *
 * @param length the bytes covered, {@code [0, length)} of the file
 * @param crc32c the CRC32C (Castagnoli) of bytes {@code [0, length)} of the file, as {@link
 *     java.util.zip.CRC32C} computes it ({@code (int) getValue()}); for an empty file it is 0, the
 *     CRC32C of no bytes
 */
public record FileChecksum(long length, int crc32c) {}
