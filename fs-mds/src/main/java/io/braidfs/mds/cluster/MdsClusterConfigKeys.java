package io.braidfs.mds.cluster;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of the MDS's view of the data servers (component {@code mds}, area {@code
 * cluster}): heartbeats and liveness ({@link DataServerRegistry}) and chunk placement ({@link
 * ChunkPlacement}). Registered for {@link java.util.ServiceLoader} in {@code META-INF/services}.
 *
 * <p>Thread-safety: immutable.
 */
public final class MdsClusterConfigKeys implements ConfigKeySet {
  public static final ConfigKey<Duration> HEARTBEAT_INTERVAL =
      ConfigKey.duration(
          "braid.mds.cluster.heartbeat-interval",
          Duration.ofSeconds(3),
          Duration.ofMillis(10),
          Duration.ofMinutes(10),
          "How often data servers heartbeat (sent to them at registration).");

  public static final ConfigKey<Duration> DEAD_INTERVAL =
      ConfigKey.duration(
          "braid.mds.cluster.dead-interval",
          Duration.ofSeconds(30),
          Duration.ofMillis(20),
          Duration.ofHours(1),
          "Time without a heartbeat after which a data server is dead; more than the heartbeat"
              + " interval.");

  public static final ConfigKey<DataSize> MIN_FREE =
      ConfigKey.dataSize(
          "braid.mds.cluster.min-free",
          DataSize.ofGiB(1),
          "Space a data server must keep available beyond one full chunk to be given a new"
              + " replica.");

  public static final ConfigKey<Integer> BUSY_TRANSFERS =
      ConfigKey.integer(
          "braid.mds.cluster.busy-transfers",
          8,
          1,
          1 << 20,
          "Active transfers at which a data server's placement weight is halved (a third at"
              + " twice as many).");

  public static final ConfigKey<Duration> STARTUP_GRACE =
      ConfigKey.duration(
          "braid.mds.cluster.startup-grace",
          Duration.ofSeconds(15),
          Duration.ZERO,
          Duration.ofHours(1),
          "After the MDS starts, how long it waits for data servers to register and report their"
              + " replicas (HDFS's safe mode): meanwhile a write that finds too few data servers"
              + " is answered BUSY (clients retry) rather than failed, and nothing is"
              + " re-replicated. It ends early once every server holding a replica has reported.");

  public static final ConfigKey<List<String>> TOPOLOGY =
      ConfigKey.stringList(
          "braid.mds.cluster.topology",
          List.of(),
          "Racks of data server hosts, as host=/rack entries (\"10.0.0.7=/dc1/rack2\"); a"
              + " mapped host's rack overrides what its data servers report, and servers with"
              + " neither are in /default-rack. Replicas of a chunk are spread over racks.");

  public static final ConfigKey<Integer> REPAIR_COPIES =
      ConfigKey.integer(
          "braid.mds.cluster.repair-copies",
          64,
          1,
          1 << 16,
          "Most chunk copies re-replication (and replication changes) keeps under way in the"
              + " whole cluster.");

  public static final ConfigKey<Integer> REPAIR_COPIES_PER_SERVER =
      ConfigKey.integer(
          "braid.mds.cluster.repair-copies-per-server",
          2,
          1,
          1 << 10,
          "Most re-replication copies one data server takes part in at once, as the copy's"
              + " target or its first source (HDFS's max replication streams), so that foreground"
              + " reads and writes keep going; the data server also limits its copy bandwidth.");

  public static final ConfigKey<Duration> REPAIR_SCAN_INTERVAL =
      ConfigKey.duration(
          "braid.mds.cluster.repair-scan-interval",
          Duration.ofMinutes(10),
          Duration.ofMillis(100),
          Duration.ofDays(7),
          "How often every chunk is checked against its file's replication, besides the checks"
              + " that deaths, reports and decommissions start at once.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(
          HEARTBEAT_INTERVAL,
          DEAD_INTERVAL,
          MIN_FREE,
          BUSY_TRANSFERS,
          STARTUP_GRACE,
          TOPOLOGY,
          REPAIR_COPIES,
          REPAIR_COPIES_PER_SERVER,
          REPAIR_SCAN_INTERVAL);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MdsClusterConfigKeys() {}

  /** Always {@code mds}; the MDS's other key sets share the component. */
  @Override
  public String component() {
    return "mds";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
