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

  private static final List<ConfigKey<?>> KEYS =
      List.of(HEARTBEAT_INTERVAL, DEAD_INTERVAL, MIN_FREE, BUSY_TRANSFERS);

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
