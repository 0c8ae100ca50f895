package io.braidfs.mds.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * What the in-process HA tests share: a real ZooKeeper whose tick allows the replicas' short
 * sessions, a free port for each replica's embedded bookie, and each replica's settings.
 */
final class HaTestBed implements AutoCloseable {
  final TestingServer zk;
  private final Path dir;
  private final int[] bookiePorts;

  HaTestBed(Path dir, int replicas) throws Exception {
    this.dir = dir;
    // A 500 ms tick allows sessions of 1-10 s, as `braid zk` does.
    this.zk =
        new TestingServer(
            new InstanceSpec(dir.resolve("zk").toFile(), -1, -1, -1, true, -1, 500, -1), true);
    this.bookiePorts = new int[replicas];
    for (int i = 0; i < replicas; i++) {
      try (ServerSocket s = new ServerSocket(0)) {
        bookiePorts[i] = s.getLocalPort();
      }
    }
  }

  /** Replica {@code i}'s settings: its id, store, the ZooKeeper, a 2 s session, its bookie. */
  Map<String, String> replica(int i) {
    Map<String, String> c = new HashMap<>();
    c.put("braid.mds.id", "mds-" + i);
    c.put("braid.mds.address", "127.0.0.1:0");
    c.put("braid.mds.store.dir", dir.resolve("mds-" + i).toString());
    c.put("braid.mds.ha.zk", zk.getConnectString());
    c.put("braid.mds.ha.zk-root", "/test");
    c.put("braid.mds.ha.session-timeout", "2s");
    c.put("braid.mds.ha.bookie.address", "127.0.0.1:" + bookiePorts[i]);
    return c;
  }

  @Override
  public void close() throws IOException {
    zk.close();
  }
}
