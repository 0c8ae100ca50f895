package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.ServiceUnavailableException;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.testing.MiniCluster;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real clusters side by side, each MDS naming its own cluster id in Hello: a client given both
 * clusters' MDS addresses never fails over from its cluster to the other (split brain seen from
 * outside), a configured cluster id refuses even the first address, and a data server refuses an
 * MDS of another cluster without ever registering with it. Cluster B's MDS counts the requests it
 * gets (a zero delay fault), so "nothing reached B" is checked, not assumed.
 */
class ClusterIdTest {
  @TempDir static Path dir;
  static MiniCluster a;
  static MiniCluster b;
  static String idA;
  static String idB;

  @BeforeAll
  static void start() throws IOException {
    a = MiniCluster.builder(dir.resolve("a")).dataServers(1).build();
    a.start();
    b = MiniCluster.builder(dir.resolve("b")).dataServers(0).build();
    b.start();
    idA = a.mds().namespace().clusterId();
    idB = b.mds().namespace().clusterId();
    assertThat(idA).isNotEmpty().isNotEqualTo(idB);
  }

  @AfterAll
  static void stop() {
    b.close();
    a.close();
  }

  @AfterEach
  void clearCounters() {
    b.mdsFaults().clearAll();
  }

  /** Counts every request of these methods B's MDS gets, serving each as usual. */
  static void countOnB(RpcMethod<?, ?>... methods) {
    for (RpcMethod<?, ?> m : methods) {
      b.mdsFaults().delay(m, Duration.ZERO);
    }
  }

  static String address(MiniCluster c) {
    return HostPort.of(c.mdsAddress()).toString();
  }

  static BraidClient client(Map<String, String> settings) throws IOException {
    return BraidClient.builder(BraidConfig.fromMap(settings)).user("root").build();
  }

  @Test
  void aClientNeverFailsOverToAnotherClustersMds() throws IOException {
    String both = address(a) + "," + address(b);
    try (BraidClient c =
        client(
            Map.of(
                ClientConfigKeys.MDS.name(),
                both,
                ClientConfigKeys.FAILOVER_TIMEOUT.name(),
                "2s"))) {
      c.mkdir("/on-a", 0755);
      assertThat(c.stat("/on-a").isDirectory()).isTrue();
      countOnB(RpcMethod.MKDIR, RpcMethod.CREATE);

      a.stopMds();
      try {
        assertThatThrownBy(() -> c.mkdir("/after-a-died", 0755))
            .isInstanceOf(ServiceUnavailableException.class)
            .hasMessageContaining(
                "at " + address(b) + " belongs to cluster '" + idB + "', not '" + idA + "'");
      } finally {
        a.startMds();
      }
    }
    assertThat(b.mdsFaults().hits(RpcMethod.MKDIR)).isZero();
    BraidClient onB = b.newBraidClient("root");
    assertThatThrownBy(() -> onB.stat("/after-a-died")).isInstanceOf(FileNotFoundException.class);
    assertThat(onB.list("/")).isEmpty();
  }

  @Test
  void aConfiguredClusterIdRefusesEvenTheFirstAddress() throws IOException {
    countOnB(RpcMethod.GET_SERVER_DEFAULTS, RpcMethod.MKDIR);
    try (BraidClient c =
        client(
            Map.of(
                ClientConfigKeys.MDS.name(),
                address(b) + "," + address(a),
                ClientConfigKeys.CLUSTER_ID.name(),
                idA))) {
      assertThat(c.serverDefaults().clusterId()).isEqualTo(idA);
      c.mkdir("/configured", 0755);
    }
    assertThat(b.mdsFaults().hits(RpcMethod.GET_SERVER_DEFAULTS)).isZero();
    assertThat(b.mdsFaults().hits(RpcMethod.MKDIR)).isZero();
    assertThat(a.newBraidClient("root").stat("/configured").isDirectory()).isTrue();
  }

  @Test
  void aDataServerRefusesAnMdsOfAnotherClusterAndRegistersWithItsOwn() throws Exception {
    int serverId = a.dataServer(0).serverId();
    a.stopDataServer(0);
    countOnB(RpcMethod.REGISTER_DATA_SERVER, RpcMethod.HEARTBEAT);
    Map<String, String> c = new HashMap<>();
    c.put(DataServerConfigKeys.ADDRESS.name(), "127.0.0.1:0");
    // The same directories: the store knows it belongs to A.
    c.put(DataServerConfigKeys.DIRS.name(), dir.resolve("a").resolve("ds-0").toString());
    c.put(DataServerConfigKeys.MDS.name(), address(b) + "," + address(a));
    c.put(DataServerConfigKeys.REGISTER_RETRY.name(), "50ms");
    DataServer ds = new DataServer(BraidConfig.fromMap(c), "ds-a0-via-b");
    try {
      ds.start();
      assertThat(ds.store().clusterId()).isEqualTo(idA);
      assertThat(ds.awaitRegistered(Duration.ofSeconds(20))).isTrue();
      assertThat(ds.serverId()).isEqualTo(serverId);
    } finally {
      ds.close();
      a.restartDataServer(0);
    }
    assertThat(b.mdsFaults().hits(RpcMethod.REGISTER_DATA_SERVER)).isZero();
    assertThat(b.mdsFaults().hits(RpcMethod.HEARTBEAT)).isZero();
    assertThat(b.mds().namespace().registry().liveServers()).isEmpty();
  }
}
