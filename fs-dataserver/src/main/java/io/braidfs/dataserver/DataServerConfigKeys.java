package io.braidfs.dataserver;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of a data server (component {@code dataserver}). Registered for {@link
 * java.util.ServiceLoader} in {@code META-INF/services}, and listed in {@code
 * docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class DataServerConfigKeys implements ConfigKeySet {
  public static final ConfigKey<String> ADDRESS =
      ConfigKey.string(
          "braid.dataserver.address",
          "0.0.0.0:7500",
          "host:port the data server listens on for clients and other data servers; port 0 picks"
              + " a free port.");

  public static final ConfigKey<String> ADVERTISED_HOST =
      ConfigKey.string(
          "braid.dataserver.advertised-host",
          "",
          "Host name or address clients and other data servers reach this server by, as registered"
              + " with the MDS; it must resolve at start. Empty means the listening address; when"
              + " that is a wildcard (0.0.0.0), this machine's name, which must then resolve to"
              + " addresses other than loopback (else the server refuses to start: set this key).");

  public static final ConfigKey<Integer> ADVERTISED_PORT =
      ConfigKey.integer(
          "braid.dataserver.advertised-port",
          0,
          0,
          65535,
          "Port clients reach this server by, as registered with the MDS, when it differs from the"
              + " listening port (port forwarding, NAT, a proxy); 0 means the listening port.");

  public static final ConfigKey<List<String>> DIRS =
      ConfigKey.stringList(
          "braid.dataserver.dirs",
          List.of(),
          "Data directories, one per disk; replicas are spread over them. Required.");

  public static final ConfigKey<List<String>> MDS =
      ConfigKey.stringList(
          "braid.dataserver.mds",
          List.of("127.0.0.1:7400"),
          "host:port of every MDS; the data server registers with and heartbeats to the leader.");

  public static final ConfigKey<String> RACK =
      ConfigKey.string(
          "braid.dataserver.rack",
          "",
          "Network topology path of this server (\"/dc1/rack7\"), for replica placement; empty"
              + " when unknown.");

  public static final ConfigKey<DataSize> RESERVED =
      ConfigKey.dataSize(
          "braid.dataserver.reserved",
          DataSize.ofBytes(0),
          "Space on each data directory's file system left for other users (never filled).");

  public static final ConfigKey<DataSize> CAPACITY =
      ConfigKey.dataSize(
          "braid.dataserver.capacity",
          DataSize.ofBytes(0),
          "Most bytes of replicas each data directory may hold; 0 means its file system's size.");

  public static final ConfigKey<Integer> DISK_THREADS =
      ConfigKey.integer(
          "braid.dataserver.disk-threads",
          8,
          1,
          1024,
          "Threads doing disk work; requests for one chunk always run on the same thread, in"
              + " arrival order.");

  public static final ConfigKey<Duration> ORPHAN_GRACE =
      ConfigKey.duration(
          "braid.dataserver.orphan-grace",
          Duration.ofMinutes(10),
          Duration.ZERO,
          Duration.ofDays(30),
          "How long a replica the MDS says it no longer knows is kept after start-up before it is"
              + " deleted (asked again first).");

  public static final ConfigKey<Duration> TOKEN_CLOCK_SKEW =
      ConfigKey.duration(
          "braid.dataserver.token-clock-skew",
          Duration.ofSeconds(30),
          Duration.ZERO,
          Duration.ofMinutes(10),
          "Clock difference with the MDS tolerated when checking capability token validity.");

  public static final ConfigKey<Duration> REGISTER_RETRY =
      ConfigKey.duration(
          "braid.dataserver.register-retry",
          Duration.ofSeconds(1),
          Duration.ofMillis(10),
          Duration.ofMinutes(10),
          "Pause between attempts to reach an MDS that is down or not the leader.");

  public static final ConfigKey<Duration> CHUNK_REPORT_INTERVAL =
      ConfigKey.duration(
          "braid.dataserver.chunk-report-interval",
          Duration.ofHours(1),
          Duration.ofMillis(10),
          Duration.ofDays(7),
          "How often the data server sends the MDS a full report of its replicas (besides one after"
              + " each registration and whenever the MDS asks); changes in between are reported as"
              + " they happen.");

  public static final ConfigKey<DataSize> SCRUB_BANDWIDTH =
      ConfigKey.dataSize(
          "braid.dataserver.scrub.bandwidth",
          DataSize.ofMiB(4),
          "Bytes per second the scrubber reads to re-check the CRCs of finalized replicas; 0 turns"
              + " scrubbing off.");

  public static final ConfigKey<Duration> SCRUB_INTERVAL =
      ConfigKey.duration(
          "braid.dataserver.scrub.interval",
          Duration.ofDays(14),
          Duration.ofMillis(10),
          Duration.ofDays(365),
          "Time from the start of one scrub pass over every finalized replica to the start of the"
              + " next (a pass that takes longer is followed at once).");

  public static final ConfigKey<DataSize> COPY_BANDWIDTH =
      ConfigKey.dataSize(
          "braid.dataserver.copy.bandwidth",
          DataSize.ofBytes(0),
          "Bytes per second this server copies in for re-replication (the MDS's copies), over all"
              + " of them; 0 (the default) means unlimited. A writer's own copies are never"
              + " limited. Why unlimited: in braid bench 10 (docs/benchmarks.md) the MDS's"
              + " repair-copies-per-server alone kept foreground writes at 0.74 of their speed"
              + " during a repair, the same as with a 256 MiB/s limit, while the limit cut repair"
              + " from 0.57 to 0.33 of the disk's write speed. Set it on spinning disks, or to"
              + " leave more of a disk to foreground reads.");

  public static final ConfigKey<Integer> COPY_MAX_CONCURRENT =
      ConfigKey.integer(
          "braid.dataserver.copy.max-concurrent",
          4,
          1,
          1024,
          "Re-replication copies this server makes at once; further ones wait their turn.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(
          ADDRESS,
          ADVERTISED_HOST,
          ADVERTISED_PORT,
          DIRS,
          MDS,
          RACK,
          RESERVED,
          CAPACITY,
          DISK_THREADS,
          ORPHAN_GRACE,
          TOKEN_CLOCK_SKEW,
          REGISTER_RETRY,
          CHUNK_REPORT_INTERVAL,
          SCRUB_BANDWIDTH,
          SCRUB_INTERVAL,
          COPY_BANDWIDTH,
          COPY_MAX_CONCURRENT);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public DataServerConfigKeys() {}

  @Override
  public String component() {
    return "dataserver";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
