package io.braidfs.bench.driver;

import io.braidfs.testing.MiniCluster;

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
    MiniCluster c =
        MiniCluster.builder(run.scratch("braid-" + dataServers + "-data-servers"))
            .dataServers(dataServers)
            .config("braid.mds.layout.replication", "1")
            .config("braid.mds.layout.stripe-width", "4")
            .config("braid.mds.layout.stripe-unit", "1MiB")
            .config("braid.mds.layout.chunk-size", "64MiB")
            .build();
    try {
      c.start();
    } catch (Exception e) {
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
