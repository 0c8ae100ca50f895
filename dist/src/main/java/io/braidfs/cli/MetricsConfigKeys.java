package io.braidfs.cli;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.util.List;

/**
 * Where a {@code braid} server process serves its Prometheus metrics (component {@code metrics}).
 * Registered for {@link java.util.ServiceLoader}; listed in {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class MetricsConfigKeys implements ConfigKeySet {
  public static final ConfigKey<String> ADDRESS =
      ConfigKey.string(
          "braid.metrics.address",
          "",
          "host:port on which braid mds, braid dataserver and braid local serve Prometheus metrics"
              + " over HTTP (GET /metrics), for every server in the process, and the read-only"
              + " status page (GET /); port 0 picks a free port; empty: none.");

  private static final List<ConfigKey<?>> KEYS = List.of(ADDRESS);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public MetricsConfigKeys() {}

  @Override
  public String component() {
    return "metrics";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
