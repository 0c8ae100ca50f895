package io.braidfs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.ChunkLocation;
import io.braidfs.client.ChunkSetLocation;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.LayoutPolicy;
import io.braidfs.client.ReplicaLocation;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.FileHealth;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.FsckResponse;
import io.braidfs.proto.ServerAdminState;
import io.braidfs.proto.SetServerStateRequest;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster heals itself (issue 26), on an in-process cluster of five data servers with short
 * heartbeat and dead intervals: a dead server's replicas are copied elsewhere, a replica a reader
 * finds corrupt is replaced and deleted, a decommissioned server is drained while reads go on, a
 * server in maintenance is not re-replicated, and writes wait out the MDS's start-up grace instead
 * of failing. The multi-host version on separate processes is fs-it's RepairIT.
 */
class RepairTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;
  MiniCluster cluster;
  BraidClient root;
  RpcClient admin;

  @BeforeEach
  void start() throws IOException {
    cluster =
        MiniCluster.builder(dir)
            .dataServers(5)
            .config("braid.mds.cluster.heartbeat-interval", "100ms")
            .config("braid.mds.cluster.dead-interval", "1s")
            .config("braid.mds.cluster.startup-grace", "3s")
            .config("braid.mds.cluster.repair-scan-interval", "2s")
            .build();
    cluster.start();
    root = cluster.newBraidClient("root");
    admin = cluster.newClient("root");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** 64 KiB units, two chunks of 256 KiB per set: 1.2 MiB gives three sets, six chunks. */
  private static LayoutPolicy layout(int replication) {
    return LayoutPolicy.inherit()
        .withStripeUnit(64 << 10)
        .withStripeWidth(2)
        .withChunkSize(256 << 10)
        .withReplication(replication);
  }

  private byte[] write(String path) throws IOException {
    byte[] data = new byte[(1200 << 10) + 123];
    new Random(path.hashCode()).nextBytes(data);
    try (BraidOutputStream out =
        root.create(path, CreateOptions.defaults().withLayout(layout(3)))) {
      out.write(data);
    }
    return data;
  }

  private byte[] read(String path) throws IOException {
    try (BraidInputStream in = root.open(path)) {
      return in.readAllBytes();
    }
  }

  private byte[] readUnchecked(String path) {
    try {
      return read(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<ChunkLocation> chunks(String path) {
    try {
      List<ChunkLocation> out = new ArrayList<>();
      for (ChunkSetLocation set : root.locations(path, 0, 0).chunkSets()) {
        out.addAll(set.chunks());
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Set<Integer> holders(ChunkLocation c) {
    Set<Integer> out = new HashSet<>();
    for (ReplicaLocation r : c.replicas()) {
      out.add(r.serverId());
    }
    return out;
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

  private void awaitHealthy(String why) {
    Await.until(
        why,
        WAIT,
        () -> {
          FsckResponse r = fsck();
          return r.getFiles() > 0 && r.getHealthyFiles() == r.getFiles() && !r.getSafeMode();
        });
  }

  /** Every holder has the chunk finalized at its version, and all hold the same bytes. */
  private void assertOnDisk(ChunkLocation c) throws IOException {
    byte[] first = null;
    for (int id : holders(c)) {
      Replica r = cluster.dataServerById(id).store().get(new ChunkKey(c.inodeId(), c.chunkIndex()));
      assertThat(r).as("chunk %s/%s on ds%s", c.inodeId(), c.chunkIndex(), id).isNotNull();
      assertThat(r.version()).isEqualTo(c.version());
      byte[] bytes = java.nio.file.Files.readAllBytes(r.dataFile());
      if (first == null) {
        first = bytes;
      } else {
        assertThat(bytes).as("replica on ds%s", id).isEqualTo(first);
      }
    }
  }

  @Test
  void aDeadServersReplicasAreCopiedElsewhere() throws Exception {
    byte[] data = write("/f");
    awaitHealthy("the new file healthy");
    int victim = chunks("/f").get(0).replicas().get(0).serverId();
    cluster.killDataServer(cluster.indexOf(victim));

    Await.until(
        "fsck sees the file under-replicated", WAIT, () -> fsck().getUnderReplicatedFiles() == 1);
    awaitHealthy("the file healthy again without ds" + victim);
    for (ChunkLocation c : chunks("/f")) {
      assertThat(holders(c)).hasSize(3).doesNotContain(victim);
      assertOnDisk(c);
    }
    assertThat(read("/f")).isEqualTo(data);
  }

  @Test
  void aReplicaAReaderFindsCorruptIsReplacedAndDeleted() throws Exception {
    byte[] data = write("/c");
    awaitHealthy("the new file healthy");
    ChunkLocation first = chunks("/c").get(0);
    int bad = first.replicas().get(0).serverId(); // readers try it first
    ChunkKey key = new ChunkKey(first.inodeId(), first.chunkIndex());
    Replica replica = cluster.dataServerById(bad).store().get(key);
    try (FileChannel ch = FileChannel.open(replica.dataFile(), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) 0x5a}), 1000);
    }
    // Short-circuit reads would verify the same CRCs; the network path is what most clients use.
    assertThat(read("/c")).isEqualTo(data);

    Await.until(
        "the corrupt replica replaced",
        WAIT,
        () -> {
          ChunkLocation c = chunks("/c").get(0);
          return c.replicas().size() == 3 && !holders(c).contains(bad);
        });
    awaitHealthy("the file healthy");
    Await.until(
        "the corrupt replica deleted from ds" + bad,
        WAIT,
        () -> cluster.dataServerById(bad).store().get(key) == null);
    assertOnDisk(chunks("/c").get(0));
    assertThat(read("/c")).isEqualTo(data);
  }

  @Test
  void aReplicaGoneFromDiskIsFoundByTheNextFullReportAndReplaced() throws Exception {
    byte[] data = write("/g");
    awaitHealthy("the new file healthy");
    ChunkLocation first = chunks("/g").get(0);
    int loser = first.replicas().get(0).serverId();
    ChunkKey key = new ChunkKey(first.inodeId(), first.chunkIndex());
    Path dataFile = cluster.dataServerById(loser).store().get(key).dataFile();
    int index = cluster.indexOf(loser);
    cluster.stopDataServer(index);
    // Behind the server's back, as a lost disk sector or an operator's rm would.
    try (var files = java.nio.file.Files.list(dataFile.getParent())) {
      for (Path f : files.toList()) {
        if (f.getFileName().toString().startsWith(key.inodeId() + "_" + key.chunkIndex() + ".")) {
          java.nio.file.Files.delete(f);
        }
      }
    }
    cluster.restartDataServer(index); // its full report at registration lacks the replica
    Await.until(
        "the lost replica replaced",
        WAIT,
        () -> {
          ChunkLocation c = chunks("/g").get(0);
          return c.replicas().size() == 3 && !holders(c).contains(loser);
        });
    awaitHealthy("the file healthy");
    assertOnDisk(chunks("/g").get(0));
    assertThat(read("/g")).isEqualTo(data);
  }

  @Test
  void aDecommissionedServerIsDrainedWhileReadsGoOn() throws Exception {
    byte[] data = write("/d");
    awaitHealthy("the new file healthy");
    int draining = chunks("/d").get(0).replicas().get(0).serverId();
    String endpoint = cluster.mds().namespace().registry().server(draining).endpoint();
    var answer =
        admin.callSync(
            cluster.mdsAddress(),
            RpcMethod.SET_SERVER_STATE,
            SetServerStateRequest.newBuilder()
                .setServer(endpoint)
                .setState(ServerAdminState.DECOMMISSIONING)
                .build());
    assertThat(answer.getServer().getServerId()).isEqualTo(draining);
    Await.until(
        "ds" + draining + " decommissioned",
        WAIT,
        () -> {
          assertThat(readUnchecked("/d")).isEqualTo(data); // reads go on throughout
          return cluster
              .mds()
              .namespace()
              .registry()
              .server(draining)
              .state()
              .name()
              .equals("DECOMMISSIONED");
        });
    for (ChunkLocation c : chunks("/d")) {
      assertThat(holders(c)).hasSize(3).doesNotContain(draining);
      assertOnDisk(c);
    }
    awaitHealthy("the file healthy");
  }

  @Test
  void aServerInMaintenanceIsNotReReplicated() throws Exception {
    write("/m");
    awaitHealthy("the new file healthy");
    List<ChunkLocation> before = chunks("/m");
    int away = before.get(0).replicas().get(0).serverId();
    admin.callSync(
        cluster.mdsAddress(),
        RpcMethod.SET_SERVER_STATE,
        SetServerStateRequest.newBuilder()
            .setServer(Integer.toUnsignedString(away))
            .setState(ServerAdminState.IN_MAINTENANCE)
            .build());
    cluster.killDataServer(cluster.indexOf(away));
    Await.until(
        "ds" + away + " dead",
        WAIT,
        () -> !cluster.mds().namespace().registry().server(away).live());
    // Nothing can show that a copy will never start; two scan intervals without one is the bound.
    Thread.sleep(4000);
    FsckResponse r = fsck();
    assertThat(r.getHealthyFiles()).isEqualTo(1);
    assertThat(r.getEntriesList()).allMatch(f -> f.getHealth() == FileHealth.HEALTHY);
    List<ChunkLocation> after = chunks("/m");
    for (int i = 0; i < after.size(); i++) {
      Set<Integer> held = holders(before.get(i));
      if (held.contains(away)) {
        // Readers get the two live replicas only; the record keeps the one away.
        held.remove(away);
      }
      assertThat(holders(after.get(i))).isEqualTo(held);
    }
  }

  @Test
  void writesWaitOutTheStartupGraceInsteadOfFailing() throws Exception {
    write("/before");
    cluster.restartMds();
    byte[] data = write("/after"); // placement answers BUSY until servers register; clients retry
    assertThat(read("/after")).isEqualTo(data);
    assertThat(read("/before")).hasSize(data.length);
  }
}
