package io.braidfs.dataserver.store;

import io.braidfs.proto.ReplicaState;
import io.netty.buffer.ByteBuf;
import java.io.IOException;

/**
 * One replica of a chunk on this server: a data file with the chunk's bytes and a meta file with
 * its version, file generation, state and block CRCs (design in {@link ChunkStore}).
 *
 * <p>Lengths and offsets are bytes within the chunk. The replica's length is the highest byte
 * written plus one; bytes never written below it (holes) read as zeros and have CRCs of zeros.
 * Errors are {@link IOException}s that implement {@code StatusException}, made with {@code
 * StatusExceptions.toIOException}: {@code NO_SPACE} when the directory is full (nothing is written,
 * the length is unchanged), {@code OUT_OF_RANGE} for offsets past what the operation allows, {@code
 * INVALID_ARGUMENT} for malformed arguments; any other I/O failure is passed on.
 *
 * <p>Thread-safety: thread-safe. Mutations are serialized on the replica; {@link #read} may run
 * concurrently with them and sees either the state before or after each one.
 */
public final class Replica {
  Replica() {}

  public ChunkKey key() {
    throw new UnsupportedOperationException();
  }

  /** The replica's chunk version (see data.proto). */
  public long version() {
    throw new UnsupportedOperationException();
  }

  /** The file generation the replica was last written under (from the writer's token). */
  public long generation() {
    throw new UnsupportedOperationException();
  }

  public ReplicaState state() {
    throw new UnsupportedOperationException();
  }

  /** The replica's length in bytes, including data not yet forced to disk. */
  public long length() {
    throw new UnsupportedOperationException();
  }

  /** Bytes known to be on disk (forced by the last {@link #sync}, finalize or truncate). */
  public long syncedLength() {
    throw new UnsupportedOperationException();
  }

  /**
   * Writes {@code data}'s readable bytes at {@code offset} and updates the stored CRCs. A write
   * past the end leaves a hole that reads as zeros. A finalized replica is reopened for writing.
   * The data is in the OS cache when this returns, not necessarily on disk.
   *
   * @param data borrowed: read, not released, indices unchanged
   * @param pieceCrcs the CRC32C of each piece of {@code data} as {@code Checksums.pieceCrcs} cuts
   *     it at {@code offset}; the caller has already verified them against the data, and the store
   *     reuses those of whole blocks rather than computing them again
   * @return the replica's length afterwards
   * @throws IOException NO_SPACE if the directory cannot take the bytes (nothing written);
   *     INVALID_ARGUMENT if the replica is corrupt or the CRC count is wrong
   */
  public long write(long offset, ByteBuf data, int[] pieceCrcs) throws IOException {
    throw new UnsupportedOperationException();
  }

  /**
   * Records the file generation of a newer token that wrote to the replica (persisted with the next
   * meta write, at the latest at sync). Lower values are ignored.
   */
  public void raiseGeneration(long generation) {
    throw new UnsupportedOperationException();
  }

  /**
   * Forces the data and meta files to disk.
   *
   * @return the synced length (the length at the time of the call)
   */
  public long sync() throws IOException {
    throw new UnsupportedOperationException();
  }

  /**
   * Closes the replica at {@code length} and {@code version}: drops bytes past {@code length} (an
   * unacknowledged tail), recomputes the last block's CRC if it was cut, marks it finalized and
   * forces everything to disk. Idempotent.
   *
   * @throws IOException OUT_OF_RANGE if {@code length} exceeds the replica's length
   */
  public void finalizeAt(long version, long length) throws IOException {
    throw new UnsupportedOperationException();
  }

  /**
   * Cuts the replica to {@code length} and gives it {@code newVersion}, forcing the change to disk;
   * the state does not change. Idempotent.
   *
   * @throws IOException OUT_OF_RANGE if {@code length} exceeds the replica's length
   */
  public void truncate(long newVersion, long length) throws IOException {
    throw new UnsupportedOperationException();
  }

  /**
   * A view of {@code [offset, offset + length)} clipped at the replica's end and widened to whole
   * 64 KiB blocks, with the stored CRCs of those blocks.
   *
   * @throws IOException OUT_OF_RANGE if {@code offset} is past the replica's length (equal is an
   *     empty view); CHECKSUM_MISMATCH if the replica is marked corrupt
   */
  public ReadView read(long offset, int length) throws IOException {
    throw new UnsupportedOperationException();
  }

  /**
   * The CRC32C of each {@code pieceSize}-byte piece of {@code [0, length)}, combined from the
   * stored block CRCs without reading the data.
   *
   * @param length the bytes to cover; 0 means the whole replica
   * @param pieceSize a positive multiple of 64 KiB
   * @throws IOException OUT_OF_RANGE if {@code length} exceeds the replica's length
   */
  public int[] pieceCrcs(long length, int pieceSize) throws IOException {
    throw new UnsupportedOperationException();
  }

  /** Marks the replica corrupt (persisted): reads fail until the MDS has it deleted. */
  public void markCorrupt() throws IOException {
    throw new UnsupportedOperationException();
  }
}
