package io.braidfs.mds.cluster;

import io.braidfs.common.config.BraidConfig;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The rack of each data server host ({@link MdsClusterConfigKeys#TOPOLOGY}): a host mapped there is
 * in its mapped rack whatever its servers report, one that is not keeps the rack its servers report
 * ({@code braid.dataserver.rack}), and one with neither is in {@link #DEFAULT_RACK}. Hosts compare
 * ignoring case, as {@link DataServer#hostKey()} does.
 *
 * <p>Thread-safety: immutable.
 */
public final class Topology {
  /** The rack of a server nobody placed in one (HDFS's name). */
  public static final String DEFAULT_RACK = "/default-rack";

  private final Map<String, String> racks;

  private Topology(Map<String, String> racks) {
    this.racks = Map.copyOf(racks);
  }

  /**
   * Reads {@link MdsClusterConfigKeys#TOPOLOGY}.
   *
   * @throws IllegalArgumentException if an entry is not {@code host=/rack}
   */
  public static Topology from(BraidConfig config) {
    Map<String, String> racks = new HashMap<>();
    for (String entry : config.get(MdsClusterConfigKeys.TOPOLOGY)) {
      int eq = entry.indexOf('=');
      String host = eq < 0 ? "" : entry.substring(0, eq).strip();
      String rack = eq < 0 ? "" : entry.substring(eq + 1).strip();
      if (host.isEmpty() || !rack.startsWith("/") || rack.length() < 2) {
        throw new IllegalArgumentException(
            MdsClusterConfigKeys.TOPOLOGY
                + ": entry '"
                + entry
                + "' is not host=/rack (such as 10.0.0.7=/dc1/rack2)");
      }
      racks.put(host.toLowerCase(Locale.ROOT), rack);
    }
    return new Topology(racks);
  }

  /** No mapping: every server keeps the rack it reports. */
  public static Topology none() {
    return new Topology(Map.of());
  }

  /** The rack of a server at {@code host} that reported {@code reported} (empty if none). */
  public String rackOf(String host, String reported) {
    String mapped = racks.get(host.toLowerCase(Locale.ROOT));
    if (mapped != null) {
      return mapped;
    }
    return reported.isBlank() ? DEFAULT_RACK : reported;
  }
}
