package io.braidfs.mds.lease;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of write leases ({@code braid.mds.lease.*}); {@link LeaseManager#from}
 * reads them and checks that the hard limit is longer than the soft limit. Registered for {@link
 * java.util.ServiceLoader} in {@code META-INF/services}. Component {@code mds}, area {@code lease}.
 *
 * <p>Hard limit default: 20 minutes, where HDFS uses an hour. It bounds how long a file whose
 * writer died stays open when nobody asks for it; a reader or appender that does ask gets it after
 * the soft limit through RecoverLease. A live writer renews every few seconds, so a shorter limit
 * costs it nothing.
 *
 * <p>Thread-safety: immutable.
 */
public final class MdsLeaseConfigKeys implements ConfigKeySet {
  public static final ConfigKey<Duration> SOFT_LIMIT =
      ConfigKey.duration(
          "braid.mds.lease.soft-limit",
          Duration.ofSeconds(60),
          Duration.ofMillis(1),
          Duration.ofHours(1),
          "Time a writer's lease is its alone without renewal; after it another client may"
              + " recover the file (RecoverLease). Clients renew at a third of it.");

  public static final ConfigKey<Duration> HARD_LIMIT =
      ConfigKey.duration(
          "braid.mds.lease.hard-limit",
          Duration.ofMinutes(20),
          Duration.ofMillis(2),
          Duration.ofDays(7),
          "Time without renewal after which the MDS recovers a file on its own; must exceed the"
              + " soft limit. Also the retry interval of a stalled recovery.");

  private static final List<ConfigKey<?>> KEYS = List.of(SOFT_LIMIT, HARD_LIMIT);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MdsLeaseConfigKeys() {}

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
