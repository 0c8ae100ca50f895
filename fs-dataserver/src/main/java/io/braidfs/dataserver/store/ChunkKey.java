package io.braidfs.dataserver.store;

import io.braidfs.proto.ChunkId;

/**
 * Names one chunk: the {@code chunkIndex}-th chunk of file {@code inodeId}.
 *
 * <p>Thread-safety: immutable.
 *
 * @param inodeId the file's inode id (positive)
 * @param chunkIndex the chunk's index within the file, an unsigned 32-bit value
 */
public record ChunkKey(long inodeId, int chunkIndex) {

  /** The key of a wire {@link ChunkId}. */
  public static ChunkKey of(ChunkId id) {
    return new ChunkKey(id.getInodeId(), id.getChunkIndex());
  }

  /** The wire form. */
  public ChunkId toProto() {
    return ChunkId.newBuilder().setInodeId(inodeId).setChunkIndex(chunkIndex).build();
  }

  /** The chunk index as a non-negative long (what capability tokens cover). */
  public long index() {
    return Integer.toUnsignedLong(chunkIndex);
  }

  @Override
  public String toString() {
    return inodeId + ":" + Integer.toUnsignedString(chunkIndex);
  }
}
