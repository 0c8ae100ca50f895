package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.FinalizeChunkRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full data server in a write chain or as a copy's target: the write or copy that does not fit is
 * refused with NO_SPACE before any byte of it is stored, and the refusal names the full server
 * ({@code ErrorInfo.failed_server_id}) wherever it is in the chain, so the writer can have it
 * replaced as it would a dead one. The full server is one whose data directory may hold 256 KiB
 * ({@code braid.dataserver.capacity}); both servers are registered with a stand-in MDS, which
 * assigns the ids the errors name.
 */
class NoSpaceTest {
  private static final long VERSION = 5;
  private static final long GENERATION = 1;

  @TempDir static Path dir;
  static TokenMint mint = new TokenMint(TokenMint.KEY_ID, 29);
  static StandInMds mds;
  static LoopbackDataServer full;
  static LoopbackDataServer roomy;
  static DataClient client;

  @BeforeAll
  static void start() throws IOException {
    mds = StandInMds.start(mint, Duration.ofMillis(100));
    Map<String, String> noScrub = Map.of(DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0");
    full =
        LoopbackDataServer.startRegistered(
            "ds-full",
            mds,
            List.of(Files.createDirectory(dir.resolve("full"))),
            Map.of(
                DataServerConfigKeys.CAPACITY.name(), "256KiB",
                DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0"));
    roomy =
        LoopbackDataServer.startRegistered(
            "ds-roomy", mds, List.of(Files.createDirectory(dir.resolve("roomy"))), noScrub);
    client = new DataClient("test-client", new ClientId(29, 1));
    assertThat(full.server().serverId()).isNotZero().isNotEqualTo(roomy.server().serverId());
  }

  @AfterAll
  static void stop() {
    client.close();
    full.close();
    roomy.close();
    mds.close();
  }

  private static ByteString token(long file) {
    return mint.sign(mint.token(client.id(), file, GENERATION));
  }

  /** Asserts that {@code call} fails with NO_SPACE naming the full server. */
  private static void refusedByTheFullServer(ThrowingCallable call) {
    assertThatThrownBy(call)
        .satisfies(
            e -> {
              assertThat(StatusExceptions.statusOf(e)).as(e.toString()).isEqualTo(Status.NO_SPACE);
              assertThat(RemoteErrorInfo.of(e).orElseThrow().getFailedServerId())
                  .isEqualTo(full.server().serverId());
            });
  }

  @Test
  void aFullHeadRefusesAndNamesItself() {
    ChunkKey key = new ChunkKey(2901, 0);
    byte[] data = randomBytes(1, 512 << 10);
    refusedByTheFullServer(
        () ->
            client.write(
                full.address(),
                writeRequest(key, VERSION, 0, data, token(2901), List.of(roomy.location())).build(),
                data));
    // Nothing of the write is on the full server (an empty replica at most).
    assertThat(full.replica(key) == null || full.replica(key).length() == 0).isTrue();
  }

  @Test
  void aFullServerDownTheChainIsNamedByTheHead() {
    ChunkKey key = new ChunkKey(2902, 0);
    byte[] data = randomBytes(2, 512 << 10);
    refusedByTheFullServer(
        () ->
            client.write(
                roomy.address(),
                writeRequest(key, VERSION, 0, data, token(2902), List.of(full.location())).build(),
                data));
    assertThat(full.replica(key) == null || full.replica(key).length() == 0).isTrue();
  }

  @Test
  void aCopyThatDoesNotFitIsRefusedAndLeavesNothing() throws IOException {
    ChunkKey key = new ChunkKey(2903, 0);
    byte[] data = randomBytes(3, 512 << 10);
    client.write(roomy.address(), writeRequest(key, VERSION, 0, data, token(2903)).build(), data);
    client.call(
        roomy.address(),
        RpcMethod.FINALIZE_CHUNK,
        FinalizeChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(data.length)
            .setToken(token(2903))
            .build());
    for (long epoch : new long[] {StandInMds.EPOCH, 0}) { // the MDS's copy, then a writer's
      refusedByTheFullServer(
          () ->
              client.call(
                  full.address(),
                  RpcMethod.COPY_CHUNK,
                  CopyChunkRequest.newBuilder()
                      .setChunk(key.toProto())
                      .setVersion(VERSION)
                      .setLength(data.length)
                      .addSources(roomy.location())
                      .setSourceToken(token(2903))
                      .setFinalize(epoch != 0)
                      .setMdsEpoch(epoch)
                      .setToken(token(2903))
                      .build()));
      assertThat(full.replica(key)).isNull();
    }
  }
}
