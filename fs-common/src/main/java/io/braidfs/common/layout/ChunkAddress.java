package io.braidfs.common.layout;

/**
 * Where one byte of a file lives: a chunk, named both by its position in the layout (chunk set and
 * index within the set) and by its global chunk index, plus a byte offset inside that chunk.
 *
 * <p>The global chunk index is {@code chunkSet * stripeWidth + chunkInSet}; it is the number the
 * MDS chunk table, data-server requests and capability tokens use. This record cannot check that
 * relation because it does not know the stripe width; {@link Layout#fileOffset(ChunkAddress)} does.
 *
 * <p>Thread-safety: immutable.
 *
 * @param chunkSet the chunk set, counted from 0 at the start of the file
 * @param chunkInSet the chunk within its set, in {@code [0, stripeWidth)}
 * @param offsetInChunk the byte offset inside the chunk, in {@code [0, chunkSize)}
 * @param chunkIndex the global chunk index, {@code chunkSet * stripeWidth + chunkInSet}
 */
public record ChunkAddress(long chunkSet, int chunkInSet, long offsetInChunk, long chunkIndex) {

  /**
   * Validates signs only; see the class comment for the relation between the fields.
   *
   * @throws IllegalArgumentException if any component is negative
   */
  public ChunkAddress {
    if (chunkSet < 0 || chunkInSet < 0 || offsetInChunk < 0 || chunkIndex < 0) {
      throw new IllegalArgumentException(
          String.format(
              "chunk address components must be >= 0: chunkSet=%d, chunkInSet=%d,"
                  + " offsetInChunk=%d, chunkIndex=%d",
              chunkSet, chunkInSet, offsetInChunk, chunkIndex));
    }
  }
}
