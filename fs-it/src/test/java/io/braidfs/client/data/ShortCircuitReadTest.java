package io.braidfs.client.data;

import static io.braidfs.client.data.ReplicaFailureTest.flipByte;
import static io.braidfs.client.data.ReplicaFailureTest.random;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.client.BraidClient;
import io.braidfs.client.DataPathOptions;
import io.braidfs.client.internal.data.LocalReplicas;
import io.braidfs.client.internal.data.ReplicaHealth;
import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.OpenLocalReplicaRequest;
import io.braidfs.proto.OpenLocalReplicaResponse;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short-circuit reads on a real MiniCluster, whose data servers all run on this host: finalized
 * replicas are read from their files, and everything that makes a local read impossible or wrong (a
 * replica being written, a corrupt byte, bytes changed after the window was opened, a missing file,
 * bad requests) sends the read over the network with the right result. {@code DataPathTest} reads
 * every file of its size matrix back both ways.
 */
class ShortCircuitReadTest {
  static final Layout LAYOUT = Layout.of(64 << 10, 1, 1 << 20, 2);

  @TempDir Path dir;
  MiniCluster cluster;
  RpcClient client;
  ReplicaFailureTest.Recording mds;
  LocalReplicas local;

  @BeforeEach
  void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
    client = cluster.newClient("root");
    mds = new ReplicaFailureTest.Recording(cluster.chunkService(client));
    local = LocalReplicas.enabled(client, Duration.ofSeconds(10));
  }

  @AfterEach
  void stop() {
    local.close();
    cluster.close();
  }

  @Test
  void aFinalizedFileIsReadFromTheReplicaFiles() throws IOException {
    WriteTarget f = cluster.create(client, "/local", LAYOUT);
    byte[] data = random(1, 3 * (1 << 20) + 17); // four chunks
    complete(f, data);

    assertThat(DataPathTest.readAll(reader(f, local), data.length)).isEqualTo(data);
    assertThat(local.localBytes()).isEqualTo(data.length);
    assertThat(local.fallbacks()).isZero();
    long reads = local.localReads();

    // Windows stay open: a second pass asks no data server again, and still reads locally.
    assertThat(DataPathTest.readAll(reader(f, local), data.length)).isEqualTo(data);
    assertThat(local.localReads()).isEqualTo(2 * reads);

    // A range off the 64 KiB blocks, into a buffer with no single NIO view: read whole blocks
    // aside, verified, and copied.
    ByteBuf dst = Unpooled.wrappedBuffer(new byte[600], new byte[400]).clear();
    try {
      assertThat(reader(f, local).read(70_001, dst, 1000)).isEqualTo(1000);
      byte[] got = new byte[1000];
      dst.getBytes(0, got);
      assertThat(got).isEqualTo(Arrays.copyOfRange(data, 70_001, 71_001));
    } finally {
      dst.release();
    }
    assertThat(local.fallbacks()).isZero();
    assertThat(local.localReads()).isEqualTo(2 * reads + 1);
  }

  @Test
  void theClientSettingTurnsShortCircuitReadsOnAndOff() throws IOException {
    byte[] data = random(2, 200_000);
    try (BraidClient on = cluster.newBraidClient("root");
        BraidClient off =
            cluster.newBraidClient(
                "root", java.util.Map.of("braid.client.read.short-circuit", "false"))) {
      try (OutputStream out = on.create("/setting")) {
        out.write(data);
      }
      assertThat(readAll(on, "/setting")).isEqualTo(data);
      assertThat(readAll(off, "/setting")).isEqualTo(data);
      assertThat(on.shortCircuitStats().localBytes()).isEqualTo(data.length);
      assertThat(off.shortCircuitStats().enabled()).isFalse();
      assertThat(off.shortCircuitStats().localReads()).isZero();
    }
  }

  @Test
  void aReplicaBeingWrittenIsReadOverTheNetwork() throws IOException {
    WriteTarget f = cluster.create(client, "/open", LAYOUT);
    byte[] data = random(3, 300_000);
    try (StripedWriter w = new StripedWriter(client, mds, DataPathOptions.defaults(), f)) {
      ReplicaFailureTest.write(w, data, 0, data.length);
      w.flush(); // every replica has the bytes, none is finalized
      assertThat(DataPathTest.readAll(reader(f, local), data.length)).isEqualTo(data);
      assertThat(local.localReads()).isZero();
      assertThat(local.fallbacks()).isPositive();
      w.complete();
    }
    // Refusals are remembered for a moment; a reader arriving after the close reads locally.
    try (LocalReplicas later = LocalReplicas.enabled(client, Duration.ofSeconds(10))) {
      assertThat(DataPathTest.readAll(reader(f, later), data.length)).isEqualTo(data);
      assertThat(later.localBytes()).isEqualTo(data.length);
    }
  }

  @Test
  void aCorruptByteIsReadFromAnotherReplicaAndReportedOnce() throws IOException {
    WriteTarget f = cluster.create(client, "/corrupt", LAYOUT);
    byte[] data = random(4, 700_000);
    complete(f, data);
    ChunkLocation chunk = locations(f).getChunkSets(0).getChunks(0);
    int bad = chunk.getReplicas(0).getServerId();
    flipByte(replica(chunk, bad).dataFile(), 200_000);

    assertThat(DataPathTest.readAll(reader(f, local), data.length)).isEqualTo(data);
    // The local read saw the mismatch and left the replica to the network read, which reported it.
    assertThat(local.fallbacks()).isPositive();
    assertThat(mds.reports)
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.getServerId()).isEqualTo(bad);
              assertThat(b.getOffset()).isEqualTo(3 * 65536);
              assertThat(b.getReason()).contains("CRC32C mismatch");
            });
  }

  @Test
  void aCorruptByteFoundThroughAnOpenWindowIsReportedOnce() throws IOException {
    WriteTarget f = cluster.create(client, "/changed", LAYOUT);
    byte[] data = random(5, 500_000);
    complete(f, data);
    StripedReader r = reader(f, local);
    assertThat(DataPathTest.readAll(r, data.length)).isEqualTo(data); // windows now open
    ChunkLocation chunk = locations(f).getChunkSets(0).getChunks(0);
    int first = chunk.getReplicas(0).getServerId();
    flipByte(replica(chunk, first).dataFile(), 100_000);

    long fallbacks = local.fallbacks();
    assertThat(DataPathTest.readAll(r, data.length)).isEqualTo(data);
    assertThat(local.fallbacks()).isGreaterThan(fallbacks);
    assertThat(mds.reports).extracting(BadReplica::getServerId).containsExactly(first);
  }

  @Test
  void aWindowMadeStaleByARewriteIsNeverBelievedNorReported() throws IOException {
    WriteTarget f = cluster.create(client, "/rewritten", LAYOUT);
    byte[] data = random(10, 300_000);
    complete(f, data);
    StripedReader r = reader(f, local);
    assertThat(DataPathTest.readAll(r, data.length)).isEqualTo(data); // windows now open
    // Rewrite a block on every replica through the store, as a reopening write does: bytes and
    // stored CRCs change together, so the replicas are good but every open window is stale.
    byte[] fresh = random(11, 65536);
    ChunkLocation chunk = locations(f).getChunkSets(0).getChunks(0);
    for (var loc : chunk.getReplicasList()) {
      ByteBuf b = Unpooled.wrappedBuffer(fresh);
      try {
        replica(chunk, loc.getServerId()).write(65536, b, Checksums.pieceCrcs(b, 65536));
      } finally {
        b.release();
      }
    }
    System.arraycopy(fresh, 0, data, 65536, fresh.length);

    long fallbacks = local.fallbacks();
    assertThat(DataPathTest.readAll(r, data.length)).isEqualTo(data);
    assertThat(local.fallbacks()).isGreaterThan(fallbacks);
    assertThat(mds.reports).isEmpty();
  }

  @Test
  void aFileThatCannotBeOpenedSendsTheServerToTheNetworkPath() throws IOException {
    WriteTarget f = cluster.create(client, "/missing", LAYOUT);
    byte[] data = random(6, 150_000);
    complete(f, data);
    ChunkLocation chunk = locations(f).getChunkSets(0).getChunks(0);
    int gone = chunk.getReplicas(0).getServerId();
    Files.delete(replica(chunk, gone).dataFile());

    assertThat(DataPathTest.readAll(reader(f, local), data.length)).isEqualTo(data);
    assertThat(local.fallbacks()).isPositive();
  }

  @Test
  void aStoppedServersReplicasAreNotReadFromTheirFiles() throws IOException {
    WriteTarget f = cluster.create(client, "/stopped", Layout.of(64 << 10, 1, 1 << 20, 1));
    byte[] data = random(8, 100_000);
    complete(f, data);
    StripedReader r = reader(f, local);
    assertThat(DataPathTest.readAll(r, data.length)).isEqualTo(data); // the window is open
    int holder = locations(f).getChunkSets(0).getChunks(0).getReplicas(0).getServerId();
    cluster.stopDataServer(cluster.indexOf(holder));

    // Until the client's event loop sees the connection close, the window may still serve.
    ByteBuf dst = Unpooled.buffer(data.length);
    try {
      IOException failure = null;
      for (long deadline = System.nanoTime() + 10_000_000_000L;
          failure == null && System.nanoTime() < deadline; ) {
        dst.clear();
        try {
          r.read(0, dst, data.length);
          Thread.sleep(20);
        } catch (IOException e) {
          failure = e;
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      }
      assertThat(failure).as("a read of the stopped server's only replica").isNotNull();
      assertThat(failure).hasMessageContaining("failed on all 1 replicas");
    } finally {
      dst.release();
    }
  }

  @Test
  void aFileAppendedToAfterAReadIsReadWhole() throws IOException {
    try (BraidClient braid = cluster.newBraidClient("root")) {
      byte[] first = random(9, 100_000);
      try (OutputStream out = braid.create("/appended")) {
        out.write(first);
      }
      assertThat(readAll(braid, "/appended")).isEqualTo(first);
      long reads = braid.shortCircuitStats().localReads();
      assertThat(reads).isPositive();
      try (OutputStream out = braid.append("/appended")) {
        out.write(new byte[] {7, 8, 9});
      }
      byte[] all = readAll(braid, "/appended");
      assertThat(all).hasSize(first.length + 3);
      assertThat(Arrays.copyOf(all, first.length)).isEqualTo(first);
      assertThat(Arrays.copyOfRange(all, first.length, all.length)).containsExactly(7, 8, 9);
      assertThat(braid.shortCircuitStats().localReads()).isGreaterThan(reads);
    }
  }

  private static byte[] readAll(BraidClient braid, String path) throws IOException {
    try (InputStream in = braid.open(path)) {
      return in.readAllBytes();
    }
  }

  @Test
  void badAsksAreRefusedWithAPreciseStatus() throws IOException {
    WriteTarget f = cluster.create(client, "/asks", LAYOUT);
    byte[] data = random(7, 100_000);
    complete(f, data);
    ChunkLocation chunk = locations(f).getChunkSets(0).getChunks(0);
    OpenLocalReplicaRequest good =
        OpenLocalReplicaRequest.newBuilder()
            .setChunk(chunk.getId())
            .setVersion(chunk.getVersion())
            .setOffset(0)
            .setLength(LocalReplicas.WINDOW)
            .setToken(locations(f).getToken())
            .build();
    OpenLocalReplicaResponse r =
        client.callSync(addressOf(chunk), RpcMethod.OPEN_LOCAL_REPLICA, good);
    assertThat(Path.of(r.getDataPath()))
        .isEqualTo(replica(chunk, chunk.getReplicas(0).getServerId()).dataFile().toAbsolutePath());
    assertThat(r.getChunkLength()).isEqualTo(data.length);
    assertThat(r.getChecksumsCount()).isEqualTo(2); // 100,000 bytes: one whole block and a part

    byte[] tampered = good.getToken().toByteArray();
    tampered[40] ^= 1;
    assertRefused(
        good.toBuilder().setToken(ByteString.copyFrom(tampered)).build(),
        chunk,
        Status.INVALID_TOKEN);
    assertRefused(
        good.toBuilder().setVersion(chunk.getVersion() + 1).build(), chunk, Status.STALE_VERSION);
    assertRefused(good.toBuilder().setOffset(4096).build(), chunk, Status.INVALID_ARGUMENT);
    assertRefused(good.toBuilder().setLength(0).build(), chunk, Status.INVALID_ARGUMENT);
    assertRefused(good.toBuilder().setLength(1000).build(), chunk, Status.INVALID_ARGUMENT);
    assertRefused(good.toBuilder().setLength(512 << 20).build(), chunk, Status.INVALID_ARGUMENT);
    assertRefused(good.toBuilder().setOffset(1 << 20).build(), chunk, Status.OUT_OF_RANGE);
  }

  private void assertRefused(OpenLocalReplicaRequest ask, ChunkLocation chunk, Status status) {
    assertThatThrownBy(() -> client.callSync(addressOf(chunk), RpcMethod.OPEN_LOCAL_REPLICA, ask))
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(status))
        .hasMessageContaining("chunk ");
  }

  private java.net.InetSocketAddress addressOf(ChunkLocation chunk) {
    return cluster.dataServerById(chunk.getReplicas(0).getServerId()).address();
  }

  private Replica replica(ChunkLocation chunk, int serverId) {
    return cluster.dataServerById(serverId).store().get(ChunkKey.of(chunk.getId()));
  }

  private io.braidfs.proto.GetChunkLocationsResponse locations(WriteTarget f) throws IOException {
    return mds.locations(
        GetChunkLocationsRequest.newBuilder().setInodeId(f.inodeId()).setPath(f.path()).build());
  }

  private StripedReader reader(WriteTarget f, LocalReplicas l) {
    return new StripedReader(
        client,
        mds,
        new ReplicaHealth(),
        DataPathOptions.defaults(),
        l,
        f.inodeId(),
        f.path(),
        f.layout());
  }

  private void complete(WriteTarget f, byte[] data) throws IOException {
    try (StripedWriter w = new StripedWriter(client, mds, DataPathOptions.defaults(), f)) {
      ReplicaFailureTest.write(w, data, 0, data.length);
      w.complete();
    }
  }
}
