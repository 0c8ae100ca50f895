package io.braidfs.hadoop;

import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Real Braid clusters (an MDS and three data servers over loopback) shared by the contract suites
 * of one test JVM, started on first use and stopped when the JVM exits. The destructive root
 * directory suite gets a cluster of its own, so it cannot disturb the others.
 *
 * <p>Thread-safety: {@link #uri(String)} is synchronised.
 */
final class ContractCluster {
  private static final Map<String, MiniCluster> CLUSTERS = new HashMap<>();

  private ContractCluster() {}

  /** The {@code braid://} URI of the cluster called {@code name}, starting it if needed. */
  static synchronized URI uri(String name) {
    MiniCluster cluster = CLUSTERS.get(name);
    if (cluster == null) {
      try {
        Path dir = Files.createTempDirectory("braid-contract-" + name);
        cluster = MiniCluster.builder(dir).dataServers(3).build();
        cluster.start();
      } catch (IOException e) {
        throw new UncheckedIOException("starting contract cluster " + name, e);
      }
      MiniCluster started = cluster;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "stop-" + name));
      CLUSTERS.put(name, cluster);
    }
    InetSocketAddress a = cluster.mdsAddress();
    return URI.create("braid://" + a.getHostString() + ":" + a.getPort() + "/");
  }
}
