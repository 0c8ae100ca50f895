package io.braidfs.hadoop;

import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import java.net.URI;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The one place where Hadoop-side settings become the client's {@link BraidConfig}.
 *
 * <ul>
 *   <li>The URI's authority names the MDS: {@code braid://host:port/} (port 7400 if omitted). For
 *       several MDSs (HA) give the cluster a name and list them: {@code braid://prod/} with {@code
 *       fs.braid.cluster.prod.mds=h1:7400,h2:7400}.
 *   <li>{@code fs.braid.X} sets the Braid key {@code braid.X} if there is one (so {@code
 *       fs.braid.rpc.transport} reaches {@code braid.rpc.transport}), else {@code braid.client.X}
 *       ({@code fs.braid.prefetch.max-window} reaches {@code braid.client.prefetch.max-window}). A
 *       name that is neither is refused, naming it, so a typo does not pass silently.
 *   <li>Hadoop's own umask ({@code fs.permissions.umask-mode}) replaces {@code braid.client.umask},
 *       as HDFS clients apply it.
 * </ul>
 *
 * <p>Thread-safety: stateless.
 */
final class HadoopSettings {
  /** Prefix of Braid's Hadoop-side keys. */
  static final String PREFIX = "fs.braid.";

  /** The MDS port when a URI gives none. */
  static final int DEFAULT_PORT = 7400;

  private static final String CLUSTER_PREFIX = PREFIX + "cluster.";

  private HadoopSettings() {}

  /**
   * The client configuration for {@code uri} under {@code conf}.
   *
   * @throws IllegalArgumentException if the URI has no authority, a {@code fs.braid.*} key is
   *     unknown, or a value is invalid; the message names the key
   */
  static BraidConfig toBraidConfig(URI uri, Configuration conf) {
    ConfigKeyRegistry registry = ConfigKeyRegistry.discover();
    Map<String, String> entries = new TreeMap<>();
    for (Map.Entry<String, String> e : conf.getPropsWithPrefix(PREFIX).entrySet()) {
      String suffix = e.getKey();
      if (suffix.equals("impl") || suffix.startsWith("impl.") || suffix.startsWith("cluster.")) {
        continue; // Hadoop's own per-scheme keys, and cluster address lists (below)
      }
      String direct = "braid." + suffix;
      String client = "braid.client." + suffix;
      if (registry.key(direct) != null) {
        entries.put(direct, conf.get(PREFIX + suffix));
      } else if (registry.key(client) != null) {
        entries.put(client, conf.get(PREFIX + suffix));
      } else {
        throw new IllegalArgumentException(
            "unknown setting "
                + PREFIX
                + suffix
                + ": neither "
                + direct
                + " nor "
                + client
                + " is a Braid configuration key (see docs/configuration.md)");
      }
    }
    entries.put(ClientConfigKeys.MDS.name(), mdsAddresses(uri, conf));
    entries.put(
        ClientConfigKeys.UMASK.name(),
        String.format("%03o", FsPermission.getUMask(conf).toShort() & 0777));
    return BraidConfig.fromMap(entries, registry);
  }

  /** The MDS addresses for a URI: its host:port, or the list its cluster name stands for. */
  static String mdsAddresses(URI uri, Configuration conf) {
    String authority = uri.getAuthority();
    if (authority == null || authority.isEmpty()) {
      throw new IllegalArgumentException(
          "braid URI " + uri + " names no MDS: expected braid://host:port/ or braid://cluster/");
    }
    String listed = conf.getTrimmed(CLUSTER_PREFIX + authority + ".mds");
    if (listed != null && !listed.isEmpty()) {
      return listed;
    }
    return uri.getPort() < 0 ? uri.getHost() + ":" + DEFAULT_PORT : authority;
  }
}
