package io.braidfs.bench.driver;

import io.braidfs.bench.ref.BindfsMount;
import io.braidfs.bench.ref.BraidSystem;
import io.braidfs.bench.ref.HdfsCluster;
import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.jspecify.annotations.Nullable;

/**
 * The references several experiments share, started once per run through {@link Run#shared} under
 * fixed keys, with the same settings for every experiment that asks:
 *
 * <ul>
 *   <li>{@value #HDFS}: {@link HdfsCluster}, a NameNode and {@value #NODES} DataNodes, replication
 *       1;
 *   <li>{@value #BRAID}: {@link BraidSystem}, a MiniCluster of {@value #NODES} data servers,
 *       replication 1, with its FUSE mount and Hadoop client;
 *   <li>{@value #BINDFS}: {@link BindfsMount} over a directory of the work disk.
 * </ul>
 *
 * <p>Thread-safety: call from the driver's thread, as {@link Run} requires.
 */
final class SharedReferences {
  static final String HDFS = "hdfs";
  static final String BRAID = "braid";
  static final String BINDFS = "bindfs";

  /** Data servers of Braid and DataNodes of HDFS: the same count on both sides. */
  static final int NODES = 3;

  static final String BRAID_JAVA = "Braid (Java client)";
  static final String BRAID_HADOOP = "Braid (Hadoop API)";
  static final String HDFS_HADOOP = "HDFS (Hadoop API)";
  static final String BRAID_FUSE = "Braid (FUSE)";
  static final String LOCAL = "local disk";
  static final String BINDFS_NAME = "bindfs";

  private SharedReferences() {}

  static HdfsCluster hdfs(Run run) throws Exception {
    return run.shared(
        HDFS,
        () -> {
          HdfsCluster h = HdfsCluster.create(run.scratch("hdfs"), NODES);
          h.start();
          return h;
        });
  }

  static BraidSystem braid(Run run) throws Exception {
    return run.shared(BRAID, () -> BraidSystem.start(run.scratch("braid"), NODES));
  }

  /** The bindfs mount, or null when bindfs is not installed. */
  static @Nullable BindfsMount bindfs(Run run) throws Exception {
    if (!BindfsMount.installed()) {
      return null;
    }
    return run.shared(BINDFS, () -> BindfsMount.mount(run.scratch("bindfs")));
  }

  /**
   * The six systems of experiments 1 and 2, each under its own {@code root} directory: Braid
   * through its three APIs, HDFS through Hadoop's, and the local disk and bindfs through java.nio
   * (bindfs left out, with a note, when it is not installed).
   */
  static List<FsClient> metadataSystems(Run run, Results results, String root) throws Exception {
    BraidSystem braid = braid(run);
    HdfsCluster hdfs = hdfs(run);
    BindfsMount bindfs = bindfs(run);
    List<FsClient> systems = new ArrayList<>();
    // No client-side attribute cache: a stat is a call to the MDS, as HDFS's is to the NameNode.
    BraidClient java = braid.client(Map.of(ClientConfigKeys.ATTR_TTL.name(), "0s"));
    FileSystem hadoop = braid.hadoop(Map.of("fs." + ClientConfigKeys.ATTR_TTL.name(), "0s"));
    systems.add(new BraidFsClient(BRAID_JAVA, java, "/" + root));
    systems.add(new HadoopFsClient(BRAID_HADOOP, hadoop, "/" + root));
    systems.add(new HadoopFsClient(HDFS_HADOOP, hdfs.fileSystem(), "/" + root));
    systems.add(new NioFsClient(BRAID_FUSE, braid.mount().resolve(root)));
    systems.add(new NioFsClient(LOCAL, run.scratch("local").resolve(root)));
    if (bindfs != null) {
      systems.add(new NioFsClient(BINDFS_NAME, bindfs.mount().resolve(root)));
    } else {
      results.note("bindfs is not installed (`bench/bench-setup.sh` installs it): left out.");
    }
    for (FsClient s : systems) {
      s.mkdirs("");
    }
    return systems;
  }

  /** The ratio columns of experiments 1 and 2. */
  static void ratios(Results results) {
    results.ratio(BRAID_HADOOP, HDFS_HADOOP);
    results.ratio(BRAID_JAVA, HDFS_HADOOP);
    results.ratio(BRAID_FUSE, LOCAL);
    results.ratio(BRAID_FUSE, BINDFS_NAME);
  }

  /** The settings of the systems, for an experiment's description. */
  static String describeSystems() {
    return BraidSystem.describe(NODES)
        + ". "
        + HdfsCluster.describe(NODES, 1)
        + ". Local disk: a directory of the work disk; bindfs: mounted over another."
        + " The Hadoop API columns run the same driver code over `FileSystem`, the FUSE, local"
        + " disk and bindfs columns the same java.nio code; the Java client column calls"
        + " `BraidClient`. Braid's Java and Hadoop clients run with their attribute cache off"
        + " (`braid.client.cache.attr-ttl=0`), so that a stat asks the MDS as HDFS's asks the"
        + " NameNode; the FUSE mount keeps the kernel's attribute cache (default mount options),"
        + " as bindfs does.";
  }
}
