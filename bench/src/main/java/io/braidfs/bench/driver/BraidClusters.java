package io.braidfs.bench.driver;

import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The Braid clusters of the data experiments: a {@link MiniCluster} in this JVM (one MDS, N data
 * servers on loopback, every directory under the run's work directory, so on the disk measured),
 * default layout replication 1, stripe width 4, 1 MiB stripe units, 64 MiB chunks.
 *
 * <p>Thread-safety: stateless.
 */
final class BraidClusters {
  private BraidClusters() {}

  /**
   * The run's cluster with four data servers, started on first use and shared by experiments 3, 4
   * and 5 (each file picks its own layout).
   */
  static MiniCluster fourServers(Run run) throws Exception {
    return run.shared("braid-4-data-servers", () -> start(run, 4));
  }

  /** A new started cluster with {@code dataServers} data servers; the caller closes it. */
  static MiniCluster start(Run run, int dataServers) throws Exception {
    return start(
        run.scratch("braid-" + dataServers + "-data-servers"),
        dataServers,
        Map.of(
            "braid.mds.layout.replication", "1",
            "braid.mds.layout.stripe-width", "4",
            "braid.mds.layout.stripe-unit", "1MiB",
            "braid.mds.layout.chunk-size", "64MiB"));
  }

  /**
   * A new started cluster in {@code dir} with {@code dataServers} data servers and {@code config}
   * on every server (other keys at their defaults); the caller closes it.
   */
  static MiniCluster start(Path dir, int dataServers, Map<String, String> config)
      throws IOException {
    MiniCluster.Builder b = MiniCluster.builder(dir).dataServers(dataServers);
    config.forEach(b::config);
    MiniCluster c = b.build();
    try {
      c.start();
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** The cluster in words, for the experiments' descriptions. */
  static String description(String dataServers) {
    return "a MiniCluster in the driver's JVM (one MDS and "
        + dataServers
        + " data servers over loopback, every directory on the work disk; default client"
        + " settings: durable at close, 32 MiB write-behind, automatic read-ahead)";
  }
}
