package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.internal.MetadataClient;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.proto.ClusterReportResponse;
import io.braidfs.proto.FailoverResponse;
import io.braidfs.proto.FsckResponse;
import io.braidfs.proto.HaStatusResponse;
import io.braidfs.proto.ServerAdminState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The admin answers as {@link BraidAdmin} returns them: every field and every enum value. */
class AdminProtosTest {
  private static io.braidfs.proto.FsckFile.Builder file(String path) {
    return io.braidfs.proto.FsckFile.newBuilder().setPath(path);
  }

  @Test
  void fsckCarriesEveryCountAndEntry() {
    FsckResponse r =
        FsckResponse.newBuilder()
            .setFiles(10)
            .setDirectories(2)
            .setChunks(30)
            .setHealthyFiles(7)
            .setUnderReplicatedFiles(1)
            .setCorruptFiles(1)
            .setMissingFiles(1)
            .setUnderReplicatedChunks(4)
            .setCorruptChunks(5)
            .setMissingChunks(6)
            .addEntries(
                file("/a")
                    .setHealth(io.braidfs.proto.FileHealth.UNDER_REPLICATED)
                    .setReplication(3)
                    .setLength(5L << 32)
                    .setChunks(9)
                    .setUnderReplicatedChunks(4)
                    .setOpenForWrite(true))
            .addEntries(
                file("/b")
                    .setHealth(io.braidfs.proto.FileHealth.MISSING)
                    .setReplication(2)
                    .setCorruptChunks(5)
                    .setMissingChunks(6))
            .setTruncated(true)
            .setRepairQueue(11)
            .setSafeMode(true)
            .build();

    FsckReport f = Protos.fsckReport(r);

    assertThat(f)
        .isEqualTo(
            new FsckReport(
                10,
                2,
                30,
                7,
                1,
                1,
                1,
                4,
                5,
                6,
                List.of(
                    new FsckFile("/a", FileHealth.UNDER_REPLICATED, 3, 5L << 32, 9, 4, 0, 0, true),
                    new FsckFile("/b", FileHealth.MISSING, 2, 0, 0, 0, 5, 6, false)),
                true,
                11,
                true));
    assertThat(f.health()).isEqualTo(FileHealth.MISSING);
    assertThat(f.hasUnreadableData()).isTrue();
  }

  @Test
  void theTreesHealthIsTheWorstFoundAndOnlyMissingOrCorruptIsUnreadable() {
    FsckReport healthy = Protos.fsckReport(FsckResponse.newBuilder().setFiles(3).build());
    assertThat(healthy.health()).isEqualTo(FileHealth.HEALTHY);
    assertThat(healthy.hasUnreadableData()).isFalse();

    FsckReport under =
        Protos.fsckReport(
            FsckResponse.newBuilder()
                .setUnderReplicatedFiles(1)
                .setUnderReplicatedChunks(1)
                .build());
    assertThat(under.health()).isEqualTo(FileHealth.UNDER_REPLICATED);
    assertThat(under.hasUnreadableData()).isFalse();

    FsckReport corrupt =
        Protos.fsckReport(
            FsckResponse.newBuilder().setUnderReplicatedFiles(4).setCorruptChunks(1).build());
    assertThat(corrupt.health()).isEqualTo(FileHealth.CORRUPT);
    assertThat(corrupt.hasUnreadableData()).isTrue();
  }

  @Test
  void everyWireHealthHasItsOwnValueAndUnknownOnesAreUnknown() {
    Set<FileHealth> seen = EnumSet.noneOf(FileHealth.class);
    for (io.braidfs.proto.FileHealth h : io.braidfs.proto.FileHealth.values()) {
      if (h == io.braidfs.proto.FileHealth.UNRECOGNIZED) {
        continue;
      }
      FileHealth mapped = Protos.fileHealth(h);
      if (h != io.braidfs.proto.FileHealth.FILE_HEALTH_UNSPECIFIED) {
        assertThat(mapped.name()).isEqualTo(h.name());
      }
      seen.add(mapped);
    }
    assertThat(seen).isEqualTo(EnumSet.allOf(FileHealth.class));
    FsckFile newer = Protos.fsckFile(file("/n").setHealthValue(99).build());
    assertThat(newer.health()).isEqualTo(FileHealth.UNKNOWN);
  }

  @Test
  void serverStatesGoBothWays() {
    for (ServerState s : ServerState.values()) {
      assertThat(Protos.serverState(Protos.toProto(s))).isEqualTo(s);
    }
    for (ServerAdminState s : ServerAdminState.values()) {
      if (s != ServerAdminState.UNRECOGNIZED) {
        assertThat(Protos.toProto(Protos.serverState(s))).isEqualTo(s);
      }
    }
    assertThat(Protos.serverState(ServerAdminState.UNRECOGNIZED)).isEqualTo(ServerState.UNKNOWN);
  }

