package io.braidfs.client;

import java.util.List;

/**
 * The chunks of one chunk set: a stripe width of chunks over which the file's stripe units rotate.
 *
 * <p>Thread-safety: immutable.
 *
 * @param setIndex the set's index within the file, from 0
 * @param fileOffset the file offset of the set's first byte, in bytes
 * @param chunks the set's chunks in stripe order: chunk {@code i} holds the stripe units {@code u}
 *     with {@code u mod stripeWidth == i}
 */
public record ChunkSetLocation(long setIndex, long fileOffset, List<ChunkLocation> chunks) {
  public ChunkSetLocation {
    chunks = List.copyOf(chunks);
  }
}
