package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.fuse.BraidMount;
import io.braidfs.fuse.MountException;
import io.braidfs.fuse.MountOptions;
import io.braidfs.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid local --ha} in this JVM: three MDS replicas of which exactly one leads, a file
 * written through the printed addresses, a failover asked for with {@code touch DIR/failover} and
 * reported as a new leader under a higher epoch, the file still there, and a restart on the same
 * directory (the bookies keep their ports). Also the refusals of a directory holding the other kind
 * of cluster and of an MDS port without room for three.
 */
class LocalHaTest {
  private static final Pattern READY = Pattern.compile(Pattern.quote(LocalCommand.READY) + ".*");
  private static final Pattern REPLICA =
      Pattern.compile(
          "  MDS:    (mds-[123]) (127\\.0\\.0\\.1:\\d+) (leader \\(epoch (\\d+)\\)|standby)");
  private static final Pattern URI = Pattern.compile("  URI:    braid://([^/]+)/");

  @TempDir Path tmp;

  /** What the ready text says: the replicas' addresses, the leader and its epoch. */
  private record Ready(String authority, String leader, long epoch) {}

  private static Ready ready(InProcessBraid local) {
    local.awaitLine(READY);
    List<String> addresses = new ArrayList<>();
    List<String> leaders = new ArrayList<>();
    long epoch = 0;
    for (String line : local.out.toString().lines().toList()) {
      Matcher m = REPLICA.matcher(line);
      if (m.matches()) {
        addresses.add(m.group(2));
        if (m.group(4) != null) {
          leaders.add(m.group(1));
          epoch = Long.parseLong(m.group(4));
        }
      }
    }
    assertThat(addresses).as("the replicas in %s", local.out).hasSize(3).doesNotHaveDuplicates();
    assertThat(leaders).as("the leaders in %s", local.out).hasSize(1);
    assertThat(epoch).isPositive();
    String authority = local.awaitLine(URI).group(1);
    assertThat(authority).isEqualTo(String.join(",", addresses));
    assertThat(local.out.toString())
        .contains("  Files:  braid fs --mds " + authority + " ls /")
        .containsPattern("  ZK:     127\\.0\\.0\\.1:\\d+ \\(elects the leader\\)");
    return new Ready(authority, leaders.get(0), epoch);
  }

  /** {@code braid fs --mds AUTHORITY get PATH} into a new local file; its content. */
  private String get(String authority, String path) throws IOException {
    Path to = Files.createTempDirectory(tmp, "get").resolve("f");
    BraidCommandTest.Run r =
        BraidCommandTest.run("fs", "--mds", authority, "get", path, to.toString());
    assertThat(r.code()).as("braid fs get %s: %s", path, r.err()).isZero();
    return Files.readString(to, StandardCharsets.UTF_8);
  }

  private static long liveDataServers(String authority) {
    BraidCommandTest.Run r = BraidCommandTest.run("admin", "--mds", authority, "report");
    return r.code() != 0 ? 0 : r.out().lines().filter(l -> l.contains(" live ")).count();
  }

