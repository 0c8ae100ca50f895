package io.braidfs.dataserver.store;

import static io.braidfs.dataserver.store.StoreFixtures.BLOCK;
import static io.braidfs.dataserver.store.StoreFixtures.assertConsistent;
import static io.braidfs.dataserver.store.StoreFixtures.crc;
import static io.braidfs.dataserver.store.StoreFixtures.randomBytes;
import static io.braidfs.dataserver.store.StoreFixtures.readAll;
import static io.braidfs.dataserver.store.StoreFixtures.readView;
import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.checksum.Checksums;
import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random writes, truncates, finalizes, syncs and restarts against an in-memory byte array, checking
 * after every step the contents, the CRC invariant, random reads and piece CRCs.
 */
class ReplicaModelTest {
  private static final int MAX_LENGTH = 1024 * 1024;
  private static final ChunkKey KEY = new ChunkKey(77, 2);

  @TempDir Path dir;

  private Random random = new Random(0);
  private byte[] model = new byte[0];
  private long version = 1;
  private ChunkStore store;
  private Replica replica;

  @BeforeEach
  void create() throws IOException {
    store = ChunkStore.open(StoreFixtures.settings(dir));
    replica = store.create(KEY, version, 1);
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 42, 20240601})
  void randomOperationsMatchTheModel(long seed) throws IOException {
    random = new Random(seed);
    try {
      for (int step = 0; step < 120; step++) {
        String op = step();
        assertThat(readAll(replica)).as("step %d: %s", step, op).isEqualTo(model);
        assertConsistent(replica, dir);
        checkRandomRead();
      }
      checkPieceCrcs();
    } finally {
      store.close();
    }
  }

  /** One random operation on both the replica and the model; returns what it did. */
  private String step() throws IOException {
    int dice = random.nextInt(100);
    if (dice < 60) {
      return randomWrite();
    } else if (dice < 70) {
      long length = random.nextInt(model.length + 1);
      version++;
      replica.truncate(version, length);
      model = Arrays.copyOf(model, (int) length);
      assertThat(replica.version()).isEqualTo(version);
      return "truncate " + length;
    } else if (dice < 78) {
      long length = random.nextInt(model.length + 1);
      replica.finalizeAt(version, length);
      model = Arrays.copyOf(model, (int) length);
      assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
      return "finalize " + length;
    } else if (dice < 86) {
      assertThat(replica.sync()).isEqualTo(model.length);
      return "sync";
    } else if (dice < 94) {
      checkPieceCrcs();
      return "piece CRCs";
    }
    store.close();
    store = ChunkStore.open(StoreFixtures.settings(dir));
    Replica reopened = Objects.requireNonNull(store.get(KEY));
    assertThat(reopened.version()).isEqualTo(version);
    assertThat(reopened.state()).isEqualTo(replica.state());
    replica = reopened;
    return "restart";
  }

  private String randomWrite() throws IOException {
    int size = random.nextBoolean() ? 1 + random.nextInt(300) : 1 + random.nextInt(3 * BLOCK);
    long offset;
    int where = random.nextInt(4);
    if (where == 0) {
      offset = model.length; // append
    } else if (where == 1) {
      offset = (long) random.nextInt(MAX_LENGTH / BLOCK) * BLOCK; // aligned, anywhere
    } else {
      offset = random.nextInt(Math.min(MAX_LENGTH, model.length + 200_000) + 1);
    }
    size = (int) Math.min(size, MAX_LENGTH - offset);
    if (size == 0) {
      return "no write";
    }
    byte[] bytes = randomBytes(random, size);
    if (random.nextBoolean()) {
      StoreFixtures.write(replica, offset, bytes);
    } else {
      StoreFixtures.writeComposite(replica, offset, bytes, random.nextInt(size));
    }
    if (offset + size > model.length) {
      model = Arrays.copyOf(model, (int) (offset + size));
    }
    System.arraycopy(bytes, 0, model, (int) offset, size);
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_WRITING);
    return "write " + size + " at " + offset;
  }

  private void checkRandomRead() throws IOException {
    long offset = random.nextInt(model.length + 1);
    int length = random.nextInt(3 * BLOCK);
    ReadView view = replica.read(offset, length);
    int first = (int) view.firstBlockOffset();
    int[] crcs = view.blockCrcs();
    byte[] bytes = readView(view);
    assertThat(first).isLessThanOrEqualTo((int) offset);
    assertThat(first + bytes.length).isLessThanOrEqualTo(model.length);
    if (length > 0 && offset < model.length) {
      assertThat(first + bytes.length)
          .isGreaterThanOrEqualTo((int) Math.min(offset + length, model.length));
    }
    assertThat(bytes).isEqualTo(Arrays.copyOfRange(model, first, first + bytes.length));
    assertThat(Checksums.verify(ByteBuffer.wrap(bytes), first, crcs)).isEmpty();
  }

  private void checkPieceCrcs() throws IOException {
    int pieceSize = BLOCK << random.nextInt(5);
    int length = model.length == 0 ? 0 : random.nextInt(model.length + 1);
    int covered = length == 0 ? model.length : length;
    int pieces = (covered + pieceSize - 1) / pieceSize;
    int[] expected = new int[pieces];
    for (int p = 0; p < pieces; p++) {
      expected[p] = crc(model, p * pieceSize, Math.min((p + 1) * pieceSize, covered));
    }
    assertThat(replica.pieceCrcs(length, pieceSize)).isEqualTo(expected);
  }
}
