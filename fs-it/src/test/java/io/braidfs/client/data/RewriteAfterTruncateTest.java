package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.OpenResponse;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writing a file again after a truncate never brings back the bytes the truncate removed: not in a
 * chunk the truncate cut (the writer cuts its replicas to the committed length first), and not in a
 * chunk it released and the MDS allocated again under a newer version while the old replica still
 * awaits deletion. Heartbeats are ten minutes apart here, so no deletion reaches the data servers
 * during the test.
 */
class RewriteAfterTruncateTest {
  static final Layout LAYOUT = Layout.of(64 << 10, 2, 256 << 10, 2);

  @TempDir Path dir;
  MiniCluster cluster;
  RpcClient client;

  @BeforeEach
  void start() throws IOException {
    cluster =
        MiniCluster.builder(dir)
            .dataServers(3)
            .config("braid.mds.cluster.heartbeat-interval", "10m")
            .config("braid.mds.cluster.dead-interval", "1h")
            .build();
    cluster.start();
    client = cluster.newClient("root");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void truncatedBytesStayGoneWhenTheFileIsWrittenAgain() throws IOException {
    WriteTarget f = cluster.create(client, "/t", LAYOUT);
    byte[] old = ReplicaFailureTest.random(5, 600_000);
    try (StripedWriter w = cluster.writer(client, f)) {
      ReplicaFailureTest.write(w, old, 0, old.length);
      w.complete();
    }
    client.callSync(
        cluster.mdsAddress(),
        RpcMethod.SET_ATTR,
        SetAttrRequest.newBuilder().setPath("/t").setSize(100).build());

    OpenResponse open =
        client.callSync(
            cluster.mdsAddress(),
            RpcMethod.OPEN,
            OpenRequest.newBuilder().setPath("/t").setWrite(true).setMaxChunkSets(4).build());
    WriteTarget again =
        new WriteTarget(
            open.getAttributes().getInodeId(),
            "/t",
            LAYOUT,
            open.getAttributes().getSize(),
            open.getToken(),
            open.getChunkSetsList());
    byte[] expected = new byte[200_010];
    System.arraycopy(old, 0, expected, 0, 100);
    byte[] fresh = ReplicaFailureTest.random(6, 10);
    try (StripedWriter w = cluster.writer(client, again)) {
      // Chunk 0 was cut to 100 bytes; chunk 1 was released and is allocated anew.
      put(w, expected, 150_000, fresh);
      put(w, expected, 200_000, fresh);
      w.complete();
    }
    byte[] read = DataPathTest.readAll(cluster.reader(client, again), expected.length);
    assertThat(Arrays.mismatch(read, expected)).as("first differing byte").isEqualTo(-1);
  }

  private static void put(StripedWriter w, byte[] model, int at, byte[] data) throws IOException {
    System.arraycopy(data, 0, model, at, data.length);
    ReplicaFailureTest.write(w, model, at, at + data.length);
  }
}