  @Test
  void clusterReportCarriesEveryServerAndTotal() {
    io.braidfs.proto.ServerReport one =
        io.braidfs.proto.ServerReport.newBuilder()
            .setServerId(1)
            .setHost("10.0.0.1")
            .setPort(7500)
            .setRack("/r1")
            .setLive(true)
            .setState(ServerAdminState.DECOMMISSIONING)
            .setCapacityBytes(1000)
            .setUsedBytes(400)
            .setAvailableBytes(600)
            .setReplicas(12)
            .setLastHeartbeatMs(1500)
            .setFailedDataDirs(1)
            .setCopiesInFlight(2)
            .setDataDirs(3)
            .build();
    io.braidfs.proto.ServerReport two =
        io.braidfs.proto.ServerReport.newBuilder()
            .setServerId(2)
            .setHost("::1")
            .setPort(7501)
            .setState(ServerAdminState.IN_SERVICE)
            .setLastHeartbeatMs(-1) // 2^64 - 1 ms
            .build();
    ClusterReport r =
        Protos.clusterReport(
            ClusterReportResponse.newBuilder()
                .addServers(one)
                .addServers(two)
                .setCapacityBytes(1000)
                .setUsedBytes(400)
                .setAvailableBytes(600)
                .setLiveServers(1)
                .setDeadServers(1)
                .setRepairQueue(7)
                .setCopiesInFlight(2)
                .setSafeMode(true)
                .setSafeModeRemainingMs(2500)
                .build());

    assertThat(r.servers())
        .containsExactly(
            new ServerReport(
                1,
                "10.0.0.1",
                7500,
                "/r1",
                true,
                ServerState.DECOMMISSIONING,
                1000,
                400,
                600,
                12,
                Duration.ofMillis(1500),
                1,
                2,
                3),
            new ServerReport(
                2,
                "::1",
                7501,
                "",
                false,
                ServerState.IN_SERVICE,
                0,
                0,
                0,
                0,
                Duration.ofMillis(Long.MAX_VALUE),
                0,
                0,
                0));
    assertThat(r.servers().get(0).address()).isEqualTo("10.0.0.1:7500");
    assertThat(r.servers().get(1).address()).isEqualTo("[::1]:7501");
    assertThat(r)
        .extracting(
            ClusterReport::capacityBytes,
            ClusterReport::usedBytes,
            ClusterReport::availableBytes,
            ClusterReport::liveServers,
            ClusterReport::deadServers,
            ClusterReport::repairQueue,
            ClusterReport::copiesInFlight,
            ClusterReport::safeMode,
            ClusterReport::safeModeRemaining)
        .containsExactly(1000L, 400L, 600L, 1, 1, 7L, 2, true, Duration.ofMillis(2500));
  }

  @Test
  void mdsStatusCarriesEveryFieldAndEveryRoleHasItsOwnValue() {
    MdsStatus s =
        Protos.mdsStatus(
            HaStatusResponse.newBuilder()
                .setReplicaId("mds-2")
                .setAddress("10.0.0.2:7400")
                .setRole(io.braidfs.proto.MdsRole.MDS_ROLE_STANDBY)
                .setEpoch(0)
                .setJournalIndex(-1) // 2^64 - 1 stays as its bits
                .setLeaderHint("10.0.0.1:7400")
                .setClusterId("c1")
                .build());
    assertThat(s)
        .isEqualTo(
            new MdsStatus("mds-2", "10.0.0.2:7400", MdsRole.STANDBY, 0, -1, "10.0.0.1:7400", "c1"));
    Set<MdsRole> seen = EnumSet.noneOf(MdsRole.class);
    for (io.braidfs.proto.MdsRole r : io.braidfs.proto.MdsRole.values()) {
      if (r == io.braidfs.proto.MdsRole.UNRECOGNIZED) {
        continue;
      }
      MdsRole mapped = Protos.mdsRole(r);
      if (r != io.braidfs.proto.MdsRole.MDS_ROLE_UNSPECIFIED) {
        assertThat("MDS_ROLE_" + mapped.name()).isEqualTo(r.name());
      }
      seen.add(mapped);
    }
    assertThat(seen).isEqualTo(EnumSet.allOf(MdsRole.class));
    assertThat(Protos.mdsStatus(HaStatusResponse.newBuilder().setRoleValue(99).build()).role())
        .isEqualTo(MdsRole.UNKNOWN);
    assertThat(EnumSet.allOf(MdsRole.class).stream().filter(MdsRole::serves))
        .containsExactlyInAnyOrder(MdsRole.LEADER, MdsRole.SINGLE);
    assertThat(
            Protos.failoverResult(
                FailoverResponse.newBuilder()
                    .setReplicaId("mds-1")
                    .setAddress("h:1")
                    .setEpoch(4)
                    .build()))
        .isEqualTo(new FailoverResult("mds-1", "h:1", 4));
  }

  @Test
  void statesOnlyTheMdsSetsAndNegativeLimitsAreRefusedBeforeAnyCall() {
    RpcClient rpc = RpcClient.builder("admin-test").build(); // never started: nothing may be sent
    try {
      BraidAdmin admin =
          new BraidAdmin(
              new MetadataClient(
                  rpc, List.of(new InetSocketAddress("127.0.0.1", 1)), Duration.ofSeconds(1)));
      assertThatThrownBy(() -> admin.setServerState("h:1", ServerState.DECOMMISSIONED))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("DECOMMISSIONED");
      assertThatThrownBy(() -> admin.setServerState("h:1", ServerState.UNKNOWN))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> admin.fsck("/", false, -1))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> admin.failover("", -1)).isInstanceOf(IllegalArgumentException.class);
    } finally {
      rpc.close();
    }
  }
}
