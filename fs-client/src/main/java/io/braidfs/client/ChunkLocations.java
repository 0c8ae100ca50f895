package io.braidfs.client;

import java.util.List;

/**
 * Where a byte range of a file is stored ({@link BraidClient#locations}: Hadoop's
 * getFileBlockLocations, locality checks).
 *
 * <p>Thread-safety: immutable.
 *
 * @param chunkSets the chunk sets overlapping the range, in file order
 * @param fileLength the file's visible length in bytes
 * @param underConstruction a writer holds the file's lease: its last chunk may hold more than
 *     {@code fileLength}
 * @param layout the file's layout (every field set): a chunk set spans {@code chunkSize *
 *     stripeWidth} bytes of the file
 */
public record ChunkLocations(
    List<ChunkSetLocation> chunkSets,
    long fileLength,
    boolean underConstruction,
    LayoutPolicy layout) {
  public ChunkLocations {
    chunkSets = List.copyOf(chunkSets);
  }
}
