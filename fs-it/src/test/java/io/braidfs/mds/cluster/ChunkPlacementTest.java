package io.braidfs.mds.cluster;

import static io.braidfs.mds.cluster.ClusterFixture.layout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ChunkPlacementTest {
  private static final int SEEDS = 50;
  private static final int DRAWS = 10_000;

  private final ClusterFixture cluster = new ClusterFixture();

  private static void assertStatus(Status status, ThrowingCallable call, String... fragments) {
    assertThatThrownBy(call)
        .isInstanceOf(IOException.class)
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(status))
        .hasMessageContainingAll(fragments);
  }

  private static Set<Integer> ids(List<DataServer> servers) {
    return servers.stream().map(DataServer::id).collect(Collectors.toSet());
  }

  private static Set<String> hosts(List<DataServer> servers) {
    return servers.stream().map(DataServer::hostKey).collect(Collectors.toSet());
  }

  // ---- the invariants over many shapes and seeds --------------------------------------------

  static Stream<Arguments> shapes() {
    List<Arguments> shapes = new ArrayList<>();
    for (int servers = 1; servers <= 8; servers++) {
      for (int hosts = 1; hosts <= Math.min(4, servers); hosts++) {
        for (int width = 1; width <= 4; width++) {
          for (int replication = 1; replication <= 3; replication++) {
            shapes.add(Arguments.of(servers, hosts, width, replication));
          }
        }
      }
    }
    return shapes.stream();
  }

  @ParameterizedTest(name = "{0} servers on {1} hosts, width {2}, replication {3}")
  @MethodSource("shapes")
  void replicasAreOnDistinctServersAndHostsAndChunksSpreadOut(
      int servers, int hosts, int width, int replication) throws IOException {
    for (int seed = 0; seed < SEEDS; seed++) {
      ClusterFixture c = new ClusterFixture();
      Random shape = new Random(seed);
      for (int i = 0; i < servers; i++) {
        c.add(i % hosts, 8 + shape.nextInt(1000), shape.nextInt(20));
      }
      Layout layout = layout(width, replication);
      ChunkPlacement placement = c.placement(seed);
      String client = shape.nextBoolean() ? null : "h" + shape.nextInt(hosts + 1);
      if (servers < replication) {
        assertStatus(
            Status.UNAVAILABLE,
            () -> placement.chooseChunkSet(layout, client),
            "needs " + replication,
            "in service, " + servers);
        continue;
      }
      List<List<DataServer>> set = placement.chooseChunkSet(layout, client);
      assertThat(set).hasSize(width);
      for (List<DataServer> chunk : set) {
        assertThat(chunk).hasSize(replication);
        assertThat(ids(chunk)).as("distinct servers, seed %d", seed).hasSize(replication);
        assertThat(hosts(chunk))
            .as("distinct hosts when there are enough, seed %d", seed)
            .hasSize(Math.min(hosts, replication));
        assertThat(chunk).allMatch(DataServer::live);
      }
      List<DataServer> heads = set.stream().map(chunk -> chunk.get(0)).toList();
      assertThat(ids(heads))
          .as("heads on different servers when possible, seed %d", seed)
          .hasSize(Math.min(servers, width));
      if (hosts == servers) {
        Set<Integer> used = new HashSet<>();
        set.forEach(chunk -> used.addAll(ids(chunk)));
        assertThat(used)
            .as("the set spreads over as many servers as it can, seed %d", seed)
            .hasSize(Math.min(servers, width * replication));
      }
    }
  }

  @Test
  void theSameSeedGivesTheSameChoices() throws IOException {
    for (int i = 0; i < 8; i++) {
      cluster.add(i % 3, 100 + 50 * i, i);
    }
    Layout layout = layout(4, 3);
    List<List<List<DataServer>>> first = new ArrayList<>();
    List<List<List<DataServer>>> second = new ArrayList<>();
    ChunkPlacement a = cluster.placement(7);
    ChunkPlacement b = cluster.placement(7);
    for (int i = 0; i < 20; i++) {
      first.add(a.chooseChunkSet(layout, null));
    }
    for (int i = 0; i < 20; i++) {
      second.add(b.chooseChunkSet(layout, null));
    }
    assertThat(second).isEqualTo(first);
  }

  // ---- capacity and load --------------------------------------------------------------------

  @Test
  void theEmptiestServersAreChosenMostOften() throws IOException {
    int full1 = cluster.add(0, 101, 0).id();
    int full2 = cluster.add(1, 101, 0).id();
    int full3 = cluster.add(2, 101, 0).id();
    int empty = cluster.add(3, 701, 0).id();
    Map<Integer, Integer> counts = countHeads(layout(1, 1), DRAWS);
    // Room is available - 1 MiB reserve: 700 of 1000 MiB, so about 70% of the draws.
    assertThat(counts.get(empty)).isBetween(DRAWS * 60 / 100, DRAWS * 80 / 100);
    for (int id : List.of(full1, full2, full3)) {
      assertThat(counts.get(id)).isBetween(DRAWS * 5 / 100, DRAWS * 15 / 100);
    }
  }

  @Test
  void busyServersAreChosenLessOften() throws IOException {
    int idle1 = cluster.add(0, 501, 0).id();
    int idle2 = cluster.add(1, 501, 0).id();
    int idle3 = cluster.add(2, 501, 0).id();
    // 24 transfers, three times busy-transfers (8): a quarter of the weight.
    int busy = cluster.add(3, 501, 24).id();
    Map<Integer, Integer> counts = countHeads(layout(1, 1), DRAWS);
    // Expected: busy 0.25 / 3.25 = 7.7%, idle 30.8% each.
    assertThat(counts.get(busy)).isBetween(DRAWS * 4 / 100, DRAWS * 12 / 100);
    for (int id : List.of(idle1, idle2, idle3)) {
      assertThat(counts.get(id)).isBetween(DRAWS * 25 / 100, DRAWS * 36 / 100);
    }
  }

  private Map<Integer, Integer> countHeads(Layout layout, int draws) throws IOException {
    ChunkPlacement placement = cluster.placement(42);
    Map<Integer, Integer> counts = new HashMap<>();
    for (DataServer s : cluster.registry.liveServers()) {
      counts.put(s.id(), 0);
    }
    for (int i = 0; i < draws; i++) {
      counts.merge(placement.chooseChunkSet(layout, null).get(0).get(0).id(), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void serversWithoutRoomBeyondTheReserveAreNeverChosen() throws IOException {
    // Available 1 MiB: exactly the reserve, no room for a 64 KiB chunk beyond it.
    int atReserve = cluster.add(0, 1, 0).id();
    cluster.add(1, 100, 0);
    cluster.add(2, 100, 0);
    ChunkPlacement placement = cluster.placement(1);
    for (int i = 0; i < 200; i++) {
      for (List<DataServer> chunk : placement.chooseChunkSet(layout(2, 2), null)) {
        assertThat(ids(chunk)).doesNotContain(atReserve);
      }
    }
    assertStatus(
        Status.NO_SPACE,
        () -> placement.chooseChunkSet(layout(1, 3), null),
        "needs 3",
        "2 of the 3 live",
        "64KiB chunk",
        "1MiB reserve");
  }

  @Test
  void aServerIsGivenNoMoreChunksInOneSetThanItHasRoomFor() throws IOException {
    long oneChunk = 1 * ClusterFixture.MIB + ClusterFixture.CHUNK;
    for (int host = 0; host < 4; host++) {
      int id = cluster.add(host, 1, 0).id();
      cluster.registry.heartbeat(id, new DataServer.Usage(oneChunk, 0, oneChunk, 0));
    }
    List<List<DataServer>> set = cluster.placement(3).chooseChunkSet(layout(4, 1), null);
    assertThat(set.stream().map(chunk -> chunk.get(0).id()).distinct()).hasSize(4);
    assertStatus(
        Status.NO_SPACE,
        () -> cluster.placement(3).chooseChunkSet(layout(3, 2), null),
        "chunk 2 of 3",
        "4 live");
  }

  @Test
  void aServerIsNotChosenBeforeItsFirstHeartbeat() throws IOException {
    cluster.add(0, 100, 0);
    cluster.add(1, 100, 0);
    DataServer silent =
        cluster.registry.register(
            new DataServerRegistry.Registration(0, "h9", 9999, "", List.of(), 1 << 30));
    ChunkPlacement placement = cluster.placement(5);
    for (int i = 0; i < 100; i++) {
      assertThat(ids(placement.chooseChunkSet(layout(1, 2), null).get(0)))
          .doesNotContain(silent.id());
    }
    // Three servers are needed and one has not reported its room yet: wait (BUSY, which clients
    // retry), not "full".
    assertStatus(
        Status.BUSY,
        () -> placement.chooseChunkSet(layout(1, 3), null),
        "1 data servers registered but have not reported their room yet");
  }

  // ---- liveness -----------------------------------------------------------------------------

  @Test
  void deadServersAreNeverChosen() throws IOException {
    List<Integer> doomed = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      DataServer s = cluster.add(i, 100, 0);
      if (i % 2 == 0) {
        doomed.add(s.id());
      }
    }
    cluster.clock.advance(Duration.ofSeconds(29));
    for (DataServer s : cluster.registry.liveServers()) {
      if (!doomed.contains(s.id())) {
        cluster.registry.heartbeat(s.id(), s.usage());
      }
    }
    cluster.clock.advance(Duration.ofSeconds(1));
    for (int seed = 0; seed < 200; seed++) {
      for (List<DataServer> chunk : cluster.placement(seed).chooseChunkSet(layout(3, 3), null)) {
        assertThat(ids(chunk)).doesNotContainAnyElementsOf(doomed);
      }
    }
  }

  @Test
  void tooFewLiveServersIsUnavailable() throws IOException {
    int a = cluster.add(0, 100, 0).id();
    cluster.add(1, 100, 0);
    cluster.add(2, 100, 0);
    ChunkPlacement placement = cluster.placement(9);
    assertThat(placement.chooseChunkSet(layout(1, 3), null).get(0)).hasSize(3);

    cluster.clock.advance(Duration.ofSeconds(20));
    cluster.registry.heartbeat(a, cluster.registry.server(a).usage());
    cluster.clock.advance(Duration.ofSeconds(10));
    assertStatus(
        Status.UNAVAILABLE,
        () -> placement.chooseChunkSet(layout(1, 3), null),
        "replication 3 needs 3 live data servers in service, 1");
    assertThat(placement.chooseChunkSet(layout(4, 1), null)).allMatch(c -> c.get(0).id() == a);
  }

  @Test
  void everyChunkSpansTwoRacksWhenThereAreTwo() throws IOException {
    for (int i = 0; i < 6; i++) {
      cluster.add(i, i < 4 ? "/r1" : "/r2", 100 + 50 * i, 0);
    }
    ChunkPlacement placement = cluster.placement(11);
    for (int round = 0; round < 20; round++) {
      for (List<DataServer> chunk : placement.chooseChunkSet(layout(3, 3), null)) {
        assertThat(chunk.stream().map(DataServer::rack).distinct()).hasSize(2);
      }
    }
  }

  @Test
  void duringTheStartupGraceTooFewServersIsBusyNotUnavailable() throws IOException {
    BraidConfig graceful =
        BraidConfig.builder()
            .set(MdsClusterConfigKeys.MIN_FREE, ClusterFixture.MIN_FREE)
            .set(MdsClusterConfigKeys.STARTUP_GRACE, Duration.ofSeconds(10))
            .build();
    DataServerRegistry registry = new DataServerRegistry(graceful, cluster.clock);
    ChunkPlacement placement = new ChunkPlacement(registry, graceful, new Random(1));
    assertStatus(
        Status.BUSY,
        () -> placement.chooseChunkSet(layout(1, 3), null),
        "data servers are still registering");
    cluster.clock.advance(Duration.ofSeconds(10));
    assertStatus(
        Status.UNAVAILABLE,
        () -> placement.chooseChunkSet(layout(1, 3), null),
        "needs 3 live data servers in service, 0");
  }

  @Test
  void serversNotInServiceGetNoNewReplicasAndRepairLeavesTheSurvivorsRack() throws IOException {
    int a = cluster.add(0, "/r1", 100, 0).id();
    int b = cluster.add(1, "/r1", 100, 0).id();
    int draining = cluster.add(2, "/r2", 900, 0).id();
    int sameRack = cluster.add(3, "/r1", 900, 0).id();
    int otherRack = cluster.add(4, "/r2", 10, 0).id();
    cluster.registry.setState(draining, AdminState.DECOMMISSIONING);
    ChunkPlacement placement = cluster.placement(3);
    for (int i = 0; i < 20; i++) {
      assertThat(placement.chooseChunkSet(layout(2, 2), null))
          .allSatisfy(c -> assertThat(c).noneMatch(s -> s.id() == draining));
      // Both survivors on /r1: the copy goes to /r2 although /r1 has a server with more room.
      assertThat(placement.chooseRepairTarget(ClusterFixture.CHUNK, List.of(a, b), Set.of()).id())
          .isEqualTo(otherRack);
    }
    cluster.registry.setState(otherRack, AdminState.IN_MAINTENANCE);
    assertThat(placement.chooseRepairTarget(ClusterFixture.CHUNK, List.of(a, b), Set.of()).id())
        .isEqualTo(sameRack);
    cluster.registry.setState(sameRack, AdminState.DECOMMISSIONED);
    assertStatus(
        Status.UNAVAILABLE,
        () -> placement.chooseRepairTarget(ClusterFixture.CHUNK, List.of(a, b), Set.of()),
        "needs a live data server in service");
  }

  // ---- replacement --------------------------------------------------------------------------

  @Test
  void aReplacementAvoidsTheHoldersTheFailedServerAndTheirHosts() throws IOException {
    int s1 = cluster.add(0, 100, 0).id();
    int s2 = cluster.add(1, 100, 0).id();
    int failed = cluster.add(2, 100, 0).id();
    int sameHostAsS1 = cluster.add(0, 900, 0).id();
    int newHost = cluster.add(3, 10, 0).id();
    for (int seed = 0; seed < 100; seed++) {
      DataServer chosen =
          cluster.placement(seed).chooseReplacement(layout(1, 3), List.of(s1, s2, failed), failed);
      assertThat(chosen.id()).as("seed %d", seed).isEqualTo(newHost);
    }
    // Without newHost, a server on a surviving holder's host is better than nothing.
    cluster.clock.advance(Duration.ofSeconds(29));
    cluster.heartbeatAllLive();
    cluster.registry.heartbeat(newHost, new DataServer.Usage(0, 0, 0, 0)); // full
    DataServer chosen =
        cluster.placement(0).chooseReplacement(layout(1, 3), List.of(s1, s2), failed);
    assertThat(chosen.id()).isEqualTo(sameHostAsS1);
  }

  @Test
  void aReplacementFailsWithTheRightStatus() throws IOException {
    int s1 = cluster.add(0, 100, 0).id();
    int s2 = cluster.add(1, 100, 0).id();
    int failed = cluster.add(2, 100, 0).id();
    assertStatus(
        Status.UNAVAILABLE,
        () -> cluster.placement(0).chooseReplacement(layout(1, 3), List.of(s1, s2), failed),
        "needs a live data server in service besides the 3 excluded",
        "3 in service");
    int full = cluster.add(3, 1, 0).id();
    assertStatus(
        Status.NO_SPACE,
        () -> cluster.placement(0).chooseReplacement(layout(1, 3), List.of(s1, s2), failed),
        "0 of the 1 live non-holders");
    cluster.report(full, 50, 0);
    assertThat(
            cluster.placement(0).chooseReplacement(layout(1, 3), List.of(s1, s2, failed), failed))
        .extracting(DataServer::id)
        .isEqualTo(full);
  }

  // ---- chain order --------------------------------------------------------------------------

  @Test
  void theChainStartsOnTheClientsHostThenItsRackThenTheLeastLoaded() throws IOException {
    int farBusy = cluster.add(0, "/r1", 100, 9).id();
    int sameRack = cluster.add(1, "/r2", 100, 7).id();
    int farIdle = cluster.add(2, "/r1", 100, 1).id();
    int local = cluster.add(3, "/r2", 100, 5).id();
    Layout three = layout(1, 3);
    Layout four = layout(1, 4);
    for (int seed = 0; seed < 50; seed++) {
      List<DataServer> chain = cluster.placement(seed).chooseChunkSet(four, "H3").get(0);
      assertThat(chain)
          .extracting(DataServer::id)
          .containsExactly(local, sameRack, farIdle, farBusy);
      // Unknown client: least loaded first.
      chain = cluster.placement(seed).chooseChunkSet(four, null).get(0);
      assertThat(chain)
          .extracting(DataServer::id)
          .containsExactly(farIdle, local, sameRack, farBusy);
    }
    // A client on a host without data servers and without a known rack: by load.
    List<DataServer> chain = cluster.placement(0).chooseChunkSet(three, "elsewhere").get(0);
    assertThat(chain)
        .isSortedAccordingTo(
            (x, y) -> Integer.compare(x.usage().activeTransfers(), y.usage().activeTransfers()));
    // The same order from the standalone method.
    List<DataServer> all = cluster.registry.liveServers();
    assertThat(cluster.placement(0).chainOrder(all, "h1"))
        .extracting(DataServer::id)
        .containsExactly(sameRack, local, farIdle, farBusy);
  }

  @Test
  void readersGetTheReplicaOnTheirHostFirstThenTheirRackThenTheStoredOrder() throws IOException {
    DataServer far = cluster.add(0, "/r1", 100, 0);
    DataServer sameRack = cluster.add(1, "/r2", 100, 9);
    DataServer farther = cluster.add(3, "/r1", 100, 0);
    DataServer local = cluster.add(2, "/r2", 100, 5);
    List<DataServer> stored = List.of(far, sameRack, farther, local);
    assertThat(cluster.placement(0).readOrder(stored, "H2"))
        .containsExactly(local, sameRack, far, farther);
    // Load does not reorder replicas that are equally near: the busy one stays where it was.
    assertThat(cluster.placement(0).readOrder(stored, "elsewhere")).isEqualTo(stored);
    assertThat(cluster.placement(0).readOrder(stored, null)).isEqualTo(stored);
  }

  @Test
  void chainHeadsStayDistinctWhenTheClientIsOnADataServer() throws IOException {
    for (int host = 0; host < 4; host++) {
      cluster.add(host, 100, 0);
    }
    int local = cluster.registry.liveServers().get(0).id();
    for (int seed = 0; seed < 100; seed++) {
      List<List<DataServer>> set = cluster.placement(seed).chooseChunkSet(layout(4, 3), "h0");
      assertThat(ids(set.stream().map(chunk -> chunk.get(0)).toList())).hasSize(4);
      // The local server holds 3 of the 4 chunks or all of them, and heads exactly one.
      assertThat(set.stream().filter(chunk -> chunk.get(0).id() == local)).hasSize(1);
      for (List<DataServer> chunk : set) {
        // Behind the head, the local server comes first.
        List<DataServer> rest = chunk.subList(1, 3);
        if (ids(rest).contains(local)) {
          assertThat(rest.get(0).id()).isEqualTo(local);
        }
      }
    }
  }

  @Test
  void replicaLocationsCarryTheAddress() throws IOException {
    DataServer s = cluster.add(5, "/dc1/rack7", 100, 0);
    assertThat(s.toReplicaLocation().getServerId()).isEqualTo(s.id());
    assertThat(s.toReplicaLocation().getHost()).isEqualTo("h5");
    assertThat(s.toReplicaLocation().getPort()).isEqualTo(s.port());
    assertThat(s.toReplicaLocation().getRack()).isEqualTo("/dc1/rack7");
  }
}
