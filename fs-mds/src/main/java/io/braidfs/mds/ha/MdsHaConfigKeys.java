package io.braidfs.mds.ha;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of MDS high availability (component {@code mds}, area {@code ha}): the
 * ZooKeeper ensemble that elects the leader, and the BookKeeper journal. With {@link #ZK} empty the
 * MDS runs alone and its journal is the RocksDB WAL. Registered for {@link java.util.ServiceLoader}
 * in {@code META-INF/services}, and listed in {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class MdsHaConfigKeys implements ConfigKeySet {
  public static final ConfigKey<String> ZK =
      ConfigKey.string(
          "braid.mds.ha.zk",
          "",
          "ZooKeeper connect string (host:port,host:port) of the ensemble that elects the leader"
              + " MDS; empty runs one MDS without ZooKeeper.");

  public static final ConfigKey<String> ZK_ROOT =
      ConfigKey.string(
          "braid.mds.ha.zk-root",
          "/braid",
          "ZooKeeper path under which one cluster keeps its election, epoch, journal ledgers and"
              + " BookKeeper metadata; clusters sharing an ensemble need different roots.");

  public static final ConfigKey<Duration> SESSION_TIMEOUT =
      ConfigKey.duration(
          "braid.mds.ha.session-timeout",
          Duration.ofSeconds(3),
          Duration.ofMillis(500),
          Duration.ofMinutes(1),
          "ZooKeeper session timeout: how long a leader that stopped answering keeps its"
              + " leadership, so the bulk of a failover's time. The ensemble bounds it (2 to 20"
              + " ticks).");

  public static final ConfigKey<Duration> CONNECT_TIMEOUT =
      ConfigKey.duration(
          "braid.mds.ha.connect-timeout",
          Duration.ofSeconds(60),
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "How long an MDS waits at start for ZooKeeper (logging its progress) before it gives up"
              + " with an error.");

  public static final ConfigKey<Boolean> EMBEDDED_BOOKIE =
      ConfigKey.bool(
          "braid.mds.ha.bookie.embedded",
          true,
          "Run a BookKeeper bookie inside this MDS (the default for 3 MDS replicas); false when"
              + " bookies run on their own.");

  public static final ConfigKey<String> BOOKIE_ADDRESS =
      ConfigKey.string(
          "braid.mds.ha.bookie.address",
          "127.0.0.1:7410",
          "host:port of the embedded bookie. Its identity: never change it, nor wipe its"
              + " directory, without reformatting the bookie.");

  public static final ConfigKey<String> BOOKIE_DIR =
      ConfigKey.string(
          "braid.mds.ha.bookie.dir",
          "",
          "Directory of the embedded bookie's journal and ledgers; empty means 'bookie' inside"
              + " braid.mds.store.dir.");

  public static final ConfigKey<Integer> ENSEMBLE =
      ConfigKey.integer(
          "braid.mds.ha.ensemble",
          3,
          1,
          16,
          "Bookies each journal ledger is written to. While fewer are up a ledger of the bookies"
              + " left (at least the ack quorum) is used instead.");

  public static final ConfigKey<Integer> ACK_QUORUM =
      ConfigKey.integer(
          "braid.mds.ha.ack-quorum",
          2,
          1,
          16,
          "Bookies that must have a journal record before the mutation is acknowledged.");

  public static final ConfigKey<Duration> TAIL_INTERVAL =
      ConfigKey.duration(
          "braid.mds.ha.tail-interval",
          Duration.ofMillis(50),
          Duration.ofMillis(1),
          Duration.ofMinutes(1),
          "How often a standby polls the journal for records to apply.");

  public static final ConfigKey<Long> LEDGER_RECORDS =
      ConfigKey.longKey(
          "braid.mds.ha.ledger-records",
          100_000L,
          1L,
          Long.MAX_VALUE,
          "Journal records per BookKeeper ledger: the leader then closes the ledger and starts"
              + " another (appends wait for that, a few milliseconds), so whole old ledgers can be"
              + " deleted.");

  public static final ConfigKey<Long> LEDGER_RETAINED_RECORDS =
      ConfigKey.longKey(
          "braid.mds.ha.retained-records",
          1_000_000L,
          1L,
          Long.MAX_VALUE,
          "Journal records kept in BookKeeper behind the leader's last: a ledger whose every"
              + " record is older is deleted when the next ledger starts. A replica that falls"
              + " further behind (or starts with an empty store) copies a peer's store first.");

  public static final ConfigKey<Duration> SNAPSHOT_IDLE =
      ConfigKey.duration(
          "braid.mds.ha.snapshot-idle",
          Duration.ofMinutes(5),
          Duration.ofSeconds(1),
          Duration.ofDays(1),
          "How long a store copy made for a bootstrapping replica is kept after its last read.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(
          ZK,
          ZK_ROOT,
          SESSION_TIMEOUT,
          CONNECT_TIMEOUT,
          EMBEDDED_BOOKIE,
          BOOKIE_ADDRESS,
          BOOKIE_DIR,
          ENSEMBLE,
          ACK_QUORUM,
          TAIL_INTERVAL,
          LEDGER_RECORDS,
          LEDGER_RETAINED_RECORDS,
          SNAPSHOT_IDLE);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MdsHaConfigKeys() {}

  /** Always {@code mds}. */
  @Override
  public String component() {
    return "mds";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
