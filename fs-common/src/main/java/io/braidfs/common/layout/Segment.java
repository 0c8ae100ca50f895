package io.braidfs.common.layout;

/**
 * A contiguous piece of a file range that lies inside one stripe unit of one chunk: the unit of
 * work of the client I/O path (one read or write request to one chunk's replicas).
 *
 * <p>The chunk coordinates are stored flat rather than as a {@link ChunkAddress} so that iterating
 * over a range allocates one object per segment; {@link #address()} builds the address on demand.
 *
 * <p>Thread-safety: immutable.
 *
 * @param fileOffset the file offset of the first byte of the segment
 * @param length the number of bytes, in {@code [1, stripeUnit]}
 * @param chunkSet the chunk set of the segment's chunk
 * @param chunkInSet the chunk within its set
 * @param offsetInChunk the byte offset of the first byte inside the chunk
 * @param chunkIndex the global chunk index, {@code chunkSet * stripeWidth + chunkInSet}
 */
public record Segment(
    long fileOffset,
    int length,
    long chunkSet,
    int chunkInSet,
    long offsetInChunk,
    long chunkIndex) {

  /**
   * Validates signs only; {@link Layout#segments} produces consistent segments.
   *
   * @throws IllegalArgumentException if {@code length} is not positive or another component is
   *     negative
   */
  public Segment {
    if (fileOffset < 0
        || length <= 0
        || chunkSet < 0
        || chunkInSet < 0
        || offsetInChunk < 0
        || chunkIndex < 0) {
      throw new IllegalArgumentException(
          String.format(
              "invalid segment: fileOffset=%d, length=%d, chunkSet=%d, chunkInSet=%d,"
                  + " offsetInChunk=%d, chunkIndex=%d",
              fileOffset, length, chunkSet, chunkInSet, offsetInChunk, chunkIndex));
    }
  }

  /** The chunk address of the segment's first byte (a new object on each call). */
  public ChunkAddress address() {
    return new ChunkAddress(chunkSet, chunkInSet, offsetInChunk, chunkIndex);
  }

  /** The file offset just past the segment's last byte. */
  public long fileEnd() {
    return fileOffset + length;
  }
}
