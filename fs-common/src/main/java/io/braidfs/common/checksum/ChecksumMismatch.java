package io.braidfs.common.checksum;

/**
 * The first block of a region whose data does not match its expected CRC32C.
 *
 * <p>Thread-safety: immutable.
 *
 * @param blockIndex the block's index in the region's expected-CRC array, from 0
 * @param offset the offset of the block's first byte in the caller's address space (the region's
 *     offset plus {@code blockIndex * BLOCK_SIZE}), typically an offset inside a chunk
 * @param expectedCrc the CRC32C the caller expected
 * @param actualCrc the CRC32C of the data
 */
public record ChecksumMismatch(int blockIndex, long offset, int expectedCrc, int actualCrc) {

  @Override
  public String toString() {
    return String.format(
        "ChecksumMismatch[block %d at offset %d: expected %08x, actual %08x]",
        blockIndex, offset, expectedCrc, actualCrc);
  }
}
