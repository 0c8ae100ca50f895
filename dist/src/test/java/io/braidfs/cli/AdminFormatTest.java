package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.ClusterReport;
import io.braidfs.client.FileHealth;
import io.braidfs.client.FsckFile;
import io.braidfs.client.FsckReport;
import io.braidfs.client.MdsProbe;
import io.braidfs.client.MdsRole;
import io.braidfs.client.MdsStatus;
import io.braidfs.client.ServerReport;
import io.braidfs.client.ServerState;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code braid admin} prints for given answers of the MDS, and fsck's exit code: the human
 * layout line by line, the JSON exactly, and the units.
 */
class AdminFormatTest {
  static final FsckFile UNDER =
      new FsckFile("/data/a b.bin", FileHealth.UNDER_REPLICATED, 3, 1048576, 1, 1, 0, 0, false);
  static final FsckFile MISSING =
      new FsckFile("/data/c", FileHealth.MISSING, 2, 5 << 20, 5, 0, 0, 2, true);

  static FsckReport fsck(long corruptChunks, long missingChunks, List<FsckFile> entries) {
    return new FsckReport(
        120,
        12,
        340,
        118 - (missingChunks > 0 ? 1 : 0),
        1,
        corruptChunks > 0 ? 1 : 0,
        missingChunks > 0 ? 1 : 0,
        1,
        corruptChunks,
        missingChunks,
        entries,
        false,
        3,
        false);
  }

  static ServerReport server(int id, String host, ServerState state, boolean live) {
    return new ServerReport(
        id,
        host,
        7500 + id,
        "/rack" + id,
        live,
        state,
        2L << 40,
        (long) (1.5 * (1L << 30)),
        (2L << 40) - (long) (1.5 * (1L << 30)),
        1234,
        Duration.ofMillis(400),
        live ? 0 : 1,
        2,
        2);
  }

  @Test
  void fsckListsTheFilesItGotThenTheTotals() {
    List<String> lines = AdminFormat.fsck("/data", fsck(0, 2, List.of(UNDER, MISSING)));
    assertThat(lines)
        .containsExactly(
            "HEALTH            REPL   LENGTH  CHUNKS  UNDER  CORRUPT  MISSING  OPEN  PATH",
            "UNDER_REPLICATED     3  1048576       1      1        0        0  no    /data/a b.bin",
            "MISSING              2  5242880       5      0        0        2  yes   /data/c",
            "",
            "Path:          /data",
            "Health:        MISSING",
            "Files:         120 (117 healthy, 1 under-replicated, 0 corrupt, 1 missing)",
            "Directories:   12",
            "Chunks:        340 (1 under-replicated, 0 corrupt, 2 missing)",
            "Repair queue:  3",
            "Safe mode:     off");
  }

  @Test
  void fsckWithoutEntriesIsTheTotalsAndSaysSoWhenTheListIsCutOrTheMdsIsStarting() {
    FsckReport none = new FsckReport(1, 1, 1, 1, 0, 0, 0, 0, 0, 0, List.of(), false, 0, true);
    assertThat(AdminFormat.fsck("/", none))
        .startsWith("Path:          /", "Health:        HEALTHY")
        .endsWith("Safe mode:     on (data servers still reporting: chunks may show as missing)");
    FsckReport cut = new FsckReport(9, 1, 9, 0, 9, 0, 0, 9, 0, 0, List.of(UNDER), true, 0, false);
    assertThat(AdminFormat.fsck("/", cut))
        .contains("(more files qualified than were listed; see --max-files)");
  }

  @Test
  void fsckExitsOneOnlyForMissingOrCorruptData() {
    assertThat(AdminFormat.fsckExitCode(fsck(0, 0, List.of()))).isEqualTo(Braid.EXIT_OK);
    assertThat(AdminFormat.fsckExitCode(fsck(0, 0, List.of(UNDER))))
        .as("under-replicated alone, as HDFS")
        .isEqualTo(Braid.EXIT_OK);
    assertThat(AdminFormat.fsckExitCode(fsck(1, 0, List.of()))).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(AdminFormat.fsckExitCode(fsck(0, 1, List.of()))).isEqualTo(Braid.EXIT_FAILURE);
  }

