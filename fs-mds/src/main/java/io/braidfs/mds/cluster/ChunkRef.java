package io.braidfs.mds.cluster;

import io.braidfs.proto.ChunkId;

/**
 * A chunk of a file, as the repair bookkeeping names it.
 *
 * <p>Thread-safety: immutable.
 *
 * @param inode the file's inode id
 * @param index the chunk's index in the file (an unsigned 32-bit value)
 */
public record ChunkRef(long inode, int index) {
  /** The chunk a wire {@link ChunkId} names. */
  public static ChunkRef of(ChunkId id) {
    return new ChunkRef(id.getInodeId(), id.getChunkIndex());
  }

  /** {@code inode/index}, for messages. */
  @Override
  public String toString() {
    return inode + "/" + Integer.toUnsignedString(index);
  }
}
