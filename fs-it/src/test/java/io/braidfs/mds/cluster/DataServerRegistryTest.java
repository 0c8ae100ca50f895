package io.braidfs.mds.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import io.braidfs.mds.cluster.DataServer.DataDir;
import io.braidfs.mds.cluster.DataServer.Usage;
import io.braidfs.mds.cluster.DataServerRegistry.HeartbeatOutcome;
import io.braidfs.mds.cluster.DataServerRegistry.Registration;
import io.braidfs.mds.cluster.DataServerRegistry.Totals;
import io.braidfs.testing.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DataServerRegistryTest {
  private static final Duration DEAD = Duration.ofSeconds(30);

  private final ManualClock clock = new ManualClock();
  private final DataServerRegistry registry = new DataServerRegistry(BraidConfig.defaults(), clock);

  private static Registration registration(int id, String host, int port, String... storageIds) {
    List<DataDir> dirs = new ArrayList<>();
    for (String storageId : storageIds) {
      dirs.add(new DataDir("/data/" + storageId, storageId, 100));
    }
    return new Registration(id, host, port, "/rack1", dirs, 100L * storageIds.length);
  }

  private static Usage usage(long capacity, long used, long available, int transfers) {
    return new Usage(capacity, used, available, transfers);
  }

  // ---- ids ----------------------------------------------------------------------------------

  @Test
  void aLiveServersIdCannotBeClaimedByAnotherServer() {
    int id = registry.register(registration(0, "h1", 9000, "s-a")).id();
    assertThatThrownBy(() -> registry.register(registration(id, "h2", 9000, "s-clone")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("held by live server h1:9000");
    assertThat(registry.servers()).singleElement().extracting(DataServer::host).isEqualTo("h1");
    // Once the holder is dead, the id may move (a server rebuilt on new hardware).
    clock.advance(DEAD);
    assertThat(registry.register(registration(id, "h2", 9000, "s-new")).host()).isEqualTo("h2");
  }

  @Test
  void assignsIdsFromOneInRegistrationOrder() {
    DataServer a = registry.register(registration(0, "h1", 9000, "s-a"));
    DataServer b = registry.register(registration(0, "h2", 9000, "s-b"));
    assertThat(a.id()).isEqualTo(1);
    assertThat(b.id()).isEqualTo(2);
    assertThat(a.live()).isTrue();
    assertThat(a.endpoint()).isEqualTo("h1:9000");
    assertThat(registry.servers()).extracting(DataServer::id).containsExactly(1, 2);
  }

  @Test
  void aServerKeepsItsIdWhenItRegistersAgainWithIt() {
    int id = registry.register(registration(0, "h1", 9000, "s-a")).id();
    registry.register(registration(0, "h2", 9000, "s-b"));
    // Restarted on another port, with another disk added: same id, new address.
    DataServer again = registry.register(registration(id, "h1", 9100, "s-a", "s-c"));
    assertThat(again.id()).isEqualTo(id);
    assertThat(again.port()).isEqualTo(9100);
    assertThat(again.dataDirs()).extracting(DataDir::storageId).containsExactly("s-a", "s-c");
    assertThat(registry.servers()).hasSize(2);
  }

  @Test
  void aRetryWithoutIdAtTheSameAddressAndDisksGetsTheSameId() {
    int id = registry.register(registration(0, "h1", 9000, "s-a", "s-b")).id();
    // The answer was lost; the server retries before it could persist its id.
    assertThat(registry.register(registration(0, "H1", 9000, "s-b", "s-a")).id()).isEqualTo(id);
    assertThat(registry.servers()).hasSize(1);
  }

  @Test
  void aNewServerAtAKnownAddressGetsANewIdAndTheOldOneIsReportedOnce() {
    int old = registry.register(registration(0, "h1", 9000, "s-a")).id();
    // Reinstalled with fresh disks at the same address: a different server.
    int fresh = registry.register(registration(0, "h1", 9000, "s-new")).id();
    assertThat(fresh).isNotEqualTo(old);
    assertThat(registry.servers()).extracting(DataServer::id).containsExactly(fresh);
    assertThat(registry.heartbeat(old, usage(1, 0, 1, 0))).isEqualTo(HeartbeatOutcome.UNKNOWN);
    assertThat(registry.expireDeadServers())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.id()).isEqualTo(old);
              assertThat(d.live()).isFalse();
            });
    assertThat(registry.expireDeadServers()).isEmpty();
  }

  @Test
  void anUnknownPersistedIdIsAdoptedAndNeverAssignedAgain() {
    // After an MDS restart, servers come back with the ids they persisted.
    assertThat(registry.register(registration(7, "h1", 9000, "s-a")).id()).isEqualTo(7);
    assertThat(registry.register(registration(0, "h2", 9000, "s-b")).id()).isEqualTo(8);
    assertThat(registry.register(registration(3, "h3", 9000, "s-c")).id()).isEqualTo(3);
    assertThat(registry.register(registration(0, "h4", 9000, "s-d")).id()).isEqualTo(9);
    // Unsigned: the largest u32 is a valid id, and the servers stay in unsigned order.
    assertThat(registry.register(registration(-1, "h5", 9000, "s-e")).id()).isEqualTo(-1);
    assertThat(registry.servers()).extracting(DataServer::id).containsExactly(3, 7, 8, 9, -1);
    assertThatThrownBy(() -> registry.register(registration(0, "h6", 9000, "s-f")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ids");
  }

  @Test
  void heartbeatsFromUnknownServersAskThemToRegister() {
    assertThat(registry.heartbeat(42, usage(1, 0, 1, 0))).isEqualTo(HeartbeatOutcome.UNKNOWN);
    assertThat(registry.servers()).isEmpty();
    assertThat(registry.server(42)).isNull();
  }

  // ---- heartbeats and liveness --------------------------------------------------------------

  @Test
  void aHeartbeatRecordsUsageAndTime() {
    int id = registry.register(registration(0, "h1", 9000, "s-a")).id();
    assertThat(registry.server(id).usage())
        .isEqualTo(new Usage(100, 0, 0, 0, List.of(new DataServer.DirSpace("", 100, 0, 0))));
    clock.advance(Duration.ofSeconds(3));
    assertThat(registry.heartbeat(id, usage(100, 30, 60, 5))).isEqualTo(HeartbeatOutcome.ACCEPTED);
    DataServer s = registry.server(id);
    assertThat(s.usage()).isEqualTo(usage(100, 30, 60, 5));
    assertThat(s.lastHeartbeatNanos()).isEqualTo(Duration.ofSeconds(3).toNanos());
  }

  @Test
  void aServerDiesExactlyWhenTheDeadIntervalHasPassedAndNotBefore() {
    int id = registry.register(registration(0, "h1", 9000, "s-a")).id();
    clock.advance(Duration.ofSeconds(5));
    registry.heartbeat(id, usage(100, 0, 100, 0));

    clock.advance(DEAD.minusNanos(1));
    assertThat(registry.server(id).live()).isTrue();
    assertThat(registry.liveServers()).hasSize(1);
    assertThat(registry.expireDeadServers()).isEmpty();

    clock.advance(Duration.ofNanos(1));
    assertThat(registry.server(id).live()).isFalse();
    assertThat(registry.liveServers()).isEmpty();
    assertThat(registry.expireDeadServers()).extracting(DataServer::id).containsExactly(id);
    assertThat(registry.expireDeadServers()).as("reported once").isEmpty();
    assertThat(registry.servers()).as("dead servers stay known").hasSize(1);
  }

  @Test
  void theNextHeartbeatRevivesADeadServer() {
    int id = registry.register(registration(0, "h1", 9000, "s-a")).id();
    clock.advance(DEAD);
    assertThat(registry.expireDeadServers()).hasSize(1);

    assertThat(registry.heartbeat(id, usage(100, 0, 100, 0))).isEqualTo(HeartbeatOutcome.REVIVED);
    assertThat(registry.server(id).live()).isTrue();
    assertThat(registry.heartbeat(id, usage(100, 0, 100, 0))).isEqualTo(HeartbeatOutcome.ACCEPTED);

    // It can die again, and is reported again.
    clock.advance(DEAD);
    assertThat(registry.expireDeadServers()).extracting(DataServer::id).containsExactly(id);
  }

  @Test
  void aHeartbeatAfterTheIntervalRevivesEvenWhenNobodySwept() {
    int id = registry.register(registration(0, "h1", 9000, "s-a")).id();
    clock.advance(DEAD.plusSeconds(1));
    assertThat(registry.heartbeat(id, usage(100, 0, 100, 0))).isEqualTo(HeartbeatOutcome.REVIVED);
    assertThat(registry.expireDeadServers()).as("alive by the time of the sweep").isEmpty();
  }

  @Test
  void registeringAgainRevivesAServer() {
    int id = registry.register(registration(0, "h1", 9000, "s-a")).id();
    clock.advance(DEAD);
    registry.expireDeadServers();
    assertThat(registry.register(registration(id, "h1", 9000, "s-a")).live()).isTrue();
    assertThat(registry.liveServers()).extracting(DataServer::id).containsExactly(id);
    assertThat(registry.heartbeat(id, usage(100, 0, 100, 0))).isEqualTo(HeartbeatOutcome.ACCEPTED);
  }

  @Test
  void liveServersListsOnlyTheLiveInIdOrder() {
    int a = registry.register(registration(0, "h1", 9000, "s-a")).id();
    int b = registry.register(registration(0, "h2", 9000, "s-b")).id();
    int c = registry.register(registration(0, "h3", 9000, "s-c")).id();
    clock.advance(Duration.ofSeconds(20));
    registry.heartbeat(c, usage(100, 0, 100, 0));
    registry.heartbeat(a, usage(100, 0, 100, 0));
    clock.advance(Duration.ofSeconds(10));
    assertThat(registry.liveServers()).extracting(DataServer::id).containsExactly(a, c);
    assertThat(registry.servers())
        .extracting(DataServer::id, DataServer::live)
        .containsExactly(tuple(a, true), tuple(b, false), tuple(c, true));
  }

  // ---- totals -------------------------------------------------------------------------------

  @Test
  void totalsSumTheLiveServersOnly() {
    assertThat(registry.totals()).isEqualTo(new Totals(0, 0, 0, 0));
    int a = registry.register(registration(0, "h1", 9000, "s-a")).id();
    int b = registry.register(registration(0, "h2", 9000, "s-b")).id();
    int c = registry.register(registration(0, "h3", 9000, "s-c")).id();
    registry.heartbeat(a, usage(1000, 100, 800, 1));
    registry.heartbeat(b, usage(2000, 500, 1400, 2));
    registry.heartbeat(c, usage(4000, 1000, 2900, 3));
    assertThat(registry.totals()).isEqualTo(new Totals(7000, 1600, 5100, 3));

    clock.advance(Duration.ofSeconds(29));
    registry.heartbeat(a, usage(1000, 200, 700, 0));
    registry.heartbeat(c, usage(4000, 1000, 2900, 3));
    clock.advance(Duration.ofSeconds(1)); // b is dead now
    assertThat(registry.totals()).isEqualTo(new Totals(5000, 1200, 3600, 2));
  }

  private static Usage onDisks(long capacity, long used, long available, String... fileSystems) {
    List<DataServer.DirSpace> dirs = new ArrayList<>();
    for (String fs : fileSystems) {
      dirs.add(new DataServer.DirSpace(fs, capacity, used, available));
    }
    int n = fileSystems.length;
    return new Usage(n * capacity, n * used, n * available, 0, dirs);
  }

  @Test
  void totalsCountEachFileSystemOnce() {
    int a = registry.register(registration(0, "h1", 9000, "s-a")).id();
    int b = registry.register(registration(0, "h1", 9001, "s-b")).id();
    int c = registry.register(registration(0, "h2", 9000, "s-c")).id();
    // a has two dirs on one disk, b one dir on the same disk, c its own disk and an unnamed one.
    registry.heartbeat(a, onDisks(1000, 100, 700, "h1:dev:1", "h1:dev:1"));
    registry.heartbeat(b, onDisks(1000, 50, 700, "h1:dev:1"));
    registry.heartbeat(c, onDisks(400, 10, 300, "h2:dev:1", ""));
    // h1's disk: capacity 1000, used 250, available 700; h2's 400/10/300; the unnamed 400/10/300.
    assertThat(registry.totals()).isEqualTo(new Totals(1800, 270, 1300, 3));
    // A server reporting no dirs is a file system of its own.
    registry.heartbeat(c, usage(400, 10, 300, 0));
    assertThat(registry.totals()).isEqualTo(new Totals(1400, 260, 1000, 3));
  }

  @Test
  void totalsSaturateInsteadOfOverflowing() {
    int a = registry.register(registration(0, "h1", 9000, "s-a")).id();
    int b = registry.register(registration(0, "h2", 9000, "s-b")).id();
    registry.heartbeat(a, usage(Long.MAX_VALUE, 0, Long.MAX_VALUE, 0));
    registry.heartbeat(b, usage(Long.MAX_VALUE, 1, Long.MAX_VALUE, 0));
    assertThat(registry.totals()).isEqualTo(new Totals(Long.MAX_VALUE, 1, Long.MAX_VALUE, 2));
  }

  // ---- configuration and arguments ----------------------------------------------------------

  @Test
  void readsItsIntervalsFromTheDiscoveredKeys() {
    assertThat(ConfigKeyRegistry.discover().keys())
        .containsKeys(
            "braid.mds.cluster.heartbeat-interval",
            "braid.mds.cluster.dead-interval",
            "braid.mds.cluster.min-free",
            "braid.mds.cluster.busy-transfers");
    assertThat(registry.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(registry.deadInterval()).isEqualTo(DEAD);
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                "braid.mds.cluster.heartbeat-interval", "100ms",
                "braid.mds.cluster.dead-interval", "1s"));
    assertThat(config.unknownKeys()).isEmpty();
    DataServerRegistry fast = new DataServerRegistry(config, clock);
    int id = fast.register(registration(0, "h1", 9000, "s-a")).id();
    clock.advance(Duration.ofSeconds(1));
    assertThat(fast.expireDeadServers()).extracting(DataServer::id).containsExactly(id);
  }

  @Test
  void refusesADeadIntervalNoLongerThanTheHeartbeatInterval() {
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                "braid.mds.cluster.heartbeat-interval", "5s",
                "braid.mds.cluster.dead-interval", "5s"));
    assertThatThrownBy(() -> new DataServerRegistry(config, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("braid.mds.cluster.dead-interval")
        .hasMessageContaining("braid.mds.cluster.heartbeat-interval");
  }

  @Test
  void refusesInvalidRegistrationsAndUsage() {
    assertThatThrownBy(() -> registration(0, " ", 9000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("host");
    assertThatThrownBy(() -> registration(0, "h1", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port");
    assertThatThrownBy(() -> registration(0, "h1", 65536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port");
    assertThatThrownBy(() -> new Registration(0, "h1", 9000, "", List.of(), -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacityBytes");
    assertThatThrownBy(() -> usage(100, -1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
    assertThatThrownBy(() -> usage(100, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
  }

  // ---- concurrency --------------------------------------------------------------------------

  @Test
  void heartbeatsFromManyThreadsAreAllRecorded() throws Exception {
    int threads = 8;
    int beats = 2_000;
    List<Integer> ids = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ids.add(registry.register(registration(0, "h" + t, 9000, "s-" + t)).id());
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = ids.get(t);
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 1; i <= beats; i++) {
                    assertThat(registry.heartbeat(id, usage(10_000, i, 10_000 - i, i % 7)))
                        .isEqualTo(HeartbeatOutcome.ACCEPTED);
                  }
                }));
      }
      futures.add(
          pool.submit(
              () -> {
                for (int i = 0; i < beats; i++) {
                  Totals totals = registry.totals();
                  assertThat(totals.liveServers()).isEqualTo(threads);
                  assertThat(totals.capacityBytes()).isBetween(100L * threads, 10_000L * threads);
                  assertThat(registry.expireDeadServers()).isEmpty();
                }
              }));
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(registry.totals())
        .isEqualTo(new Totals(10_000L * threads, 2_000L * threads, 8_000L * threads, threads));
  }
}