  @Test
  void fsckJsonHasEveryFieldUnderTheProtocolsNames() {
    String json = AdminFormat.fsckJson("/data", fsck(0, 2, List.of(MISSING)));
    assertThat(json)
        .isEqualTo(
            "{\"path\":\"/data\",\"health\":\"MISSING\",\"files\":120,\"directories\":12,"
                + "\"chunks\":340,\"healthy_files\":117,\"under_replicated_files\":1,"
                + "\"corrupt_files\":0,\"missing_files\":1,\"under_replicated_chunks\":1,"
                + "\"corrupt_chunks\":0,\"missing_chunks\":2,\"entries\":[{\"path\":\"/data/c\","
                + "\"health\":\"MISSING\",\"replication\":2,\"length\":5242880,\"chunks\":5,"
                + "\"under_replicated_chunks\":0,\"corrupt_chunks\":0,\"missing_chunks\":2,"
                + "\"open_for_write\":true}],\"truncated\":false,\"repair_queue\":3,"
                + "\"safe_mode\":false}");
  }

  @Test
  void reportIsATableOfEveryServerThenTheTotals() {
    ClusterReport r =
        new ClusterReport(
            List.of(
                server(1, "10.0.0.1", ServerState.IN_SERVICE, true),
                server(12, "ds12.example", ServerState.DECOMMISSIONING, false)),
            4L << 40,
            3L << 30,
            (4L << 40) - (3L << 30),
            1,
            1,
            17,
            4,
            true,
            Duration.ofSeconds(25));
    assertThat(AdminFormat.report(r))
        .containsExactly(
            "ID  ADDRESS            RACK     LIVE  STATE            CAPACITY     USED  AVAILABLE"
                + "  REPLICAS  LAST HEARTBEAT  FAILED DIRS  COPIES",
            " 1  10.0.0.1:7501      /rack1   live  IN_SERVICE        2.0 TiB  1.5 GiB    2.0 TiB"
                + "      1234        0.4s ago          0/2       2",
            "12  ds12.example:7512  /rack12  dead  DECOMMISSIONING   2.0 TiB  1.5 GiB    2.0 TiB"
                + "      1234        0.4s ago          1/2       2",
            "",
            "Data servers:  1 live, 1 dead",
            "Capacity:      4.0 TiB (4398046511104 bytes)",
            "Used:          3.0 GiB (3221225472 bytes)",
            "Available:     4.0 TiB (4394825285632 bytes)",
            "Repair queue:  17 waiting, 4 copies in flight",
            "Safe mode:     on (25s left at most)");
  }

  static MdsProbe.Answer answer(
      String address, String id, MdsRole role, long epoch, long index, String cluster) {
    return new MdsProbe.Answer(
        address, new MdsStatus(id, address, role, epoch, index, "10.0.0.1:7400", cluster), null);
  }

  static MdsProbe.Answer noAnswer(String address) {
    return new MdsProbe.Answer(
        address, null, StatusExceptions.toIOException(Status.UNAVAILABLE, "connection refused"));
  }

  @Test
  void haIsATableOfEveryAddressThenTheLeaderTheClusterAndWhoDidNotAnswer() {
    List<MdsProbe.Answer> answers =
        List.of(
            answer("10.0.0.1:7400", "mds-1", MdsRole.LEADER, 3, 1234, "c1"),
            answer("10.0.0.2:7400", "mds-2", MdsRole.STANDBY, 0, 1230, "c1"),
            noAnswer("10.0.0.3:7400"));
    assertThat(AdminFormat.ha(answers))
        .containsExactly(
            "REPLICA  ADDRESS        ROLE       EPOCH  JOURNAL INDEX  BEHIND",
            "mds-1    10.0.0.1:7400  LEADER         3           1234       -",
            "mds-2    10.0.0.2:7400  STANDBY        -           1230       4",
            "-        10.0.0.3:7400  no answer      -              -       -",
            "",
            "Leader:     mds-1 at 10.0.0.1:7400, epoch 3",
            "Cluster:    c1",
            "No answer:  10.0.0.3:7400: UNAVAILABLE: connection refused");
    assertThat(AdminFormat.haExitCode(answers)).isEqualTo(Braid.EXIT_OK);
    assertThat(AdminFormat.haJson(answers))
        .isEqualTo(
            "{\"replicas\":[{\"mds\":\"10.0.0.1:7400\",\"answered\":true,\"replica_id\":\"mds-1\","
                + "\"address\":\"10.0.0.1:7400\",\"role\":\"LEADER\",\"epoch\":3,"
                + "\"journal_index\":1234,\"behind_leader\":null,\"leader_hint\":\"10.0.0.1:7400\","
                + "\"cluster_id\":\"c1\"},{\"mds\":\"10.0.0.2:7400\",\"answered\":true,"
                + "\"replica_id\":\"mds-2\",\"address\":\"10.0.0.2:7400\",\"role\":\"STANDBY\","
                + "\"epoch\":0,\"journal_index\":1230,\"behind_leader\":4,"
                + "\"leader_hint\":\"10.0.0.1:7400\",\"cluster_id\":\"c1\"},"
                + "{\"mds\":\"10.0.0.3:7400\",\"answered\":false,"
                + "\"error\":\"UNAVAILABLE: connection refused\"}],\"leaders\":1,"
                + "\"leader\":\"10.0.0.1:7400\",\"cluster_ids\":[\"c1\"]}");
  }

