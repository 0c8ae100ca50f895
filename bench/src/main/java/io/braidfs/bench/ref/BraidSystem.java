package io.braidfs.bench.ref;

import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.fuse.BraidMount;
import io.braidfs.fuse.MountOptions;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Braid as the benchmarks run it: a {@link MiniCluster} in this JVM (one MDS, {@code n} data
 * servers, replication 1, their directories on the disk under test), reached three ways: the Java
 * client ({@link #client}), the Hadoop API ({@link #hadoop}, {@code BraidFileSystem} over {@code
 * braid://}) and the FUSE mount ({@link #mount}, {@link BraidMount} with the default options, as
 * {@code braid local --mount} mounts).
 *
 * <p>{@link #close} closes the Hadoop client, unmounts, and stops the cluster, in that order.
 *
 * <p>Thread-safety: the accessors are safe from any thread once started.
 */
public final class BraidSystem implements AutoCloseable {
  private final MiniCluster cluster;
  private final int dataServers;
  private final BraidClient client;
  private final FileSystem hadoop;
  private final BraidMount mount;
  private final List<FileSystem> extraHadoop = new ArrayList<>();

  private BraidSystem(
      MiniCluster cluster, int dataServers, BraidClient client, FileSystem hadoop, BraidMount m) {
    this.cluster = cluster;
    this.dataServers = dataServers;
    this.client = client;
    this.hadoop = hadoop;
    this.mount = m;
  }

  /**
   * Starts the cluster under {@code dir} and mounts it on {@code dir/mnt}.
   *
   * @throws IOException if the cluster, the Hadoop client or the mount fails; what started is
   *     closed again
   */
  public static BraidSystem start(Path dir, int dataServers) throws IOException {
    MiniCluster cluster =
        MiniCluster.builder(Files.createDirectories(dir.resolve("cluster")))
            .dataServers(dataServers)
            .config("braid.mds.layout.replication", "1")
            // one chunk of a set per server, as on a real cluster
            .config("braid.mds.layout.stripe-width", Integer.toString(dataServers))
            .build();
    FileSystem hadoop = null;
    try {
      cluster.start();
      String mds = HostPort.of(cluster.mdsAddress()).toString();
      BraidClient client = cluster.newBraidClient("root");
      hadoop = FileSystem.newInstance(URI.create("braid://" + mds + "/"), new Configuration());
      BraidConfig config = BraidConfig.fromMap(Map.of(ClientConfigKeys.MDS.name(), mds));
      BraidMount m =
          BraidMount.mount(
              Files.createDirectories(dir.resolve("mnt")), config, MountOptions.defaults());
      return new BraidSystem(cluster, dataServers, client, hadoop, m);
    } catch (IOException | RuntimeException e) {
      if (hadoop != null) {
        hadoop.close();
      }
      cluster.close();
      throw e;
    }
  }

  /** The Java client, acting as root; closed with the cluster. */
  public BraidClient client() {
    return client;
  }

  /** {@code BraidFileSystem} on this cluster, acting as Hadoop's current user. */
  public FileSystem hadoop() {
    return hadoop;
  }

  /**
   * Another Java client acting as root, with client settings ({@code braid.client.*}) over the
   * defaults; closed with the cluster.
   */
  public BraidClient client(Map<String, String> settings) throws IOException {
    return cluster.newBraidClient("root", settings);
  }

  /**
   * Another {@code BraidFileSystem} with Hadoop settings ({@code fs.braid.*}) over the defaults;
   * closed by {@link #close}.
   */
  public synchronized FileSystem hadoop(Map<String, String> settings) throws IOException {
    Configuration conf = new Configuration();
    settings.forEach(conf::set);
    FileSystem fs = FileSystem.newInstance(hadoop.getUri(), conf);
    extraHadoop.add(fs);
    return fs;
  }

  /** The FUSE mount's directory. */
  public Path mount() {
    return mount.directory();
  }

  /** The cluster, for experiments that need its servers. */
  public MiniCluster cluster() {
    return cluster;
  }

  /** The settings, as one sentence for docs/benchmarks.md. */
  public String describe() {
    return describe(dataServers);
  }

  /** {@link #describe()} for a cluster of this size, before it is started. */
  public static String describe(int dataServers) {
    return String.format(
        Locale.ROOT,
        "Braid: a MiniCluster in the driver's JVM (one MDS, %d data servers, replication 1,"
            + " stripe width %<d,"
            + " durable create: WAL synced before the answer), through the Java client and"
            + " `BraidFileSystem` (durable close: data synced on close, as HDFS with"
            + " `synconclose`) and the FUSE mount (default options: close(2) does not sync, as on"
            + " a local disk; fsync(2) does)",
        dataServers);
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      for (FileSystem fs : extraHadoop) {
        fs.close();
      }
      hadoop.close();
    } finally {
      try {
        mount.close();
      } finally {
        cluster.close();
      }
    }
  }
}
