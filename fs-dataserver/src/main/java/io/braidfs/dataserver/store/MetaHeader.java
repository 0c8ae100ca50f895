package io.braidfs.dataserver.store;

import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The fixed head of a replica's meta file. Layout (big-endian, {@value #SIZE} bytes):
 *
 * <pre>
 *   0  magic "BRDM"            4 bytes
 *   4  format version (1)      u16
 *   6  state (ReplicaState)    u16, the proto enum number
 *   8  chunk version           u64
 *  16  generation              u64
 *  24  zero padding            8 bytes
 *  32  one CRC32C per 64 KiB block of the data file, u32 each
 * </pre>
 *
 * <p>Thread-safety: immutable.
 *
 * @param state the replica's state
 * @param version the chunk version
 * @param generation the file generation the replica was last written under
 */
record MetaHeader(ReplicaState state, long version, long generation) {
  /** Bytes of the header; block {@code i}'s CRC is at {@code SIZE + 4 * i}. */
  static final int SIZE = 32;

  /** "BRDM". */
  static final int MAGIC = 0x4252444D;

  static final int FORMAT_VERSION = 1;

  /** The header as {@value #SIZE} bytes, ready to write. */
  ByteBuffer encode() {
    ByteBuffer buf = ByteBuffer.allocate(SIZE);
    buf.putInt(MAGIC)
        .putShort((short) FORMAT_VERSION)
        .putShort((short) state.getNumber())
        .putLong(version)
        .putLong(generation);
    buf.position(0); // the padding stays zero
    return buf;
  }

  /**
   * Whether {@code head} (at least {@value #SIZE} bytes from position 0) starts with the magic. A
   * meta file without it was torn while being created.
   */
  static boolean hasMagic(ByteBuffer head) {
    return head.limit() >= SIZE && head.getInt(0) == MAGIC;
  }

  /**
   * Parses a header that {@link #hasMagic has the magic}.
   *
   * @throws IOException if the format version or state is unknown: a file this code cannot use
   *     safely, which must not be deleted as torn either
   */
  static MetaHeader decode(ByteBuffer head, Path path) throws IOException {
    int format = Short.toUnsignedInt(head.getShort(4));
    if (format != FORMAT_VERSION) {
      throw new IOException(path + ": unsupported meta format version " + format);
    }
    int stateNumber = Short.toUnsignedInt(head.getShort(6));
    ReplicaState state = ReplicaState.forNumber(stateNumber);
    if (state == null
        || state == ReplicaState.REPLICA_STATE_UNSPECIFIED
        || state == ReplicaState.UNRECOGNIZED) {
      throw new IOException(path + ": unknown replica state " + stateNumber);
    }
    return new MetaHeader(state, head.getLong(8), head.getLong(16));
  }

  /** The meta file's size for a data file of {@code blocks} blocks. */
  static long metaSize(long blocks) {
    return SIZE + 4 * blocks;
  }
}