  @Test
  void haExitsOneUnlessExactlyOneMdsLeadsOneCluster() {
    MdsProbe.Answer standby = answer("h2:1", "mds-2", MdsRole.STANDBY, 0, 9, "c1");
    MdsProbe.Answer takingOver = answer("h3:1", "mds-3", MdsRole.TAKING_OVER, 0, 9, "c1");
    List<MdsProbe.Answer> none = List.of(standby, takingOver, noAnswer("h1:1"));
    assertThat(AdminFormat.haExitCode(none)).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(AdminFormat.ha(none))
        .contains(
            "mds-2    h2:1     STANDBY          -              9       -",
            "Leader:     none answered as leader");

    List<MdsProbe.Answer> two =
        List.of(
            answer("h1:1", "mds-1", MdsRole.LEADER, 3, 9, "c1"),
            answer("h2:1", "mds-2", MdsRole.LEADER, 4, 9, "c1"));
    assertThat(AdminFormat.haExitCode(two)).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(AdminFormat.ha(two))
        .contains("Leader:   2 answered as leader: mds-1 at h1:1, mds-2 at h2:1");

    List<MdsProbe.Answer> clusters =
        List.of(
            answer("h1:1", "mds-1", MdsRole.LEADER, 3, 9, "c1"),
            answer("h2:1", "mds-2", MdsRole.STANDBY, 0, 0, ""),
            answer("h3:1", "mds-3", MdsRole.STANDBY, 0, 9, "c2"));
    assertThat(AdminFormat.haExitCode(clusters)).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(AdminFormat.ha(clusters)).contains("Cluster:  they differ: c1, c2");
    assertThat(AdminFormat.haExitCode(clusters.subList(0, 2)))
        .as("a standby that names no cluster yet")
        .isEqualTo(Braid.EXIT_OK);

    List<MdsProbe.Answer> lone = List.of(answer("h1:1", "mds", MdsRole.SINGLE, 1, 7, "c1"));
    assertThat(AdminFormat.haExitCode(lone)).isEqualTo(Braid.EXIT_OK);
    assertThat(AdminFormat.ha(lone)).contains("Leader:   mds at h1:1, epoch 1 (a lone MDS, no HA)");
  }

  @Test
  void anEmptyClusterSaysSo() {
    ClusterReport r = new ClusterReport(List.of(), 0, 0, 0, 0, 0, 0, 0, false, Duration.ZERO);
    assertThat(AdminFormat.report(r))
        .startsWith("(no data server has registered)", "", "Data servers:  0 live, 0 dead")
        .contains("Capacity:      0 B", "Safe mode:     off");
  }