  @Test
  void threeReplicasOneLeaderFailoverOnRequestAndRestart() throws Exception {
    Path data = tmp.resolve("data");
    Path local = Files.writeString(tmp.resolve("hello"), "hello through a failover\n");
    // A heartbeat every 500 ms, so that the data servers follow the new leader quickly (below).
    List<String> args =
        new ArrayList<>(
            List.of(
                "local",
                "--ha",
                "--data-servers",
                "2",
                "--data",
                data.toString(),
                "--mds-port",
                "0",
                "-D",
                "braid.mds.cluster.heartbeat-interval=500ms"));
    Path mount = fuseUsable() ? Files.createDirectory(tmp.resolve("mnt")) : null;
    List<String> withMount = new ArrayList<>(args);
    if (mount != null) {
      withMount.addAll(List.of("--mount", mount.toString()));
    }
    String ports;
    try (InProcessBraid braid = new InProcessBraid(withMount.toArray(String[]::new))) {
      Ready first = ready(braid);
      assertThat(braid.out.toString())
          .contains("braid local: 3 MDS replicas and 2 data servers, data in " + data);
      Path trigger = data.resolve(LeaderWatch.TRIGGER);
      assertThat(braid.out.toString()).contains("  Failover: touch " + trigger + " ");
      BraidCommandTest.Run put =
          BraidCommandTest.run("fs", "--mds", first.authority(), "put", local.toString(), "/f");
      assertThat(put.code()).as(put.err()).isZero();

      Files.createFile(trigger);
      braid.awaitLine(
          Pattern.compile(
              "braid local: " + first.leader() + " hands leadership over \\(" + trigger + "\\)"));
      Matcher next =
          braid.awaitLine(
              Pattern.compile(
                  "braid local: leader is now (mds-[123]) 127\\.0\\.0\\.1:\\d+ \\(epoch (\\d+)\\)"));
      assertThat(next.group(1)).isNotEqualTo(first.leader());
      assertThat(Long.parseLong(next.group(2))).isGreaterThan(first.epoch());
      assertThat(trigger).doesNotExist();
      // The new leader learns the data servers' addresses only when they register with it again,
      // at their next heartbeat; until then it hands out replica locations without an address,
      // which a read cannot use.
      Await.until(
          "both data servers registered with the new leader",
          Duration.ofSeconds(15),
          () -> liveDataServers(first.authority()) == 2);
      assertThat(get(first.authority(), "/f")).isEqualTo("hello through a failover\n");
      if (mount != null) {
        assertThat(mount.resolve("f")).hasContent("hello through a failover");
      }

      ports = Files.readString(data.resolve(LocalMdsReplicas.PORTS_FILE), StandardCharsets.UTF_8);
      braid.stop.request();
      assertThat(braid.awaitExit()).isEqualTo(Braid.EXIT_OK);
    }

    // Started again on the same directory: the same bookies (ports), the same namespace.
    try (InProcessBraid again = new InProcessBraid(args.toArray(String[]::new))) {
      Ready second = ready(again);
      assertThat(get(second.authority(), "/f")).isEqualTo("hello through a failover\n");
      assertThat(data.resolve(LocalMdsReplicas.PORTS_FILE)).hasContent(ports);
      again.stop.request();
      assertThat(again.awaitExit()).isEqualTo(Braid.EXIT_OK);
    }
    // Closed: no replica, rejoin, watch or ZooKeeper thread of Braid's is left.
    Await.noBraidThreads(Duration.ofSeconds(10));

    // Without --ha, the directory is refused before anything starts.
    BraidCommandTest.Run plain =
        BraidCommandTest.run("local", "--data", data.toString(), "--mds-port", "0");
    assertThat(plain.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(plain.errLines())
        .singleElement()
        .asString()
        .startsWith("braid local: failed to start")
        .contains(data + " holds a braid local --ha cluster: start it with --ha");
    assertThat(data.resolve("mds")).doesNotExist();

    // Everything above ran; only the mount's part is missing here, and the report says so.
    Assumptions.assumeTrue(
        mount != null,
        "the --mount part skipped: /dev/fuse, fusermount or libfuse 2 is missing on this machine");
  }

  @Test
  void aClusterWithoutHaIsRefusedWithHaAndPortsMustLeaveRoomForThree() throws IOException {
    Path data = Files.createDirectories(tmp.resolve("plain").resolve("mds"));
    BraidCommandTest.Run r =
        BraidCommandTest.run("local", "--ha", "--data", data.getParent().toString());
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .startsWith("braid local: failed to start (3 mds replicas 127.0.0.1:7400-7402")
        .contains(" holds a braid local cluster without HA (" + data + "): start it without --ha");
    assertThat(data.resolveSibling("zk")).doesNotExist();

    BraidCommandTest.Run port = BraidCommandTest.run("local", "--ha", "--mds-port", "65534");
    assertThat(port.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(port.errLines())
        .containsExactly(
            "braid local: --mds-port: 65534 is not from 0 to 65533 (with --ha the replicas take it"
                + " and the next two) (see braid local --help)");
  }

  /** Whether this machine can mount with FUSE: /dev/fuse, fusermount and libfuse 2. */
  private boolean fuseUsable() throws IOException {
    try {
      BraidMount.check(Files.createDirectories(tmp.resolve("probe")), MountOptions.defaults());
    } catch (MountException e) {
      return false;
    }
    for (String dir :
        List.of(
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu",
            "/lib/x86_64-linux-gnu",
            "/lib/aarch64-linux-gnu",
            "/usr/lib64",
            "/usr/lib",
            "/lib64",
            "/usr/local/lib")) {
      if (Files.exists(Path.of(dir, "libfuse.so.2")) || Files.exists(Path.of(dir, "libfuse.so"))) {
        return true;
      }
    }
    return false;
  }
}
