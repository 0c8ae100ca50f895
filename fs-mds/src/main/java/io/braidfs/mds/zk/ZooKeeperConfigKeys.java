package io.braidfs.mds.zk;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of the ZooKeeper server that Braid can run itself ({@code braid zk}, and
 * the one {@code braid local --ha} embeds), component {@code zk}: where it listens, where it keeps
 * its data, its tick, and the ensemble it is a member of. A production cluster uses its own
 * ZooKeeper ensemble and none of these. Registered for {@link java.util.ServiceLoader} in {@code
 * META-INF/services}, and listed in {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class ZooKeeperConfigKeys implements ConfigKeySet {
  public static final ConfigKey<String> ADDRESS =
      ConfigKey.string(
          "braid.zk.address",
          "127.0.0.1:2181",
          "host:port the ZooKeeper server takes client connections on; port 0 picks a free port.");

  public static final ConfigKey<String> DIR =
      ConfigKey.string(
          "braid.zk.dir",
          "./braid-data/zk",
          "Directory of the ZooKeeper server's snapshots, transaction log and (in an ensemble)"
              + " myid; created if missing.");

  public static final ConfigKey<Duration> TICK =
      ConfigKey.duration(
          "braid.zk.tick",
          Duration.ofMillis(500),
          Duration.ofMillis(10),
          Duration.ofSeconds(10),
          "ZooKeeper's time unit: sessions may last from 2 to 20 ticks, and ensemble members must"
              + " sync within 10 ticks (20 when one joins). 500ms allows sessions as short as 1s,"
              + " so a dead MDS leader is noticed quickly.");

  public static final ConfigKey<List<String>> SERVERS =
      ConfigKey.stringList(
          "braid.zk.servers",
          List.of(),
          "Every member of the ensemble as N=host:peerPort:electionPort (zoo.cfg's server.N= prefix"
              + " is accepted), comma-separated, the same list on every member; empty runs one"
              + " standalone server.");

  public static final ConfigKey<Integer> ID =
      ConfigKey.integer(
          "braid.zk.id",
          0,
          0,
          255,
          "This member's N in braid.zk.servers (written to myid in braid.zk.dir); 0 when"
              + " standalone.");

  public static final ConfigKey<Integer> MAX_CLIENT_CONNECTIONS =
      ConfigKey.integer(
          "braid.zk.max-client-connections",
          60,
          0,
          Integer.MAX_VALUE,
          "Connections one client host may hold to this server at once; 0 for no limit.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(ADDRESS, DIR, TICK, SERVERS, ID, MAX_CLIENT_CONNECTIONS);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public ZooKeeperConfigKeys() {}

  @Override
  public String component() {
    return "zk";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
