package io.braidfs.dataserver.store;

import static io.braidfs.dataserver.store.StoreFixtures.BLOCK;
import static io.braidfs.dataserver.store.StoreFixtures.assertConsistent;
import static io.braidfs.dataserver.store.StoreFixtures.crc;
import static io.braidfs.dataserver.store.StoreFixtures.randomBytes;
import static io.braidfs.dataserver.store.StoreFixtures.readAll;
import static io.braidfs.dataserver.store.StoreFixtures.readView;
import static io.braidfs.dataserver.store.StoreFixtures.statusOf;
import static io.braidfs.dataserver.store.StoreFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.proto.ReplicaState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReplicaTest {
  private static final ChunkKey KEY = new ChunkKey(4242, 7);

  @TempDir Path dir;
  private final Random random = new Random(20240601);
  private ChunkStore store;
  private Replica replica;

  @BeforeEach
  void setUp() throws IOException {
    store = ChunkStore.open(StoreFixtures.settings(dir));
    replica = store.create(KEY, 1, 1);
  }

  @AfterEach
  void tearDown() throws IOException {
    store.close();
  }

  @Test
  void newReplicaIsEmptyAndWriting() throws IOException {
    assertThat(replica.key()).isEqualTo(KEY);
    assertThat(replica.length()).isZero();
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_WRITING);
    assertThat(replica.version()).isEqualTo(1);
    assertThat(replica.generation()).isEqualTo(1);
    assertThat(StoreFixtures.dataFile(dir, KEY)).exists();
    assertConsistent(replica, dir);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 1000, BLOCK - 1, BLOCK, BLOCK + 17, 3 * BLOCK})
  void writeThenReadRoundTrips(int offset) throws IOException {
    byte[] bytes = randomBytes(random, 3 * BLOCK + 1234);
    assertThat(write(replica, offset, bytes)).isEqualTo(offset + bytes.length);
    byte[] expected = new byte[offset + bytes.length];
    System.arraycopy(bytes, 0, expected, offset, bytes.length);
    assertThat(readAll(replica)).isEqualTo(expected);
    assertConsistent(replica, dir);
  }

  @Test
  void readWidensToBlocksAndClipsAtTheEnd() throws IOException {
    byte[] bytes = randomBytes(random, 2 * BLOCK + 500);
    write(replica, 0, bytes);
    try (ReadView view = replica.read(BLOCK + 10, 20)) {
      assertThat(view.firstBlockOffset()).isEqualTo(BLOCK);
      assertThat(view.length()).isEqualTo(BLOCK);
      assertThat(view.blockCrcs()).containsExactly(crc(bytes, BLOCK, 2 * BLOCK));
      assertThat(view.chunkLength()).isEqualTo(bytes.length);
      assertThat(view.version()).isEqualTo(1);
    }
    ReadView tail = replica.read(BLOCK - 1, 10 * BLOCK);
    assertThat(tail.firstBlockOffset()).isZero();
    assertThat(tail.blockCrcs()).hasSize(3);
    assertThat(readView(tail)).isEqualTo(bytes);
    ReadView last = replica.read(2 * BLOCK + 499, 1);
    assertThat(last.length()).isEqualTo(500);
    assertThat(last.blockCrcs()).containsExactly(crc(bytes, 2 * BLOCK, bytes.length));
    assertThat(readView(last)).isEqualTo(Arrays.copyOfRange(bytes, 2 * BLOCK, bytes.length));
  }

  @Test
  void readAtTheEndIsEmptyAndPastItOutOfRange() throws IOException {
    write(replica, 0, randomBytes(random, BLOCK + 10));
    try (ReadView view = replica.read(BLOCK + 10, 100)) {
      assertThat(view.length()).isZero();
      assertThat(view.blockCrcs()).isEmpty();
      assertThat(view.firstBlockOffset() % BLOCK).isZero();
    }
    try (ReadView view = replica.read(5, 0)) {
      assertThat(view.length()).isZero();
    }
    assertThat(statusOf(() -> replica.read(BLOCK + 11, 1))).isEqualTo(Status.OUT_OF_RANGE);
    assertThat(statusOf(() -> replica.read(-1, 1))).isEqualTo(Status.INVALID_ARGUMENT);
  }

  @Test
  void readViewAsFileRegionTransfersTheRange() throws IOException {
    byte[] bytes = randomBytes(random, BLOCK + 99);
    write(replica, 0, bytes);
    FileRegion region = replica.read(BLOCK, 5).region();
    try {
      assertThat(region.position()).isEqualTo(BLOCK);
      assertThat(region.count()).isEqualTo(99);
    } finally {
      region.release();
    }
  }

  @Test
  void overwriteInsideABlockKeepsTheOtherBytes() throws IOException {
    byte[] model = randomBytes(random, 3 * BLOCK);
    write(replica, 0, model);
    byte[] patch = randomBytes(random, 100);
    write(replica, BLOCK + 500, patch);
    System.arraycopy(patch, 0, model, BLOCK + 500, patch.length);
    assertThat(readAll(replica)).isEqualTo(model);
    assertThat(replica.length()).isEqualTo(3 * BLOCK);
    assertConsistent(replica, dir);
    // Across a block boundary, from a composite direct buffer.
    byte[] span = randomBytes(random, BLOCK + 300);
    StoreFixtures.writeComposite(replica, BLOCK - 100, span, 1000);
    System.arraycopy(span, 0, model, BLOCK - 100, span.length);
    assertThat(readAll(replica)).isEqualTo(model);
    assertConsistent(replica, dir);
  }

  @Test
  void overwriteShorterThanTheLastBlockKeepsItsTail() throws IOException {
    byte[] model = randomBytes(random, BLOCK + 1000);
    write(replica, 0, model);
    byte[] patch = randomBytes(random, 10);
    write(replica, BLOCK, patch); // starts aligned but ends before the block's end
    System.arraycopy(patch, 0, model, BLOCK, patch.length);
    assertThat(readAll(replica)).isEqualTo(model);
    assertConsistent(replica, dir);
  }

  @Test
  void sparseWriteFarPastTheEndReadsZeros() throws IOException {
    byte[] head = randomBytes(random, 100);
    write(replica, 0, head);
    long far = 10L * 1024 * 1024 + 7;
    byte[] tail = randomBytes(random, 5);
    assertThat(write(replica, far, tail)).isEqualTo(far + 5);
    assertConsistent(replica, dir);
    try (ReadView middle = replica.read(5L * 1024 * 1024, 10)) {
      byte[] zeros = readView(middle);
      assertThat(zeros).containsOnly(0);
      assertThat(middle.blockCrcs()).containsExactly(crc(new byte[BLOCK], 0, BLOCK));
    }
    byte[] all = readAll(replica);
    assertThat(Arrays.copyOf(all, 100)).isEqualTo(head);
    assertThat(Arrays.copyOfRange(all, 100, (int) far)).containsOnly(0);
    assertThat(Arrays.copyOfRange(all, (int) far, all.length)).isEqualTo(tail);
  }

  @Test
  void writePastAnAlignedEndLeavesWholeZeroBlocks() throws IOException {
    write(replica, 0, randomBytes(random, BLOCK));
    write(replica, 4L * BLOCK, randomBytes(random, 10));
    assertConsistent(replica, dir);
    write(replica, 2L * BLOCK + 3, randomBytes(random, 10)); // into the hole
    assertConsistent(replica, dir);
  }

  @Test
  void finalizeDropsTheTailAndIsIdempotent() throws IOException {
    byte[] bytes = randomBytes(random, 150_000);
    write(replica, 0, bytes);
    replica.finalizeAt(5, 100_000);
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
    assertThat(replica.version()).isEqualTo(5);
    assertThat(replica.length()).isEqualTo(100_000);
    assertThat(replica.syncedLength()).isEqualTo(100_000);
    assertThat(readAll(replica)).isEqualTo(Arrays.copyOf(bytes, 100_000));
    assertConsistent(replica, dir);
    replica.finalizeAt(5, 100_000);
    assertThat(replica.length()).isEqualTo(100_000);
    assertConsistent(replica, dir);
    assertThat(statusOf(() -> replica.finalizeAt(5, 100_001))).isEqualTo(Status.OUT_OF_RANGE);
    assertThat(replica.length()).isEqualTo(100_000);
  }

  @Test
  void finalizeWithoutForceLeavesTheSyncToALaterSync() throws IOException {
    byte[] bytes = randomBytes(random, 150_000);
    write(replica, 0, bytes);
    replica.finalizeAt(5, 120_000, false);
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
    assertThat(replica.length()).isEqualTo(120_000);
    assertThat(replica.syncedLength()).isZero(); // nothing forced yet
    assertThat(replica.sync()).isEqualTo(120_000); // a reader's fsync of the closed file
    assertThat(replica.syncedLength()).isEqualTo(120_000);
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
    assertThat(readAll(replica)).isEqualTo(Arrays.copyOf(bytes, 120_000));
    assertConsistent(replica, dir);
  }

  @Test
  void truncateChangesTheVersionAndCutsButNotTheState() throws IOException {
    byte[] bytes = randomBytes(random, 3 * BLOCK + 5);
    write(replica, 0, bytes);
    replica.truncate(3, 2 * BLOCK);
    assertThat(replica.version()).isEqualTo(3);
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_WRITING);
    assertThat(replica.length()).isEqualTo(2 * BLOCK);
    assertThat(readAll(replica)).isEqualTo(Arrays.copyOf(bytes, 2 * BLOCK));
    assertConsistent(replica, dir);
    replica.truncate(4, BLOCK + 3);
    assertConsistent(replica, dir);
    replica.truncate(4, BLOCK + 3);
    assertThat(replica.length()).isEqualTo(BLOCK + 3);
    replica.truncate(5, 0);
    assertThat(replica.length()).isZero();
    assertConsistent(replica, dir);
    assertThat(statusOf(() -> replica.truncate(6, 1))).isEqualTo(Status.OUT_OF_RANGE);
  }

  /**
   * A truncate waits until a read view handed out before it has been sent: a zero-copy send of a
   * range the file no longer held ended short and closed the client's connection (issue 24, fsx on
   * one replica).
   */
  @Test
  void aTruncateWaitsForAReadBeingSent() throws Exception {
    byte[] bytes = randomBytes(random, 3 * BLOCK);
    write(replica, 0, bytes);
    FileRegion region = replica.read(0, 3 * BLOCK).region();
    AtomicBoolean cut = new AtomicBoolean();
    Thread truncator =
        new Thread(
            () -> {
              try {
                replica.truncate(3, BLOCK);
                cut.set(true);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    truncator.start();
    truncator.join(300);
    assertThat(cut).as("cut while the read is being sent").isFalse();
    assertThat(replica.length()).isEqualTo(3 * BLOCK);
    region.release(); // sent
    truncator.join(5_000);
    assertThat(cut).isTrue();
    assertThat(replica.length()).isEqualTo(BLOCK);
    assertConsistent(replica, dir);
  }

  @Test
  void writeReopensAFinalizedReplica() throws IOException {
    byte[] bytes = randomBytes(random, BLOCK + 10);
    write(replica, 0, bytes);
    replica.finalizeAt(2, bytes.length);
    byte[] more = randomBytes(random, 20);
    write(replica, bytes.length, more);
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_WRITING);
    assertThat(replica.length()).isEqualTo(bytes.length + 20);
    assertConsistent(replica, dir); // the header on disk says WRITING too
  }

  @Test
  void syncTracksTheSyncedLengthAndPersistsTheGeneration() throws IOException {
    write(replica, 0, randomBytes(random, 1000));
    assertThat(replica.syncedLength()).isZero();
    assertThat(replica.sync()).isEqualTo(1000);
    assertThat(replica.syncedLength()).isEqualTo(1000);
    write(replica, 1000, randomBytes(random, 1000));
    assertThat(replica.syncedLength()).isEqualTo(1000);
    replica.raiseGeneration(9);
    replica.raiseGeneration(3);
    assertThat(replica.generation()).isEqualTo(9);
    assertThat(replica.sync()).isEqualTo(2000);
    ByteBuffer meta = ByteBuffer.wrap(Files.readAllBytes(StoreFixtures.metaFile(dir, KEY)));
    assertThat(meta.getLong(16)).isEqualTo(9);
  }

  @Test
  void pieceCrcsEqualTheCrcsOfTheBytes() throws IOException {
    byte[] bytes = randomBytes(random, 2 * 1024 * 1024 + 12_345);
    write(replica, 0, bytes);
    long[] lengths = {
      0, 1, 3, BLOCK - 1, BLOCK, BLOCK + 1, 100_000, 1024 * 1024, 1024 * 1024 + 5, bytes.length
    };
    for (int pieceSize : new int[] {4096, 8192, BLOCK / 2, BLOCK, 2 * BLOCK, 1024 * 1024}) {
      for (long length : lengths) {
        int covered = (int) (length == 0 ? bytes.length : length);
        int pieces = (covered + pieceSize - 1) / pieceSize;
        int[] expected = new int[pieces];
        for (int p = 0; p < pieces; p++) {
          expected[p] = crc(bytes, p * pieceSize, Math.min((p + 1) * pieceSize, covered));
        }
        assertThat(replica.pieceCrcs(length, pieceSize))
            .as("piece size %d, length %d", pieceSize, length)
            .isEqualTo(expected);
      }
    }
    assertThat(statusOf(() -> replica.pieceCrcs(bytes.length + 1, BLOCK)))
        .isEqualTo(Status.OUT_OF_RANGE);
    assertThat(statusOf(() -> replica.pieceCrcs(0, 1000))).isEqualTo(Status.INVALID_ARGUMENT);
    assertThat(statusOf(() -> replica.pieceCrcs(0, 3 * 4096))).isEqualTo(Status.INVALID_ARGUMENT);
    assertThat(statusOf(() -> replica.pieceCrcs(0, 0))).isEqualTo(Status.INVALID_ARGUMENT);
  }

  /** Pieces under a block are cut from data read back, which must match the stored CRCs. */
  @Test
  void subBlockPieceCrcsRefuseCorruptData() throws IOException {
    byte[] bytes = randomBytes(random, 3 * BLOCK + 100);
    write(replica, 0, bytes);
    assertThat(replica.pieceCrcs(0, 4096)).hasSize(3 * 16 + 1);
    byte[] onDisk = Files.readAllBytes(StoreFixtures.dataFile(dir, KEY));
    onDisk[BLOCK + 5] ^= 1;
    Files.write(StoreFixtures.dataFile(dir, KEY), onDisk);
    assertThat(statusOf(() -> replica.pieceCrcs(0, 4096))).isEqualTo(Status.CHECKSUM_MISMATCH);
    assertThat(replica.pieceCrcs(BLOCK, 4096)).hasSize(16); // the bad block is not needed
  }

  @Test
  void pieceCrcsOfAnEmptyReplicaAreEmpty() throws IOException {
    assertThat(replica.pieceCrcs(0, BLOCK)).isEmpty();
  }

  @Test
  void corruptReplicaRefusesReadsAndWrites() throws IOException {
    write(replica, 0, randomBytes(random, 100));
    replica.markCorrupt();
    assertThat(replica.state()).isEqualTo(ReplicaState.REPLICA_STATE_CORRUPT);
    assertThat(statusOf(() -> replica.read(0, 10))).isEqualTo(Status.CHECKSUM_MISMATCH);
    assertThat(statusOf(() -> write(replica, 0, new byte[1]))).isEqualTo(Status.INVALID_ARGUMENT);
    assertThat(statusOf(() -> replica.finalizeAt(1, 100))).isEqualTo(Status.INVALID_ARGUMENT);
    assertConsistent(replica, dir);
  }

  @Test
  void malformedWritesAreRefused() throws IOException {
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[BLOCK + 1]);
    try {
      assertThat(statusOf(() -> replica.write(0, buf, new int[1])))
          .isEqualTo(Status.INVALID_ARGUMENT);
      assertThat(statusOf(() -> replica.write(-1, buf, new int[2])))
          .isEqualTo(Status.INVALID_ARGUMENT);
      assertThat(statusOf(() -> replica.write(Long.MAX_VALUE - 10, buf, new int[2])))
          .isEqualTo(Status.OUT_OF_RANGE);
      assertThat(buf.readerIndex()).isZero();
    } finally {
      buf.release();
    }
    assertThat(replica.length()).isZero();
    assertThat(write(replica, 0, new byte[0])).isZero();
  }

  @Test
  void deletedReplicaFailsButAnOpenViewStillReads() throws IOException {
    byte[] bytes = randomBytes(random, BLOCK + 50);
    write(replica, 0, bytes);
    ReadView view = replica.read(0, bytes.length);
    assertThat(store.delete(KEY, 1)).isTrue();
    assertThat(StoreFixtures.dataFile(dir, KEY)).doesNotExist();
    assertThat(store.get(KEY)).isNull();
    assertThat(readView(view)).isEqualTo(bytes);
    assertThat(statusOf(() -> replica.read(0, 1))).isEqualTo(Status.NOT_FOUND);
    assertThat(statusOf(() -> write(replica, 0, new byte[1]))).isEqualTo(Status.NOT_FOUND);
    assertThat(statusOf(replica::sync)).isEqualTo(Status.NOT_FOUND);
  }

  @Test
  void closedStoreMakesReplicasUnavailable() throws IOException {
    write(replica, 0, new byte[10]);
    store.close();
    assertThat(statusOf(() -> replica.read(0, 1))).isEqualTo(Status.UNAVAILABLE);
    assertThat(statusOf(() -> store.create(new ChunkKey(1, 1), 1, 1)))
        .isEqualTo(Status.UNAVAILABLE);
    store.close(); // idempotent
  }

  @Test
  void readsSeeConsistentSnapshotsWhileAppendsRun() throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                while (!done.get()) {
                  ReadView view = replica.read(0, Integer.MAX_VALUE);
                  byte[] bytes = readView(view);
                  assertThat(Checksums.verify(ByteBuffer.wrap(bytes), 0, view.blockCrcs()))
                      .isEmpty();
                }
              } catch (IOException | AssertionError e) {
                failure.set(e);
              }
            },
            "reader");
    reader.start();
    Random r = new Random(7);
    for (int i = 0; i < 200; i++) {
      write(replica, replica.length(), randomBytes(r, 1 + r.nextInt(20_000)));
    }
    done.set(true);
    reader.join();
    assertThat(failure.get()).isNull();
    assertConsistent(replica, dir);
  }
}