  @Test
  void reportJsonHasEveryFieldUnderTheProtocolsNames() {
    ServerReport s =
        new ServerReport(
            7,
            "::1",
            7500,
            "",
            true,
            ServerState.IN_MAINTENANCE,
            100,
            40,
            60,
            3,
            Duration.ofMillis(1500),
            0,
            0,
            1);
    String json =
        AdminFormat.reportJson(
            new ClusterReport(List.of(s), 100, 40, 60, 1, 0, 0, 0, false, Duration.ZERO));
    assertThat(json)
        .isEqualTo(
            "{\"servers\":[{\"server_id\":7,\"host\":\"::1\",\"port\":7500,\"rack\":\"\","
                + "\"live\":true,\"state\":\"IN_MAINTENANCE\",\"capacity_bytes\":100,"
                + "\"used_bytes\":40,\"available_bytes\":60,\"replicas\":3,"
                + "\"last_heartbeat_ms\":1500,\"failed_data_dirs\":0,\"data_dirs\":1,"
                + "\"copies_in_flight\":0}],\"capacity_bytes\":100,\"used_bytes\":40,"
                + "\"available_bytes\":60,\"live_servers\":1,\"dead_servers\":0,"
                + "\"repair_queue\":0,\"copies_in_flight\":0,\"safe_mode\":false,"
                + "\"safe_mode_remaining_ms\":0}");
  }

  @Test
  void aServerLineNamesIdAddressRackStateLivenessAndReplicas() {
    assertThat(AdminFormat.serverLine(server(3, "10.0.0.3", ServerState.DECOMMISSIONING, true)))
        .isEqualTo("data server 3 (10.0.0.3:7503, /rack3): DECOMMISSIONING, live, 1234 replicas");
    ServerReport bare =
        new ServerReport(
            4, "::1", 1, "", false, ServerState.IN_SERVICE, 0, 0, 0, 1, Duration.ZERO, 0, 0, 1);
    assertThat(AdminFormat.serverLine(bare))
        .isEqualTo("data server 4 ([::1]:1): IN_SERVICE, dead, 1 replica");
  }

  @Test
  void sizesAndSpansForPeople() {
    assertThat(AdminFormat.bytes(0)).isEqualTo("0 B");
    assertThat(AdminFormat.bytes(1023)).isEqualTo("1023 B");
    assertThat(AdminFormat.bytes(1536)).isEqualTo("1.5 KiB");
    assertThat(AdminFormat.bytes(64L << 20)).isEqualTo("64.0 MiB");
    assertThat(AdminFormat.bytes(Long.MAX_VALUE)).isEqualTo("8.0 EiB");
    assertThat(AdminFormat.bytesExact(1536)).isEqualTo("1.5 KiB (1536 bytes)");
    // Just under 1 MiB: the admin style stays in KiB, ls -h rounds up to the next unit.
    assertThat(AdminFormat.bytes((1L << 20) - 1)).isEqualTo("1024.0 KiB");
    assertThat(FsFormat.human((1L << 20) - 1)).isEqualTo("1.0M");
    assertThat(FsFormat.human(0)).isEqualTo("0");
    assertThat(FsFormat.human(1023)).isEqualTo("1023");
    assertThat(FsFormat.human(1024)).isEqualTo("1.0K");
    assertThat(FsFormat.human(3000)).isEqualTo("2.9K");
    assertThat(FsFormat.human(64L << 20)).isEqualTo("64.0M");
    assertThat(FsFormat.human(Long.MAX_VALUE)).isEqualTo("8.0E");

    assertThat(AdminFormat.ago(Duration.ofMillis(420))).isEqualTo("0.4s");
    assertThat(AdminFormat.ago(Duration.ofSeconds(75))).isEqualTo("75s");
    assertThat(AdminFormat.ago(Duration.ofMinutes(90))).isEqualTo("90m");
    assertThat(AdminFormat.ago(Duration.ofHours(30))).isEqualTo("30h");
    assertThat(AdminFormat.ago(Duration.ofDays(9))).isEqualTo("9d");
    assertThat(AdminFormat.ago(Duration.ofMillis(Long.MAX_VALUE))).isEqualTo("never");
  }

  @Test
  void jsonEscapesWhatRfc8259RequiresAndRefusesWhatItCannotWrite() {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("s", "a\"b\\c\nd\te\u0001é/");
    o.put("list", Arrays.asList(1, 2L, true, null, 0.5));
    o.put("empty", Map.of());
    assertThat(Json.write(o))
        .isEqualTo(
            "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001é/\",\"list\":[1,2,true,null,0.5],\"empty\":{}}");
    assertThatThrownBy(() -> Json.write(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Json.write(new Object())).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Json.write(Map.of(1, 2))).isInstanceOf(IllegalArgumentException.class);
  }
}
