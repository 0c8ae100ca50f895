package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.assertFails;
import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.TruncateChunkRequest;
import io.braidfs.proto.TruncateChunkResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader fencing at a real data server over real RPC: once it has seen (and persisted) epoch
 * {@value #NEW}, every MDS command of an older epoch is refused with NOT_LEADER and changes nothing
 * (heartbeat deletions, registration answers, CopyChunk, TruncateChunk), while the current leader's
 * commands work and a newer epoch is persisted. A writer's own commands carry epoch 0 and are
 * fenced by their token's epoch instead.
 */
class EpochFenceTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final long VERSION = 4;
  private static final long GENERATION = 1;
  private static final long OLD = 3;
  private static final long NEW = 5;

  @TempDir Path dir;
  StandInMds mds;
  LoopbackDataServer ds;
  DataClient client;

  @BeforeEach
  void start() throws IOException {
    mds = StandInMds.start(new TokenMint(TokenMint.KEY_ID, 27), Duration.ofMillis(20));
    client = new DataClient("test-mds", new ClientId(27, 1));
    ds =
        LoopbackDataServer.startRegistered(
            "ds-fenced",
            mds,
            List.of(Files.createDirectory(dir.resolve("d"))),
            Map.of(DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0"));
  }

  @AfterEach
  void stop() {
    ds.close();
    client.close();
    mds.close();
  }

  /**
   * A read-write token for the test's client on every chunk of {@code file}, issued at {@code e}.
   */
  private ByteString token(long file, long e) {
    return mds.mint().sign(mds.mint().token(client.id(), file, GENERATION).mdsEpoch(e));
  }

  /** A finalized replica of {@code key} on {@code s}, written under tokens of {@code e}. */
  private byte[] replica(LoopbackDataServer s, ChunkKey key, int n, long e) throws IOException {
    byte[] data = randomBytes((int) key.inodeId(), n);
    ByteString t = token(key.inodeId(), e);
    client.write(s.address(), writeRequest(key, VERSION, 0, data, t).build(), data);
    client.call(
        s.address(),
        RpcMethod.FINALIZE_CHUNK,
        FinalizeChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(n)
            .setToken(t)
            .build());
    return data;
  }

  /** The stand-in becomes a new leader of epoch {@value #NEW}, and the data server has seen it. */
  private void newLeader() {
    mds.setEpoch(NEW);
    StandInMds.await("epoch " + NEW + " persisted", WAIT, () -> ds.store().maxEpochSeen() == NEW);
  }

  private static ChunkState state(ChunkKey key, long version) {
    return ChunkState.newBuilder().setId(key.toProto()).setVersion(version).build();
  }

  @Test
  void aDeposedLeadersDeletionLeavesTheReplicaAndTheCurrentLeadersRemovesIt() throws IOException {
    ChunkKey key = new ChunkKey(700, 0);
    replica(ds, key, 10_000, StandInMds.EPOCH);
    newLeader();

    mds.setEpoch(OLD);
    int registrations = mds.registrations.size();
    mds.deleteOnNextHeartbeat(state(key, VERSION));
    StandInMds.await("the deletion sent", WAIT, mds::deletionsSent);
    // The stale heartbeat answer sent the server to register again, and the stale registration
    // answer sent it round once more: neither was taken.
    StandInMds.await(
        "two registrations refused", WAIT, () -> mds.registrations.size() >= registrations + 2);
    assertThat(ds.replica(key)).isNotNull();
    assertThat(ds.store().maxEpochSeen()).isEqualTo(NEW);

    mds.setEpoch(NEW);
    mds.deleteOnNextHeartbeat(state(key, VERSION));
    StandInMds.await("the replica deleted", WAIT, () -> ds.replica(key) == null);
  }

  @Test
  void aDeposedLeadersCopyIsRefusedAndLeavesNothing() throws IOException {
    ChunkKey key = new ChunkKey(701, 1);
    try (LoopbackDataServer source =
        LoopbackDataServer.start(
            "ds-source", 99, Files.createDirectory(dir.resolve("s")), mds.mint())) {
      byte[] data = replica(source, key, 300_000, StandInMds.EPOCH);
      newLeader();

      // The deposed leader's copy, with its own (old) tokens or with current ones: refused by
      // epoch, before any byte is fetched.
      for (long tokens : new long[] {OLD, NEW}) {
        CopyChunkRequest stale = copy(key, data.length, source, OLD, tokens);
        assertFails(Status.NOT_LEADER, () -> client.call(ds.address(), RpcMethod.COPY_CHUNK, stale))
            .withMessageContaining("epoch " + OLD)
            .withMessageContaining("epoch " + NEW);
        assertThat(ds.replica(key)).isNull();
      }

      client.call(ds.address(), RpcMethod.COPY_CHUNK, copy(key, data.length, source, NEW, NEW));
      Replica r = ds.replica(key);
      assertThat(r).isNotNull();
      assertThat(Files.readAllBytes(r.dataFile())).isEqualTo(data);

      // A copy naming a far newer epoch is let through (its token is the proof), but does not
      // raise the saved epoch: a forged one would otherwise fence out every real leader.
      ChunkKey other = new ChunkKey(701, 2);
      byte[] more = replica(source, other, 1000, StandInMds.EPOCH);
      client.call(
          ds.address(), RpcMethod.COPY_CHUNK, copy(other, more.length, source, Long.MAX_VALUE, 7));
      assertThat(ds.store().maxEpochSeen()).isEqualTo(NEW);
    }
  }

  private CopyChunkRequest copy(
      ChunkKey key, long length, LoopbackDataServer from, long mdsEpoch, long tokens) {
    return CopyChunkRequest.newBuilder()
        .setChunk(key.toProto())
        .setVersion(VERSION)
        .setLength(length)
        .addSources(from.location())
        .setSourceToken(
            mds.mint()
                .sign(
                    mds.mint()
                        .token(client.id(), key.inodeId(), GENERATION)
                        .mdsEpoch(tokens)
                        .modes(CapabilityToken.READ)))
        .setFinalize(true)
        .setMdsEpoch(mdsEpoch)
        .setToken(token(key.inodeId(), tokens))
        .build();
  }

  @Test
  void aDeposedLeadersTruncateIsRefusedAndAWritersIsFencedByItsToken() throws IOException {
    ChunkKey key = new ChunkKey(702, 0);
    replica(ds, key, 50_000, StandInMds.EPOCH);
    newLeader();

    TruncateChunkRequest.Builder cut =
        TruncateChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setNewVersion(VERSION + 1)
            .setLength(20_000);
    // From the deposed leader (its epoch named): refused whatever the token.
    TruncateChunkRequest stale = cut.clone().setMdsEpoch(OLD).setToken(token(702, NEW)).build();
    assertFails(Status.NOT_LEADER, () -> client.call(ds.address(), RpcMethod.TRUNCATE_CHUNK, stale))
        .withMessageContaining("epoch " + OLD);
    // From a writer (epoch 0) holding a token of the deposed leader: the token is refused.
    TruncateChunkRequest oldToken = cut.clone().setToken(token(702, OLD)).build();
    assertFails(
        Status.INVALID_TOKEN, () -> client.call(ds.address(), RpcMethod.TRUNCATE_CHUNK, oldToken));
    Replica r = ds.replica(key);
    assertThat(r).isNotNull();
    assertThat(r.version()).isEqualTo(VERSION);
    assertThat(r.length()).isEqualTo(50_000);

    // A writer with the current leader's token, and the current leader itself, are obeyed.
    TruncateChunkResponse done =
        client.call(
            ds.address(), RpcMethod.TRUNCATE_CHUNK, cut.clone().setToken(token(702, NEW)).build());
    assertThat(done.getLength()).isEqualTo(20_000);
    TruncateChunkResponse again =
        client.call(
            ds.address(),
            RpcMethod.TRUNCATE_CHUNK,
            cut.clone()
                .setVersion(VERSION + 1)
                .setNewVersion(VERSION + 2)
                .setLength(10_000)
                .setMdsEpoch(NEW)
                .setToken(token(702, NEW))
                .build());
    assertThat(again.getVersion()).isEqualTo(VERSION + 2);
    assertThat(again.getLength()).isEqualTo(10_000);
  }
}
