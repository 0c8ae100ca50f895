package io.braidfs.client;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of the client library (component {@code client}). Registered for {@link
 * java.util.ServiceLoader} in {@code META-INF/services}, and listed in {@code
 * docs/configuration.md}. Hadoop-side {@code fs.braid.*} keys are mapped onto these in fs-hadoop.
 *
 * <p>Thread-safety: immutable.
 */
public final class ClientConfigKeys implements ConfigKeySet {
  public static final ConfigKey<List<String>> MDS =
      ConfigKey.stringList(
          "braid.client.mds",
          List.of("127.0.0.1:7400"),
          "host:port of every MDS; calls go to the leader, found through NOT_LEADER hints.");

  public static final ConfigKey<Duration> FAILOVER_TIMEOUT =
      ConfigKey.duration(
          "braid.client.mds.failover-timeout",
          Duration.ofSeconds(30),
          Duration.ZERO,
          Duration.ofHours(1),
          "How long a metadata call keeps retrying (same call id, next MDS) while no MDS answers"
              + " as leader, before it fails with UNAVAILABLE.");

  public static final ConfigKey<Boolean> FAIL_FAST_WHEN_REFUSED =
      ConfigKey.bool(
          "braid.client.mds.fail-fast-when-refused",
          false,
          "Whether a client that has not yet reached any MDS fails at once (UNAVAILABLE) when"
              + " every MDS address refuses the connection (nothing listens there), instead of"
              + " retrying for braid.client.mds.failover-timeout; braid fs and braid admin set it.");

  public static final ConfigKey<String> CLUSTER_ID =
      ConfigKey.string(
          "braid.client.cluster-id",
          "",
          "The id of the cluster this client must use (fixed when the MDS formatted its"
              + " namespace; each data server logs it when it registers): an MDS or data server"
              + " naming another cluster is refused, even the first one asked. Empty: the client"
              + " keeps to the cluster of the first server that names one.");

  public static final ConfigKey<Duration> ATTR_TTL =
      ConfigKey.duration(
          "braid.client.cache.attr-ttl",
          Duration.ofSeconds(1),
          Duration.ZERO,
          Duration.ofMinutes(10),
          "How long attributes fetched by stat are reused without asking the MDS; 0 turns the"
              + " cache off. Open always asks (close-to-open consistency).");

  public static final ConfigKey<Integer> CACHE_ENTRIES =
      ConfigKey.integer(
          "braid.client.cache.max-entries",
          10_000,
          0,
          10_000_000,
          "Most paths whose attributes the client caches.");

  public static final ConfigKey<DataSize> WRITE_BEHIND =
      ConfigKey.dataSize(
          "braid.client.write-behind",
          DataSize.ofBytes(32L << 20),
          "Per output stream, the most written bytes not yet acknowledged by the data servers; a"
              + " write waits only when this much is in flight.");

  public static final ConfigKey<Boolean> SYNC_ON_CLOSE =
      ConfigKey.bool(
          "braid.client.close.sync",
          true,
          "Closing a written file forces its data to disk on every replica before the close returns"
              + " (as HDFS's close); false leaves that to the data servers' page cache, as a local"
              + " file system's close(2) does, and hsync (fsync(2)) forces it. braid mount sets"
              + " false unless this key is given.");

  public static final ConfigKey<Boolean> PREFETCH =
      ConfigKey.bool(
          "braid.client.prefetch.enabled",
          true,
          "Read ahead of sequential readers (windowed, asynchronous).");

  public static final ConfigKey<DataSize> PREFETCH_WINDOW =
      ConfigKey.dataSize(
          "braid.client.prefetch.window",
          DataSize.ofBytes(0),
          "A fixed read-ahead window for experiments; 0 means automatic (grows to the measured"
              + " bandwidth-delay product).");

  public static final ConfigKey<DataSize> PREFETCH_MAX_WINDOW =
      ConfigKey.dataSize(
          "braid.client.prefetch.max-window",
          DataSize.ofBytes(256L << 20),
          "Largest automatic read-ahead window of one stream.");

  public static final ConfigKey<DataSize> PREFETCH_BLOCK =
      ConfigKey.dataSize(
          "braid.client.prefetch.block",
          DataSize.ofBytes(1L << 20),
          "Bytes per read-ahead request; the window starts at one block and doubles.");

  public static final ConfigKey<DataSize> PREFETCH_BUDGET =
      ConfigKey.dataSize(
          "braid.client.prefetch.budget",
          DataSize.ofBytes(512L << 20),
          "Memory all streams of one client may hold in read-ahead; a stream whose window does"
              + " not fit reads ahead less.");

  public static final ConfigKey<Boolean> SHORT_CIRCUIT =
      ConfigKey.bool(
          "braid.client.read.short-circuit",
          true,
          "Read replicas on a data server of this host from their files instead of over a socket"
              + " (each block still verified); needs read access to the data directories, and"
              + " reads go over the network wherever that is missing.");

  public static final ConfigKey<DataSize> MAX_TRANSFER =
      ConfigKey.dataSize(
          "braid.client.data.max-transfer",
          DataSize.ofBytes(8L << 20),
          "Most bytes one data request carries (a multiple of 64 KiB).");

  public static final ConfigKey<Duration> DATA_TIMEOUT =
      ConfigKey.duration(
          "braid.client.data.call-timeout",
          Duration.ofSeconds(60),
          Duration.ofMillis(1),
          Duration.ofHours(1),
          "How long one data request may take before its replica counts as failed.");

  public static final ConfigKey<Integer> MAX_REPLACEMENTS =
      ConfigKey.integer(
          "braid.client.data.max-replacements",
          3,
          0,
          100,
          "Per chunk and stream, how many failed replicas a writer replaces before it fails.");

  public static final ConfigKey<String> UMASK =
      ConfigKey.string(
          "braid.client.umask",
          "022",
          "Permission bits, in octal, removed from the mode of new files and directories.");

  public static final ConfigKey<Boolean> CREATOR_GROUP =
      ConfigKey.bool(
          "braid.client.creator-group",
          false,
          "New files, directories and symlinks take the client's first group (Linux's rule: the"
              + " creator's group) instead of their directory's (HDFS's rule); a directory with the"
              + " set-group-id bit gives its own group either way. braid mount sets true.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(
          MDS,
          FAILOVER_TIMEOUT,
          FAIL_FAST_WHEN_REFUSED,
          CLUSTER_ID,
          ATTR_TTL,
          CACHE_ENTRIES,
          WRITE_BEHIND,
          SYNC_ON_CLOSE,
          CREATOR_GROUP,
          PREFETCH,
          PREFETCH_WINDOW,
          PREFETCH_MAX_WINDOW,
          PREFETCH_BLOCK,
          PREFETCH_BUDGET,
          SHORT_CIRCUIT,
          MAX_TRANSFER,
          DATA_TIMEOUT,
          MAX_REPLACEMENTS,
          UMASK);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public ClientConfigKeys() {}

  @Override
  public String component() {
    return "client";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
