package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.assertFails;
import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.readRequest;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.ChunkStore;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.dataserver.store.StoreSettings;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.ChecksumChunkRequest;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.OpenLocalReplicaRequest;
import io.braidfs.proto.ReplicaState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scrubber: a byte flipped on disk in a finalized replica is found by a later pass, the replica
 * is marked corrupt in its meta file (reads, checksums, local reads and copies from it refuse it)
 * and reported to the MDS with its first bad block; and a replica rewritten or truncated while it
 * is being scanned is never taken for a corrupt one.
 */
class ScrubberTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int BLOCK = Checksums.BLOCK_SIZE;
  private static final long VERSION = 4;
  private static final long GENERATION = 1;

  @TempDir Path dir;

  /** Flips one bit of the byte at {@code offset} of {@code file}, as a failing disk would. */
  private static void flipByte(Path file, long offset) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, offset);
      b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
      ch.write(b, offset);
    }
  }

  /** The state stored in the header of {@code replica}'s meta file. */
  private static ReplicaState stateOnDisk(Replica replica) throws IOException {
    String data = replica.dataFile().getFileName().toString();
    Path meta = replica.dataFile().resolveSibling(data.replace(".data", ".meta"));
    ByteBuffer head = ByteBuffer.wrap(Files.readAllBytes(meta));
    return ReplicaState.forNumber(head.getShort(6));
  }

  @Test
  void aFlippedByteIsFoundMarkedRefusedAndReported() throws Exception {
    TokenMint mint = new TokenMint(TokenMint.KEY_ID, 27);
    try (StandInMds mds = StandInMds.start(mint, Duration.ofMillis(50));
        DataClient client = new DataClient("test-client", new ClientId(27, 1));
        LoopbackDataServer s =
            LoopbackDataServer.startRegistered(
                "ds-scrub",
                mds,
                List.of(Files.createDirectory(dir.resolve("a"))),
                Map.of(
                    DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "256MiB",
                    DataServerConfigKeys.SCRUB_INTERVAL.name(), "100ms"));
        LoopbackDataServer other =
            LoopbackDataServer.startRegistered(
                "ds-other",
                mds,
                List.of(Files.createDirectory(dir.resolve("b"))),
                Map.of(DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0"))) {
      ChunkKey bad = new ChunkKey(2701, 0);
      ChunkKey good = new ChunkKey(2702, 0);
      int length = 3 * BLOCK + 500;
      ByteString token = mint.sign(mint.token(client.id(), 2701, GENERATION));
      ByteString goodToken = mint.sign(mint.token(client.id(), 2702, GENERATION));
      for (ChunkKey key : List.of(bad, good)) {
        ByteString t = key == bad ? token : goodToken;
        byte[] data = randomBytes((int) key.inodeId(), length);
        client.write(s.address(), writeRequest(key, VERSION, 0, data, t).build(), data);
        client.call(
            s.address(),
            RpcMethod.FINALIZE_CHUNK,
            FinalizeChunkRequest.newBuilder()
                .setChunk(key.toProto())
                .setVersion(VERSION)
                .setLength(length)
                .setToken(t)
                .build());
      }
      StandInMds.await(
          "a scrub pass over both replicas",
          WAIT,
          () -> s.server().scrubStats().replicasScanned() >= 2);
      assertThat(s.server().scrubStats().corruptFound()).isZero();
      assertThat(mds.corruptReports).isEmpty();

      flipByte(s.replica(bad).dataFile(), BLOCK + 123); // block 1
      StandInMds.await("the corrupt replica's report", WAIT, () -> !mds.corruptReports.isEmpty());
      assertThat(mds.corruptReports).hasSize(1);
      assertThat(mds.corruptReports.get(0).getServerId()).isEqualTo(s.server().serverId());
      BadReplica reported = mds.corruptReports.get(0).getReplicas(0);
      assertThat(reported.getChunk()).isEqualTo(bad.toProto());
      assertThat(reported.getVersion()).isEqualTo(VERSION);
      assertThat(reported.getServerId()).isEqualTo(s.server().serverId());
      assertThat(reported.getOffset()).isEqualTo(BLOCK);
      assertThat(reported.getReason()).contains("block 1");
      assertThat(s.server().scrubStats().corruptFound()).isEqualTo(1);

      Replica r = s.replica(bad);
      assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_CORRUPT);
      assertThat(stateOnDisk(r)).isEqualTo(ReplicaState.REPLICA_STATE_CORRUPT);
      assertFails(
          Status.CHECKSUM_MISMATCH,
          () -> client.read(s.address(), readRequest(bad, VERSION, 0, 100, token).build()));
      assertFails(
          Status.CHECKSUM_MISMATCH,
          () ->
              client.call(
                  s.address(),
                  RpcMethod.CHECKSUM_CHUNK,
                  ChecksumChunkRequest.newBuilder()
                      .setChunk(bad.toProto())
                      .setVersion(VERSION)
                      .setPieceSize(BLOCK)
                      .setToken(token)
                      .build()));
      assertFails(
          Status.CHECKSUM_MISMATCH,
          () ->
              client.call(
                  s.address(),
                  RpcMethod.OPEN_LOCAL_REPLICA,
                  OpenLocalReplicaRequest.newBuilder()
                      .setChunk(bad.toProto())
                      .setVersion(VERSION)
                      .setOffset(0)
                      .setLength(BLOCK)
                      .setToken(token)
                      .build()));
      assertFails(
          Status.CHECKSUM_MISMATCH,
          () ->
              client.call(
                  other.address(),
                  RpcMethod.COPY_CHUNK,
                  CopyChunkRequest.newBuilder()
                      .setChunk(bad.toProto())
                      .setVersion(VERSION)
                      .setLength(length)
                      .addSources(s.location())
                      .setSourceToken(token)
                      .setFinalize(true)
                      .setMdsEpoch(StandInMds.EPOCH)
                      .setToken(token)
                      .build()));
      assertThat(other.replica(bad)).isNull();

      // The other replica is untouched, and the corrupt one is not reported twice.
      long passes = s.server().scrubStats().passes();
      StandInMds.await(
          "two more scrub passes", WAIT, () -> s.server().scrubStats().passes() >= passes + 2);
      assertThat(s.replica(good).state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
      assertThat(mds.corruptReports).hasSize(1);
    }
  }

  /** Writes {@code bytes} at {@code offset} with the CRCs a verifying caller passes. */
  private static void write(Replica r, long offset, byte[] bytes) throws IOException {
    ByteBuf b = Unpooled.wrappedBuffer(bytes);
    try {
      r.write(offset, b, Checksums.pieceCrcs(b, offset));
    } finally {
      b.release();
    }
  }

  /** A store in {@code dir} with one finalized replica of four blocks. */
  private static Replica finalizedReplica(ChunkStore store, ChunkKey key) throws IOException {
    Replica r = store.create(key, VERSION, GENERATION);
    write(r, 0, randomBytes(1, 4 * BLOCK));
    r.finalizeAt(VERSION, 4 * BLOCK);
    return r;
  }

  /** A scrubber over {@code store} that runs {@code atBlock2} before block 2 of each replica. */
  private static Scrubber scrubber(ChunkStore store, List<BadReplica> reported, Runnable atBlock2) {
    return new Scrubber(
        "ds-test",
        store,
        reported::add,
        Duration.ofDays(1),
        (replica, block, bytes) -> {
          if (block == 2) {
            atBlock2.run();
          }
          return 0;
        });
  }

  @Test
  void aReplicaRewrittenDuringItsScanIsNotTakenForCorrupt() throws IOException {
    try (ChunkStore store = ChunkStore.open(new StoreSettings(List.of(dir), 0, 0))) {
      ChunkKey key = new ChunkKey(2710, 0);
      Replica r = finalizedReplica(store, key);
      List<BadReplica> reported = new ArrayList<>();
      // Blocks 0 and 1 were read as they were; then every block changes and the replica is
      // finalized again at the same version, length and generation, before block 2 is read.
      try (Scrubber scrub =
          scrubber(
              store,
              reported,
              () -> {
                try {
                  write(r, 0, randomBytes(2, 4 * BLOCK));
                  r.finalizeAt(VERSION, 4 * BLOCK);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })) {
        scrub.runPass();
        assertThat(reported).isEmpty();
        assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
        assertThat(scrub.stats().corruptFound()).isZero();
        assertThat(scrub.stats().replicasScanned()).isEqualTo(1);
      }
    }
  }

  @Test
  void aReplicaTruncatedDuringItsScanIsSkipped() throws IOException {
    try (ChunkStore store = ChunkStore.open(new StoreSettings(List.of(dir), 0, 0))) {
      Replica r = finalizedReplica(store, new ChunkKey(2711, 0));
      List<BadReplica> reported = new ArrayList<>();
      try (Scrubber scrub =
          scrubber(
              store,
              reported,
              () -> {
                try {
                  r.truncate(VERSION + 1, BLOCK + 10);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })) {
        scrub.runPass();
        assertThat(reported).isEmpty();
        assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
        assertThat(scrub.stats().replicasScanned()).isZero(); // skipped: checked next pass
        scrub.runPass();
        assertThat(scrub.stats().replicasScanned()).isEqualTo(1);
        assertThat(scrub.stats().bytesScanned()).isEqualTo(2L * BLOCK + BLOCK + 10);
      }
    }
  }

  @Test
  void aPassFindsTheFirstBadBlockAndOnlyIt() throws IOException {
    try (ChunkStore store = ChunkStore.open(new StoreSettings(List.of(dir), 0, 0))) {
      Replica bad = finalizedReplica(store, new ChunkKey(2712, 0));
      Replica good = finalizedReplica(store, new ChunkKey(2713, 0));
      flipByte(bad.dataFile(), 2L * BLOCK + 7);
      flipByte(bad.dataFile(), 3L * BLOCK + 7);
      List<BadReplica> reported = new ArrayList<>();
      try (Scrubber scrub = scrubber(store, reported, () -> {})) {
        scrub.runPass();
        assertThat(reported)
            .singleElement()
            .satisfies(
                b -> {
                  assertThat(b.getChunk()).isEqualTo(bad.key().toProto());
                  assertThat(b.getOffset()).isEqualTo(2L * BLOCK);
                });
        assertThat(bad.state()).isEqualTo(ReplicaState.REPLICA_STATE_CORRUPT);
        assertThat(stateOnDisk(bad)).isEqualTo(ReplicaState.REPLICA_STATE_CORRUPT);
        assertThat(good.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
        assertThat(scrub.stats()).isEqualTo(new ScrubStats(1, 1, 4L * BLOCK + 2L * BLOCK, 1));
      }
    }
  }
}
