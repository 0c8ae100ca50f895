package io.braidfs.bench.fuse;

import io.braidfs.client.ClientConfigKeys;
import io.braidfs.client.MiniCluster;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.fuse.BraidMount;
import io.braidfs.fuse.MountOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Braid on one machine, mounted: a MiniCluster in this JVM (one MDS, three data servers with their
 * directories on the disk under test, replication 1 as a single local disk has, stripe width 3)
 * mounted with {@link BraidMount} and the default mount options, as {@code braid local --mount}
 * does.
 *
 * <p>Thread-safety: not thread-safe.
 */
public final class LocalBraidMount implements AutoCloseable {
  private final MiniCluster cluster;
  private final BraidMount mount;

  private LocalBraidMount(MiniCluster cluster, BraidMount mount) {
    this.cluster = cluster;
    this.mount = mount;
  }

  /** Starts the cluster in {@code clusterDir} and mounts it on {@code mountPoint}. */
  public static LocalBraidMount start(Path clusterDir, Path mountPoint) throws IOException {
    MiniCluster cluster =
        MiniCluster.builder(clusterDir)
            .dataServers(3)
            .config("braid.mds.layout.replication", "1")
            .config("braid.mds.layout.stripe-width", "3")
            .build();
    try {
      cluster.start();
      BraidConfig config =
          BraidConfig.fromMap(
              Map.of(ClientConfigKeys.MDS.name(), HostPort.of(cluster.mdsAddress()).toString()));
      return new LocalBraidMount(
          cluster, BraidMount.mount(mountPoint, config, MountOptions.defaults()));
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The mounted directory. */
  public Path directory() {
    return mount.directory();
  }

  /** Unmounts, then stops the cluster. */
  @Override
  public void close() {
    try {
      mount.close();
    } finally {
      cluster.close();
    }
  }
}
