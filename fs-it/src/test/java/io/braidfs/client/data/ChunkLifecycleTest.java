package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas come and go with their files: deleting a file deletes its replicas on every data server
 * (the MDS's deletion queue, delivered in heartbeat answers); replicas the MDS does not know are
 * removed after a restart once the grace period has passed, and the ones it knows survive; writes
 * at scattered offsets leave holes that read as zeros.
 */
class ChunkLifecycleTest {
  static final Layout LAYOUT = Layout.of(64 << 10, 2, 256 << 10, 2);

  @TempDir Path dir;
  MiniCluster cluster;
  RpcClient client;

  @BeforeEach
  void start() throws IOException {
    cluster =
        MiniCluster.builder(dir)
            .dataServers(3)
            .config("braid.dataserver.orphan-grace", "200ms")
            .build();
    cluster.start();
    client = cluster.newClient("root");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void deletingAFileDeletesItsReplicas() throws IOException {
    WriteTarget f = cluster.create(client, "/gone", LAYOUT);
    List<ChunkState> chunks = write(f, ReplicaFailureTest.random(1, 1_500_000));
    assertThat(replicaCount(chunks)).isEqualTo(chunks.size() * 2);
    client.callSync(
        cluster.mdsAddress(),
        RpcMethod.UNLINK,
        UnlinkRequest.newBuilder().setPath("/gone").build());
    Await.until(
        "every replica of /gone deleted", Duration.ofSeconds(20), () -> replicaCount(chunks) == 0);
  }

  @Test
  void unknownReplicasAreRemovedAfterARestartAndKnownOnesKept() throws IOException {
    WriteTarget f = cluster.create(client, "/kept", LAYOUT);
    List<ChunkState> chunks = write(f, ReplicaFailureTest.random(2, 600_000));
    ChunkKey orphan = new ChunkKey(1_000_000, 3);
    cluster.dataServer(0).store().create(orphan, 7, 0);
    cluster.restartDataServer(0);
    Await.until(
        "the orphan replica deleted",
        Duration.ofSeconds(20),
        () -> cluster.dataServer(0).store().get(orphan) == null);
    assertThat(replicaCount(chunks)).isEqualTo(chunks.size() * 2);
  }

  @Test
  void scatteredWritesLeaveHolesThatReadAsZeros() throws IOException {
    WriteTarget f = cluster.create(client, "/sparse", LAYOUT);
    byte[] expected = new byte[3_000_000];
    byte[] a = ReplicaFailureTest.random(3, 10_000);
    byte[] b = ReplicaFailureTest.random(4, 70_000);
    try (StripedWriter w = cluster.writer(client, f)) {
      // Out of order and overlapping, like FUSE random writes.
      put(w, expected, 2_900_000, a);
      put(w, expected, 100, b);
      put(w, expected, 65_000, a);
      put(w, expected, 1_000_000, b);
      w.complete();
    }
    assertThat(
            Arrays.equals(
                DataPathTest.readAll(cluster.reader(client, f), 2_910_000),
                Arrays.copyOf(expected, 2_910_000)))
        .isTrue();
  }

  private static void put(StripedWriter w, byte[] model, int at, byte[] data) throws IOException {
    System.arraycopy(data, 0, model, at, data.length);
    io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(data);
    try {
      w.write(at, buf);
    } finally {
      buf.release();
    }
  }

  private List<ChunkState> write(WriteTarget f, byte[] data) throws IOException {
    try (StripedWriter w = cluster.writer(client, f)) {
      ReplicaFailureTest.write(w, data, 0, data.length);
      w.complete();
      return w.chunkStates();
    }
  }

  private int replicaCount(List<ChunkState> chunks) {
    int n = 0;
    for (DataServer ds : cluster.runningDataServers()) {
      for (ChunkState c : chunks) {
        if (ds.store().get(ChunkKey.of(c.getId())) != null) {
          n++;
        }
      }
    }
    return n;
  }
}
