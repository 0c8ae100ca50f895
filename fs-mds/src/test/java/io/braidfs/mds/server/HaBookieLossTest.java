package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.ha.EmbeddedBookie;
import io.braidfs.mds.ha.HaCoordinator;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.ReadDirRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Losing bookies, with two MDS replicas and three bookies of their own (as {@code braid bookie}
 * runs them) in this JVM and a real ZooKeeper: with one bookie lost the journal goes on; with two
 * lost no change is acknowledged and every replica refuses every namespace call with a status
 * saying why (so nothing is served from a store that may be stale); once the bookies return a
 * leader serves again with every acknowledged change.
 */
class HaBookieLossTest {
  @TempDir Path dir;
  private TestingServer zk;
  private final int[] bookiePorts = new int[3];
  private final EmbeddedBookie[] bookies = new EmbeddedBookie[3];
  private final List<MdsServer> replicas = new ArrayList<>();
  private String metadataServiceUri;

  @BeforeEach
  void start() throws Exception {
    zk =
        new TestingServer(
            new InstanceSpec(dir.resolve("zk").toFile(), -1, -1, -1, true, -1, 500, -1), true);
    HaCoordinator c = new HaCoordinator("setup", BraidConfig.fromMap(zkSettings()), "127.0.0.1:1");
    c.start(); // makes BookKeeper's metadata, as the first MDS would
    metadataServiceUri = c.metadataServiceUri();
    c.close();
    for (int i = 0; i < 3; i++) {
      try (ServerSocket s = new ServerSocket(0)) {
        bookiePorts[i] = s.getLocalPort();
      }
      startBookie(i);
    }
  }

  private Map<String, String> zkSettings() {
    Map<String, String> c = new HashMap<>();
    c.put("braid.mds.ha.zk", zk.getConnectString());
    c.put("braid.mds.ha.zk-root", "/test");
    c.put("braid.mds.ha.session-timeout", "2s");
    return c;
  }

  private void startBookie(int i) throws IOException {
    EmbeddedBookie b =
        new EmbeddedBookie(
            "bookie-" + i,
            metadataServiceUri,
            new InetSocketAddress("127.0.0.1", bookiePorts[i]),
            dir.resolve("bookie-" + i),
            Duration.ofSeconds(2));
    b.start();
    bookies[i] = b;
  }

  @AfterEach
  void stop() throws IOException {
    for (MdsServer m : replicas) {
      m.close();
    }
    for (EmbeddedBookie b : bookies) {
      if (b != null) {
        b.close();
      }
    }
    zk.close();
  }

  private MdsServer startMds(int i) throws IOException {
    Map<String, String> c = zkSettings();
    c.put("braid.mds.id", "mds-" + i);
    c.put("braid.mds.address", "127.0.0.1:0");
    c.put("braid.mds.store.dir", dir.resolve("mds-" + i).toString());
    c.put("braid.mds.ha.bookie.embedded", "false");
    MdsServer m = new MdsServer(BraidConfig.fromMap(c));
    replicas.add(m);
    m.start();
    return m;
  }

  private MdsServer awaitLeader(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      for (MdsServer m : replicas) {
        if (m.role() == MdsServer.Role.LEADER) {
          return m;
        }
      }
      assertThat(System.nanoTime()).as("a leader within %s", within).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static MkdirRequest mkdir(String path) {
    return MkdirRequest.newBuilder().setPath(path).setMode(0755).build();
  }

  private static List<String> list(RpcClient c, MdsServer m) throws IOException {
    List<String> names = new ArrayList<>();
    c.callSync(m.address(), RpcMethod.READ_DIR, ReadDirRequest.newBuilder().setPath("/").build())
        .getEntriesList()
        .forEach(e -> names.add(e.getName()));
    return names;
  }

  @Test
  void aMinorityOfBookiesLostKeepsServingAMajorityLostRefusesEverything() throws Exception {
    startMds(0);
    startMds(1);
    MdsServer leader = awaitLeader(Duration.ofSeconds(30));
    try (RpcClient c = RpcClient.builder("test").user("root").build()) {
      c.start();
      c.callSync(leader.address(), RpcMethod.MKDIR, mkdir("/a"));

      bookies[0].close();
      bookies[0] = null;
      c.callSync(leader.address(), RpcMethod.MKDIR, mkdir("/b"));
      assertThat(list(c, leader)).contains("a", "b");

      bookies[1].close();
      bookies[1] = null;
      // One bookie of three: the journal cannot reach its ack quorum. The change is refused (its
      // outcome unknown, as for any refused append), within the bookies' add timeout.
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> c.callSync(leader.address(), RpcMethod.MKDIR, mkdir("/c")))
          .satisfies(
              e ->
                  assertThat(StatusExceptions.statusOf(e))
                      .isIn(Status.NOT_LEADER, Status.UNAVAILABLE));
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(40));
      // From then on no replica serves the namespace: none can be sure its store is current.
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
      while (System.nanoTime() < until) {
        for (MdsServer m : replicas) {
          if (m.role() == MdsServer.Role.STOPPED) {
            continue;
          }
          InetSocketAddress at;
          try {
            at = m.address();
          } catch (IllegalStateException restarting) {
            continue;
          }
          assertThatThrownBy(
                  () ->
                      c.callSync(
                          at, RpcMethod.READ_DIR, ReadDirRequest.newBuilder().setPath("/").build()))
              .as("%s (%s) serves nothing without its bookies", m, m.role())
              .satisfies(
                  e ->
                      assertThat(StatusExceptions.statusOf(e))
                          .isIn(Status.NOT_LEADER, Status.UNAVAILABLE));
        }
        Thread.sleep(200);
      }

      // The bookies come back (same addresses and directories): a leader serves again, with every
      // acknowledged change.
      startBookie(0);
      startBookie(1);
      MdsServer next = awaitLeader(Duration.ofSeconds(60));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (true) {
        try {
          c.callSync(awaitLeader(Duration.ofSeconds(30)).address(), RpcMethod.MKDIR, mkdir("/d"));
          break;
        } catch (IOException e) {
          assertThat(System.nanoTime()).as("a change accepted again: %s", e).isLessThan(deadline);
          Thread.sleep(100);
        }
      }
      assertThat(list(c, awaitLeader(Duration.ofSeconds(30)))).contains("a", "b", "d");
      assertThat(next.epoch()).isGreaterThan(0);
    }
  }
}
