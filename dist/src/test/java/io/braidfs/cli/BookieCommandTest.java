package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.Await;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid bookie} for real, against a real ZooKeeper ({@code braid zk}): the serving line, its
 * registration among BookKeeper's available bookies under the cluster's root, a clean stop, and the
 * failures: no ZooKeeper (exit 1 after the connect timeout, naming it) and a missing directory or
 * ensemble (exit 2).
 */
class BookieCommandTest {
  private static final Pattern SERVING =
      Pattern.compile("braid bookie: serving (.+):(\\d+) \\(data (.+)\\)");

  @TempDir Path tmp;

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The bookies registered as available under the cluster's root; none while it is absent. */
  private static List<String> available(ZooKeeper client) {
    String path = "/braid/bookkeeper/ledgers/available";
    try {
      return client.exists(path, false) == null ? List.of() : client.getChildren(path, false);
    } catch (KeeperException e) {
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted reading " + path, e);
    }
  }

  @Test
  void servesRegistersWithTheClustersZooKeeperAndStopsWithZero() throws Exception {
    try (InProcessBraid zk =
        new InProcessBraid(
            "zk", "--address", "127.0.0.1:0", "--dir", tmp.resolve("zk").toString())) {
      InetSocketAddress z = zk.awaitListening(ZkCommandTest.SERVING);
      String ensemble = "127.0.0.1:" + z.getPort();
      String address = "127.0.0.1:" + freePort();
      Path dir = tmp.resolve("bookie");
      try (InProcessBraid bookie =
          new InProcessBraid(
              "bookie", "--zk", ensemble, "--address", address, "--dir", dir.toString())) {
        InetSocketAddress at = bookie.awaitListening(SERVING);
        assertThat("127.0.0.1:" + at.getPort()).isEqualTo(address);
        ZooKeeper client = new ZooKeeper(ensemble, 10_000, e -> {});
        try {
          Await.until(
              "bookie " + address + " among BookKeeper's available bookies",
              Duration.ofSeconds(20),
              () -> available(client).contains(address));
        } finally {
          client.close();
        }
        bookie.stop.request();
        assertThat(bookie.awaitExit()).isEqualTo(Braid.EXIT_OK);
        assertThat(bookie.out.toString().lines()).hasSize(1);
      }
      assertThat(dir.resolve("journal")).isDirectory();
    }
  }

  @Test
  void noZooKeeperFailsToStartWithOneLineNamingIt() throws Exception {
    String nobody = "127.0.0.1:" + freePort();
    try (InProcessBraid bookie =
        new InProcessBraid(
            "bookie",
            "--zk",
            nobody,
            "--address",
            "127.0.0.1:" + freePort(),
            "--dir",
            tmp.resolve("b").toString(),
            "-D",
            "braid.mds.ha.connect-timeout=2s")) {
      assertThat(bookie.awaitExit()).isEqualTo(Braid.EXIT_FAILURE);
      assertThat(bookie.out.toString()).isEmpty();
      assertThat(bookie.err.toString())
          .contains("braid bookie: failed to start")
          .contains("ZooKeeper at " + nobody + " did not answer");
    }
  }

  @Test
  void aMissingEnsembleOrDirectoryIsAUsageError() throws Exception {
    try (InProcessBraid bookie = new InProcessBraid("bookie", "--dir", tmp.toString())) {
      assertThat(bookie.awaitExit()).isEqualTo(Braid.EXIT_USAGE);
      assertThat(bookie.err.toString()).contains("--zk");
    }
    try (InProcessBraid bookie = new InProcessBraid("bookie", "--zk", "127.0.0.1:1")) {
      assertThat(bookie.awaitExit()).isEqualTo(Braid.EXIT_USAGE);
      assertThat(bookie.err.toString()).contains("--dir");
    }
  }
}
