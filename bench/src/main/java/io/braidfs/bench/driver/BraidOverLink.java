package io.braidfs.bench.driver;

import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.testing.LinkEmulator;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Braid cluster on the far side of a {@link LinkEmulator}: every data server advertises a route
 * of the emulator as its address, and clients reach the MDS through a route too, so a client's
 * metadata calls and its data both cross the link (as PrefetchOverWanTest sets it up). The servers'
 * own traffic (data server heartbeats to the MDS) stays off the link.
 *
 * <p>One MDS and three data servers, replication 1 (one copy, as the references keep) and stripe
 * width 3 over the default 1 MiB stripe unit and 64 MiB chunks.
 *
 * <p>Thread-safety: not thread-safe.
 */
final class BraidOverLink implements AutoCloseable {
  static final int DATA_SERVERS = 3;

  private final MiniCluster cluster;
  private final String mds;

  private BraidOverLink(MiniCluster cluster, String mds) {
    this.cluster = cluster;
    this.mds = mds;
  }

  /** Starts the cluster with its directories under {@code dir}, behind {@code link}. */
  static BraidOverLink start(LinkEmulator link, Path dir) throws IOException {
    List<LinkEmulator.Route> routes = new ArrayList<>();
    for (int i = 0; i < DATA_SERVERS; i++) {
      // The advertised port must be known before a data server registers, its target after.
      routes.add(link.routeLater());
    }
    MiniCluster c =
        MiniCluster.builder(dir)
            .dataServers(DATA_SERVERS)
            .config("braid.mds.layout.replication", "1")
            .config("braid.mds.layout.stripe-width", Integer.toString(DATA_SERVERS))
            .dataServerConfig(
                i ->
                    Map.of(
                        DataServerConfigKeys.ADVERTISED_PORT.name(),
                        Integer.toString(routes.get(i).address().getPort())))
            .build();
    try {
      c.start();
      for (int i = 0; i < DATA_SERVERS; i++) {
        routes.get(i).target(c.dataServer(i).address());
      }
      String mds = HostPort.of(link.route(c.mdsAddress()).address()).toString();
      return new BraidOverLink(c, mds);
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * A client across the link with {@code settings} ({@code braid.client.*}) on top of the defaults;
   * closed with the cluster.
   */
  BraidClient client(Map<String, String> settings) throws IOException {
    Map<String, String> s = new HashMap<>(settings);
    s.put(ClientConfigKeys.MDS.name(), mds);
    // A client across a WAN is never on a data server's host; here the servers share the machine,
    // so a short-circuit read would skip the link (the experiment's byte count refuses that).
    s.putIfAbsent(ClientConfigKeys.SHORT_CIRCUIT.name(), "false");
    return cluster.newBraidClient("root", s);
  }

  @Override
  public void close() {
    cluster.close();
  }
}
