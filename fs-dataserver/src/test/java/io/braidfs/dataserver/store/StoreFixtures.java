package io.braidfs.dataserver.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.ReplicaState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.zip.CRC32C;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Helpers for the store tests: writing byte arrays with correct piece CRCs, reading replicas back,
 * and the central invariant that the CRCs a replica stores (in memory and in its meta file) equal
 * the CRCs of its data file's bytes.
 *
 * <p>Thread-safety: stateless.
 */
final class StoreFixtures {
  static final int BLOCK = Checksums.BLOCK_SIZE;

  private StoreFixtures() {}

  static StoreSettings settings(Path... dirs) {
    return new StoreSettings(List.of(dirs), 0, 0);
  }

  static byte[] randomBytes(Random random, int n) {
    byte[] bytes = new byte[n];
    random.nextBytes(bytes);
    return bytes;
  }

  /** Writes {@code bytes} at {@code offset} with the CRCs a verifying caller would pass. */
  static long write(Replica replica, long offset, byte[] bytes) throws IOException {
    ByteBuf buf = Unpooled.wrappedBuffer(bytes);
    try {
      return replica.write(offset, buf, Checksums.pieceCrcs(buf, offset));
    } finally {
      buf.release();
    }
  }

  /** As {@link #write}, from a direct composite buffer (two components split at {@code cut}). */
  static long writeComposite(Replica replica, long offset, byte[] bytes, int cut)
      throws IOException {
    ByteBuf a = Unpooled.directBuffer(cut).writeBytes(bytes, 0, cut);
    ByteBuf b =
        Unpooled.directBuffer(bytes.length - cut).writeBytes(bytes, cut, bytes.length - cut);
    ByteBuf buf = Unpooled.wrappedBuffer(a, b);
    try {
      return replica.write(offset, buf, Checksums.pieceCrcs(buf, offset));
    } finally {
      buf.release();
    }
  }

  /** The bytes a read of {@code [offset, offset + length)} returns, as the view covers them. */
  static byte[] readView(ReadView view) throws IOException {
    try (view) {
      ByteBuffer buf = ByteBuffer.allocate((int) view.length());
      FileIo.readFully(view.channel(), buf, view.firstBlockOffset(), Path.of("view"));
      return buf.array();
    }
  }

  /** The replica's bytes, read through {@link Replica#read}. */
  static byte[] readAll(Replica replica) throws IOException {
    return readView(replica.read(0, (int) replica.length()));
  }

  static Path dataFile(Path dir, ChunkKey key) {
    return dir.resolve("chunks")
        .resolve(String.format(Locale.ROOT, "%02x", key.inodeId() & 0xff))
        .resolve(key.inodeId() + "_" + Integer.toUnsignedString(key.chunkIndex()) + ".data");
  }

  static Path metaFile(Path dir, ChunkKey key) {
    Path data = dataFile(dir, key);
    String name = data.getFileName().toString();
    return data.resolveSibling(name.substring(0, name.length() - 5) + ".meta");
  }

  /**
   * Checks the invariant: the data file has the replica's length; the meta file has the magic, the
   * replica's state and version, and exactly one CRC per block, each equal to the CRC of that block
   * of the data file; and the CRCs a read returns are those too.
   */
  static void assertConsistent(Replica replica, Path dir) throws IOException {
    byte[] data = Files.readAllBytes(dataFile(dir, replica.key()));
    assertThat((long) data.length).as("data file size").isEqualTo(replica.length());
    int[] expected = Checksums.blockCrcs(ByteBuffer.wrap(data));
    ByteBuffer meta = ByteBuffer.wrap(Files.readAllBytes(metaFile(dir, replica.key())));
    assertThat(meta.getInt(0)).as("magic").isEqualTo(0x4252444D);
    assertThat((int) meta.getShort(6)).as("state").isEqualTo(replica.state().getNumber());
    assertThat(meta.getLong(8)).as("version").isEqualTo(replica.version());
    assertThat(meta.limit()).as("meta size").isEqualTo(32 + 4 * expected.length);
    int[] stored = new int[expected.length];
    meta.position(32);
    meta.asIntBuffer().get(stored);
    assertThat(stored).as("CRCs in the meta file").isEqualTo(expected);
    if (replica.state() != ReplicaState.REPLICA_STATE_CORRUPT) {
      try (ReadView view = replica.read(0, (int) replica.length())) {
        assertThat(view.blockCrcs()).as("CRCs in memory").isEqualTo(expected);
      }
    }
  }

  /** The status of the IOException {@code call} throws. */
  static Status statusOf(ThrowingCallable call) {
    Throwable t = catchThrowable(call);
    assertThat(t).isInstanceOf(IOException.class);
    return StatusExceptions.statusOf(t);
  }

  /** The CRC32C of {@code bytes[from, to)}. */
  static int crc(byte[] bytes, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, from, to - from);
    return (int) crc.getValue();
  }
}
