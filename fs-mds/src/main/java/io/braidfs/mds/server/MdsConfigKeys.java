package io.braidfs.mds.server;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of the metadata server process (component {@code mds}): where it listens,
 * its name, and its thread pools. Registered for {@link java.util.ServiceLoader} in {@code
 * META-INF/services}, and listed in {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class MdsConfigKeys implements ConfigKeySet {
  public static final ConfigKey<String> ADDRESS =
      ConfigKey.string(
          "braid.mds.address",
          "0.0.0.0:7400",
          "host:port the MDS listens on for clients and data servers; port 0 picks a free port.");

  public static final ConfigKey<String> ID =
      ConfigKey.string(
          "braid.mds.id", "mds", "This MDS's name in logs, thread names and Hello answers.");

  public static final ConfigKey<Integer> READ_THREADS =
      ConfigKey.integer(
          "braid.mds.read-threads",
          4,
          1,
          1024,
          "Threads serving read-only operations (lookup, getattr, readdir, open without write).");

  public static final ConfigKey<Duration> RETRY_CACHE_TTL =
      ConfigKey.duration(
          "braid.mds.retry-cache-ttl",
          Duration.ofMinutes(10),
          Duration.ofSeconds(1),
          Duration.ofDays(1),
          "How long the outcome of a mutation is kept for a retry with the same call id.");

  public static final ConfigKey<Boolean> AUDIT =
      ConfigKey.bool(
          "braid.mds.audit",
          true,
          "Log one line per mutation and open on the logger braid.audit. The shipped logging"
              + " configuration writes it to its own file, braid-NAME-audit.log in braid.log.dir,"
              + " and drops it when braid.log.dir is not set.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(ADDRESS, ID, READ_THREADS, RETRY_CACHE_TTL, AUDIT);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MdsConfigKeys() {}

  @Override
  public String component() {
    return "mds";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
