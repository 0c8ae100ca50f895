package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.ReplicaReport;
import io.braidfs.proto.ReplicaState;
import io.braidfs.proto.TruncateChunkRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a data server tells the MDS about its replicas, seen at a stand-in MDS over real RPC: a full
 * chunk report after registration, again every report interval and when a heartbeat answer asks,
 * and in between ReplicaChanges for replicas finalized, truncated and deleted, sent again after a
 * refusal.
 */
class ChunkReportTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final long VERSION = 3;
  private static final long GENERATION = 1;

  @TempDir static Path dir;
  static StandInMds mds;
  static DataClient client;

  @BeforeAll
  static void start() throws IOException {
    mds = StandInMds.start(new TokenMint(TokenMint.KEY_ID, 26), Duration.ofMillis(50));
    client = new DataClient("test-client", new ClientId(26, 1));
  }

  @AfterAll
  static void stop() {
    client.close();
    mds.close();
  }

  private static LoopbackDataServer server(String name, Map<String, String> settings)
      throws IOException {
    Map<String, String> all = new java.util.HashMap<>(settings);
    all.put(DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0");
    return LoopbackDataServer.startRegistered(
        name, mds, List.of(Files.createDirectory(dir.resolve(name))), all);
  }

  private static ByteString token(long file) {
    return mds.mint().sign(mds.mint().token(client.id(), file, GENERATION));
  }

  /** Writes {@code n} bytes to {@code key} on {@code s} and finalizes the replica. */
  private static void writeAndFinalize(LoopbackDataServer s, ChunkKey key, int n)
      throws IOException {
    byte[] data = randomBytes((int) key.inodeId(), n);
    client.write(
        s.address(), writeRequest(key, VERSION, 0, data, token(key.inodeId())).build(), data);
    client.call(
        s.address(),
        RpcMethod.FINALIZE_CHUNK,
        FinalizeChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(n)
            .setToken(token(key.inodeId()))
            .build());
  }

  private static ReplicaReport report(ChunkKey key, long version, long length) {
    return ReplicaReport.newBuilder()
        .setId(key.toProto())
        .setVersion(version)
        .setLength(length)
        .setState(ReplicaState.REPLICA_STATE_FINALIZED)
        .setGeneration(GENERATION) // the generation of the token it was written with
        .build();
  }

  /** The complete full reports {@code s} sent (the stand-in serves several servers). */
  private static List<List<ReplicaReport>> reportsOf(LoopbackDataServer s) {
    List<List<ReplicaReport>> out = new java.util.ArrayList<>();
    List<ReplicaReport> current = new java.util.ArrayList<>();
    for (var part : mds.chunkReports) {
      if (part.getServerId() != s.server().serverId()) {
        continue;
      }
      if (part.getPartIndex() == 0) {
        current = new java.util.ArrayList<>();
      }
      current.addAll(part.getReplicasList());
      if (part.getLastPart()) {
        out.add(current);
      }
    }
    return out;
  }

  @Test
  void aFullReportFollowsRegistrationAndComesAgainEveryInterval() throws IOException {
    try (LoopbackDataServer s =
        server("ds-interval", Map.of(DataServerConfigKeys.CHUNK_REPORT_INTERVAL.name(), "200ms"))) {
      StandInMds.await("the report after registration", WAIT, () -> !reportsOf(s).isEmpty());
      assertThat(reportsOf(s).get(0)).isEmpty();

      ChunkKey key = new ChunkKey(2601, 0);
      writeAndFinalize(s, key, 100_000);
      StandInMds.await(
          "a periodic report holding the new replica",
          WAIT,
          () -> reportsOf(s).stream().anyMatch(r -> r.contains(report(key, VERSION, 100_000))));
      assertThat(reportsOf(s).size()).isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void aHeartbeatAnswerThatAsksGetsAFullReport() throws IOException {
    try (LoopbackDataServer s =
        server("ds-asked", Map.of(DataServerConfigKeys.CHUNK_REPORT_INTERVAL.name(), "1h"))) {
      StandInMds.await("the report after registration", WAIT, () -> reportsOf(s).size() == 1);
      ChunkKey key = new ChunkKey(2602, 0);
      writeAndFinalize(s, key, 5000);
      mds.askForChunkReportOnNextHeartbeat();
      StandInMds.await("the report the MDS asked for", WAIT, () -> reportsOf(s).size() == 2);
      assertThat(reportsOf(s).get(1)).containsExactly(report(key, VERSION, 5000));
    }
  }

  @Test
  void finalizedTruncatedAndDeletedReplicasAreReportedAsChanges() throws IOException {
    try (LoopbackDataServer s = server("ds-changes", Map.of())) {
      ChunkKey key = new ChunkKey(2603, 1);
      writeAndFinalize(s, key, 200_000);
      StandInMds.await(
          "the finalized replica in ReplicaChanges",
          WAIT,
          () -> mds.finalized().contains(report(key, VERSION, 200_000)));

      client.call(
          s.address(),
          RpcMethod.TRUNCATE_CHUNK,
          TruncateChunkRequest.newBuilder()
              .setChunk(key.toProto())
              .setVersion(VERSION)
              .setNewVersion(VERSION + 1)
              .setLength(70_000)
              .setToken(token(key.inodeId()))
              .build());
      StandInMds.await(
          "the truncated replica in ReplicaChanges",
          WAIT,
          () -> mds.finalized().contains(report(key, VERSION + 1, 70_000)));

      mds.deleteOnNextHeartbeat(
          ChunkState.newBuilder().setId(key.toProto()).setVersion(VERSION + 1).build());
      StandInMds.await(
          "the deleted replica in ReplicaChanges",
          WAIT,
          () -> mds.removed().contains(report(key, VERSION + 1, 70_000)));
      assertThat(s.replica(key)).isNull();
      assertThat(mds.replicaChanges).allMatch(r -> r.getServerId() != 0);
    }
  }

  @Test
  void aRefusedReplicaChangesIsSentAgain() throws IOException {
    try (LoopbackDataServer s = server("ds-retry", Map.of())) {
      mds.refuseReplicaChanges(2);
      ChunkKey key = new ChunkKey(2604, 0);
      writeAndFinalize(s, key, 1234);
      StandInMds.await(
          "the replica reported after two refusals",
          WAIT,
          () -> mds.finalized().contains(report(key, VERSION, 1234)));
      assertThat(mds.replicaChangesStillToRefuse()).isZero();
    }
  }
}
