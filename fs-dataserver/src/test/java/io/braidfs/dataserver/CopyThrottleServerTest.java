package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.CopyChunkResponse;
import io.braidfs.proto.FinalizeChunkRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copy throttling on a real server: with one re-replication copy allowed at once and 2 MiB/s, a
 * second re-replication copy waits for the first and then succeeds (it is not refused), while a
 * writer's seeding copy (a token, no MDS epoch) goes ahead at once: the writer waits on it. The
 * first copy is 6 MiB, two pieces, the second of which the bandwidth holds back for 2 s; that is
 * how the test knows the seeding copy did not wait for the slot.
 */
class CopyThrottleServerTest {
  private static final long VERSION = 7;
  private static final long GENERATION = 1;

  @TempDir Path dir;

  @Test
  void reReplicationWaitsItsTurnWhileAWritersCopyGoesAhead() throws Exception {
    TokenMint mint = new TokenMint(TokenMint.KEY_ID, 30);
    ExecutorService callers = Executors.newFixedThreadPool(3);
    try (StandInMds mds = StandInMds.start(mint, Duration.ofMillis(100));
        DataClient client = new DataClient("test-client", new ClientId(30, 1));
        LoopbackDataServer source =
            LoopbackDataServer.startRegistered(
                "ds-source",
                mds,
                List.of(Files.createDirectory(dir.resolve("s"))),
                Map.of(DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0"));
        LoopbackDataServer target =
            LoopbackDataServer.startRegistered(
                "ds-target",
                mds,
                List.of(Files.createDirectory(dir.resolve("t"))),
                Map.of(
                    DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0",
                    DataServerConfigKeys.COPY_MAX_CONCURRENT.name(), "1",
                    DataServerConfigKeys.COPY_BANDWIDTH.name(), "2MiB"))) {
      ChunkKey big = new ChunkKey(3001, 0);
      ChunkKey queued = new ChunkKey(3002, 0);
      ChunkKey seeded = new ChunkKey(3003, 0);
      int bigLength = 6 << 20;
      for (ChunkKey key : List.of(big, queued, seeded)) {
        int length = key == big ? bigLength : 100_000;
        ByteString t = mint.sign(mint.token(client.id(), key.inodeId(), GENERATION));
        for (int off = 0; off < length; off += 1 << 20) {
          byte[] piece = randomBytes(off, Math.min(1 << 20, length - off));
          client.write(source.address(), writeRequest(key, VERSION, off, piece, t).build(), piece);
        }
        client.call(
            source.address(),
            RpcMethod.FINALIZE_CHUNK,
            FinalizeChunkRequest.newBuilder()
                .setChunk(key.toProto())
                .setVersion(VERSION)
                .setLength(length)
                .setToken(t)
                .build());
      }

      CompletableFuture<CopyChunkResponse> first =
          copy(callers, client, target, mint, big, bigLength, source, StandInMds.EPOCH);
      StandInMds.await(
          "the first copy to take the only slot",
          Duration.ofSeconds(30),
          () -> target.replica(big) != null);
      CompletableFuture<CopyChunkResponse> second =
          copy(callers, client, target, mint, queued, 100_000, source, StandInMds.EPOCH);
      CopyChunkResponse seeding =
          copy(callers, client, target, mint, seeded, 100_000, source, 0).get(30, TimeUnit.SECONDS);
      assertThat(seeding.getLength()).isEqualTo(100_000);
      assertThat(first).as("the re-replication copy still running").isNotDone();
      assertThat(second).as("the second re-replication copy, waiting").isNotDone();

      assertThat(first.get(60, TimeUnit.SECONDS).getLength()).isEqualTo(bigLength);
      assertThat(second.get(60, TimeUnit.SECONDS).getLength()).isEqualTo(100_000);
      assertThat(Files.readAllBytes(target.replica(big).dataFile()))
          .isEqualTo(Files.readAllBytes(source.replica(big).dataFile()));
    } finally {
      callers.shutdownNow();
    }
  }

  /** CopyChunk of {@code key} to {@code target}, from the MDS if {@code epoch} is set. */
  private static CompletableFuture<CopyChunkResponse> copy(
      ExecutorService callers,
      DataClient client,
      LoopbackDataServer target,
      TokenMint mint,
      ChunkKey key,
      long length,
      LoopbackDataServer source,
      long epoch) {
    ByteString t = mint.sign(mint.token(client.id(), key.inodeId(), GENERATION));
    CopyChunkRequest req =
        CopyChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(length)
            .addSources(source.location())
            .setSourceToken(t)
            .setFinalize(epoch != 0)
            .setMdsEpoch(epoch)
            .setToken(t)
            .build();
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return client.call(target.address(), RpcMethod.COPY_CHUNK, req);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        callers);
  }
}
