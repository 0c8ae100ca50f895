package io.braidfs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.FsckResponse;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small file uses one chunk of the chunk set its create allocates (four by default); the others
 * have records naming holders but no replica anywhere. Full chunk reports must not count those as
 * missing (they did, once a report came later than the records' settle window: every small file
 * then showed MISSING in fsck), and a dead server must not leave them waiting for copies that have
 * no source.
 */
class UnwrittenChunksTest {
  @TempDir Path dir;
  MiniCluster cluster;
  BraidClient root;
  RpcClient admin;

  @BeforeEach
  void start() throws IOException {
    cluster =
        MiniCluster.builder(dir)
            .dataServers(4)
            .config("braid.mds.cluster.heartbeat-interval", "100ms")
            .config("braid.mds.cluster.dead-interval", "1s")
            .config("braid.mds.cluster.startup-grace", "1s")
            .config("braid.mds.cluster.repair-scan-interval", "1s")
            .config("braid.dataserver.chunk-report-interval", "1s")
            .build();
    cluster.start();
    root = cluster.newBraidClient("root");
    admin = cluster.newClient("root");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private FsckResponse fsck() {
    try {
      return admin.callSync(
          cluster.mdsAddress(),
          RpcMethod.FSCK,
          FsckRequest.newBuilder().setPath("/").setVerbose(true).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private boolean healthy() {
    FsckResponse r = fsck();
    return r.getFiles() == 1
        && r.getHealthyFiles() == 1
        && r.getMissingFiles() == 0
        && !r.getSafeMode();
  }

  /**
   * Writes ten bytes to /small (one chunk of its set of four) and waits until fsck says healthy.
   */
  private byte[] writeSmallFile() throws IOException {
    byte[] data = "ten bytes!".getBytes(StandardCharsets.US_ASCII);
    try (BraidOutputStream out = root.create("/small")) {
      out.write(data);
    }
    Await.until("the small file healthy", Duration.ofSeconds(30), this::healthy);
    return data;
  }

  @Test
  void aServerHoldingOnlyUnwrittenChunksIsDecommissioned() throws Exception {
    // Striped over all four servers, one chunk written: some server holds an unwritten chunk of
    // the file and nothing else of it; draining it must finish, as nothing needs copying.
    byte[] data = writeSmallFile();
    var set = root.locations("/small", 0, 0).chunkSets().get(0);
    java.util.Set<Integer> written = new java.util.HashSet<>();
    set.chunks().get(0).replicas().forEach(r -> written.add(r.serverId()));
    int draining = -1;
    for (var chunk : set.chunks()) {
      for (var r : chunk.replicas()) {
        if (!written.contains(r.serverId())) {
          draining = r.serverId();
        }
      }
    }
    assertThat(draining).as("a server holding only unwritten chunks").isPositive();
    int id = draining;
    String endpoint = cluster.mds().namespace().registry().server(id).endpoint();
    admin.callSync(
        cluster.mdsAddress(),
        RpcMethod.SET_SERVER_STATE,
        io.braidfs.proto.SetServerStateRequest.newBuilder()
            .setServer(endpoint)
            .setState(io.braidfs.proto.ServerAdminState.DECOMMISSIONING)
            .build());
    Await.until(
        "ds" + id + " decommissioned",
        Duration.ofSeconds(60),
        () ->
            cluster
                .mds()
                .namespace()
                .registry()
                .server(id)
                .state()
                .name()
                .equals("DECOMMISSIONED"));
    assertThat(healthy()).isTrue();
    try (BraidInputStream in = root.open("/small")) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void aSmallFilesUnwrittenChunksAreNeitherMissingNorRepaired() throws Exception {
    byte[] data = writeSmallFile();
    // Several periodic full reports (one a second) arrive well after the records settled (at
    // most 1 s): the file must stay healthy through all of them. An absence, so watched over a
    // window rather than awaited.
    long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
    while (System.nanoTime() < until) {
      assertThat(fsck())
          .as("fsck while full reports come in")
          .satisfies(
              r -> {
                assertThat(r.getMissingFiles()).isZero();
                assertThat(r.getHealthyFiles()).isEqualTo(1);
              });
      Thread.sleep(200);
    }

    // A holder dies: the written chunk is copied, and the file is healthy again; the unwritten
    // chunks, with no replica to copy from, hold nothing up.
    int victim =
        root.locations("/small", 0, 0)
            .chunkSets()
            .get(0)
            .chunks()
            .get(0)
            .replicas()
            .get(0)
            .serverId();
    cluster.killDataServer(cluster.indexOf(victim));
    Await.until(
        "the small file healthy again without ds" + victim, Duration.ofSeconds(60), this::healthy);
    try (BraidInputStream in = root.open("/small")) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }
}
