package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer never replaces a replica holding the only copy of bytes it already wrote: at replication
 * 1 the death of the chunk's server mid-write fails the write (as HDFS's does when every datanode
 * of its pipeline is bad), rather than go on with a new, empty replica and lose the acknowledged
 * bytes; the file keeps what the last hflush published, readable once the server is back.
 */
class OnlyCopyWriteTest {
  private static final int CHUNK = 1 << 20;
  private static final LayoutPolicy LAYOUT = new LayoutPolicy(64 << 10, 1, CHUNK, 1);

  @TempDir Path dir;
  MiniCluster cluster;

  @BeforeEach
  void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void theDeathOfTheOnlyReplicaFailsTheWriteAndKeepsWhatWasFlushed() throws IOException {
    BraidClient client = cluster.newBraidClient("root");
    byte[] data = new byte[CHUNK];
    new Random(7).nextBytes(data);
    BraidOutputStream out = client.create("/one", CreateOptions.defaults().withLayout(LAYOUT));
    out.write(data, 0, CHUNK / 2);
    out.hflush();
    int holder =
        client
            .locations("/one", 0, 0)
            .chunkSets()
            .get(0)
            .chunks()
            .get(0)
            .replicas()
            .get(0)
            .serverId();
    int index = cluster.indexOf(holder);
    cluster.killDataServer(index);

    IOException failure =
        catchThrowableOfType(
            IOException.class,
            () -> {
              out.write(data, CHUNK / 2, CHUNK / 2);
              out.hflush();
            });
    assertThat(failure).as("the write after the only replica died").isNotNull();
    assertThat(catchThrowableOfType(IOException.class, out::close)).isNotNull();
    assertThat(client.stat("/one").size()).isEqualTo(CHUNK / 2);

    cluster.restartDataServer(index);
    try (BraidInputStream in = client.open("/one")) {
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOf(data, CHUNK / 2));
    }
  }
}
