package io.braidfs.mds.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.DataSize;
import io.braidfs.common.layout.Layout;
import io.braidfs.mds.cluster.DataServer.DataDir;
import io.braidfs.mds.cluster.DataServer.Usage;
import io.braidfs.mds.cluster.DataServerRegistry.HeartbeatOutcome;
import io.braidfs.mds.cluster.DataServerRegistry.Registration;
import io.braidfs.testing.ManualClock;
import java.util.List;
import java.util.Random;

/**
 * A registry on a {@link ManualClock} with tiny fake capacities, and a placement over it, for the
 * tests of this package. Servers register as {@code h<host>:<9000 + n>}; sizes are in MiB.
 *
 * <p>Thread-safety: as thread-safe as the registry; tests use it from one thread.
 */
final class ClusterFixture {
  static final long MIB = 1L << 20;

  /** Chunks of 64 KiB: four 16 KiB stripe units. */
  static final long CHUNK = 64L << 10;

  /** The reserve the fixture configures: 1 MiB instead of the 1 GiB default. */
  static final DataSize MIN_FREE = DataSize.ofMiB(1);

  final ManualClock clock = new ManualClock();
  final BraidConfig config =
      BraidConfig.builder()
          .set(MdsClusterConfigKeys.MIN_FREE, MIN_FREE)
          .set(MdsClusterConfigKeys.STARTUP_GRACE, java.time.Duration.ZERO)
          .build();
  final DataServerRegistry registry = new DataServerRegistry(config, clock);

  private int registered;

  static Layout layout(int width, int replication) {
    return Layout.of(16 << 10, width, CHUNK, replication);
  }

  ChunkPlacement placement(long seed) {
    return new ChunkPlacement(registry, config, new Random(seed));
  }

  /** Registers a new server on host {@code h<host>} (rack {@code rack}) and heartbeats for it. */
  DataServer add(int host, String rack, long availableMiB, int activeTransfers) {
    int n = registered++;
    DataServer s =
        registry.register(
            new Registration(
                0,
                "h" + host,
                9000 + n,
                rack,
                List.of(new DataDir("/data/" + n, "storage-" + n, 1024 * MIB)),
                1024 * MIB));
    report(s.id(), availableMiB, activeTransfers);
    return s;
  }

  /** As {@link #add(int, String, long, int)} with no rack. */
  DataServer add(int host, long availableMiB, int activeTransfers) {
    return add(host, "", availableMiB, activeTransfers);
  }

  /** Heartbeats for {@code id}: {@code availableMiB} available, of which the reserve is 1 MiB. */
  void report(int id, long availableMiB, int activeTransfers) {
    long available = availableMiB * MIB;
    HeartbeatOutcome outcome =
        registry.heartbeat(
            id, new Usage(1024 * MIB, 1024 * MIB - available, available, activeTransfers));
    assertThat(outcome).isNotEqualTo(HeartbeatOutcome.UNKNOWN);
  }

  /** Heartbeats again for every live server, keeping its usage. */
  void heartbeatAllLive() {
    for (DataServer s : registry.liveServers()) {
      registry.heartbeat(s.id(), s.usage());
    }
  }
}
