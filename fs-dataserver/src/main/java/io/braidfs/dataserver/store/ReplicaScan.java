package io.braidfs.dataserver.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One scrub of a finalized replica ({@link Replica#startScan()}): the version, generation and
 * length it began at, and a read channel of its own. Each block is read and checked under the
 * replica's lock, and only while the replica is still as the scan began, so a write, truncate or
 * deletion meanwhile ends the scan as {@link Block#CHANGED} rather than as corruption.
 *
 * <p>Ownership: the scan owns its channel; {@link #close()} it.
 *
 * <p>Thread-safety: not thread-safe; one scrubber thread uses it.
 */
public final class ReplicaScan implements AutoCloseable {
  /** What checking one block found. */
  public enum Block {
    /** The block's bytes match its stored CRC. */
    GOOD,
    /** They do not. */
    BAD,
    /** The replica was written, cut, finalized anew, deleted or lost since the scan began. */
    CHANGED
  }

  private final Replica replica;
  private final long version;
  private final long generation;
  private final long length;
  private final FileChannel channel;

  ReplicaScan(Replica replica, long version, long generation, long length, FileChannel channel) {
    this.replica = replica;
    this.version = version;
    this.generation = generation;
    this.length = length;
    this.channel = channel;
  }

  public Replica replica() {
    return replica;
  }

  /** The replica's version when the scan began. */
  public long version() {
    return version;
  }

  long generation() {
    return generation;
  }

  /** The replica's length when the scan began. */
  public long length() {
    return length;
  }

  /** The number of 64 KiB blocks (the last may be short). */
  public int blocks() {
    return BlockCrcs.blockCount(length);
  }

  /** The length in bytes of block {@code block}. */
  public int blockLength(int block) {
    return BlockCrcs.blockLength(block, length);
  }

  FileChannel channel() {
    return channel;
  }

  /**
   * Reads block {@code block} and checks it against its stored CRC.
   *
   * @param buf scratch space of at least 64 KiB
   * @throws IOException if the read fails (the replica's directory is checked first)
   */
  public Block check(int block, ByteBuffer buf) throws IOException {
    return replica.checkBlock(this, block, buf);
  }

  /**
   * Marks the replica corrupt, persisted in its meta file, unless it changed since the scan began.
   *
   * @return whether it was marked
   */
  public boolean markCorrupt() throws IOException {
    return replica.markCorruptIfUnchanged(this);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
