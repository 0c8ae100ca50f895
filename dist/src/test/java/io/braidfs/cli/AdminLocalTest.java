package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.cli.BraidCommandTest.Run;
import io.braidfs.client.BraidClient;
import io.braidfs.client.ServerReport;
import io.braidfs.client.ServerState;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.testing.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code braid admin} subcommand against a {@code braid local} of four data servers running
 * in this JVM (its user is the superuser): the report, fsck's listing and exit codes, server
 * states, a decommission waited for, ha of its lone MDS, and the one-line failures (exit code 2) of
 * calls the MDS refuses (failover among them).
 */
class AdminLocalTest {
  private static final int SERVERS = 4;

  @TempDir static Path tmp;

  private static InProcessBraid local;
  private static String mds = "";

  @BeforeAll
  static void startLocal() {
    local =
        new InProcessBraid(
            "local",
            "--data-servers",
            Integer.toString(SERVERS),
            "--data",
            tmp.resolve("cluster").toString(),
            "--mds-port",
            "0");
    local.awaitLine(Pattern.compile(Pattern.quote(LocalCommand.READY) + ".*"));
    Matcher m = local.awaitLine(FsCommandTest.URI);
    mds = "127.0.0.1:" + m.group(1);
  }

  @AfterAll
  static void stopLocal() throws InterruptedException {
    if (local == null) {
      return;
    }
    local.stop.request();
    assertThat(local.awaitExit()).isEqualTo(Braid.EXIT_OK);
    Await.noBraidThreads(Duration.ofSeconds(10));
  }

  /** {@code braid admin --mds <local> args...}. */
  private static Run admin(String... args) {
    List<String> all = new ArrayList<>(List.of("admin", "--mds", mds));
    all.addAll(List.of(args));
    return BraidCommandTest.run(all.toArray(String[]::new));
  }

  private static Run ok(String... args) {
    Run r = admin(args);
    assertThat(r.err()).as("stderr of %s", List.of(args)).isEmpty();
    assertThat(r.code()).as("exit code of %s", List.of(args)).isZero();
    return r;
  }

  private static List<ServerReport> servers() throws IOException {
    try (BraidClient c =
        BraidClient.builder(BraidConfig.fromMap(Map.of("braid.client.mds", mds))).build()) {
      return c.admin().clusterReport().servers();
    }
  }

  private static void put(String path, int size) throws IOException {
    byte[] b = new byte[size];
    new Random(size).nextBytes(b);
    Path f = Files.write(tmp.resolve("put-" + size), b);
    Run r = BraidCommandTest.run("fs", "--mds", mds, "put", f.toString(), path);
    assertThat(r.code()).as(r.err()).isZero();
  }

  @Test
  void reportShowsEveryServerLiveAndInService() {
    List<String> lines = ok("report").out().lines().toList();
    assertThat(lines.get(0)).startsWith("ID  ADDRESS").contains("LAST HEARTBEAT", "COPIES");
    assertThat(lines.subList(1, 1 + SERVERS))
        .allSatisfy(l -> assertThat(l).contains("127.0.0.1:", " live ", " IN_SERVICE "));
    assertThat(lines).contains("Data servers:  " + SERVERS + " live, 0 dead");
    assertThat(ok("report", "--json").out())
        .startsWith("{\"servers\":[{\"server_id\":")
        .contains("\"live_servers\":" + SERVERS);
  }

  @Test
  void fsckOfHealthyFilesExitsZeroAndListsThemWithVerbose() throws IOException {
    put("/fsck/a", 300_000);
    put("/fsck/b", 10);
    // Under-replicated (exit code 0 too) until the MDS has heard of every replica.
    Await.until(
        "fsck to find /fsck healthy",
        Duration.ofSeconds(30),
        () -> ok("fsck", "/fsck").out().contains("Health:        HEALTHY"));
    Run quiet = ok("fsck", "/fsck");
    assertThat(quiet.out().lines())
        .first()
        .isEqualTo("Path:          /fsck"); // no unhealthy file to list
    assertThat(quiet.out().lines())
        .contains(
            "Health:        HEALTHY",
            "Files:         2 (2 healthy, 0 under-replicated, 0 corrupt, 0 missing)",
            "Directories:   1");
    List<String> verbose = ok("fsck", "-v", "fsck").out().lines().toList();
    assertThat(verbose.get(0)).startsWith("HEALTH ");
    assertThat(verbose.get(1)).startsWith("HEALTHY ").endsWith("  /fsck/a");
    assertThat(verbose.get(2)).startsWith("HEALTHY ").endsWith("  /fsck/b");
    assertThat(ok("fsck", "--json", "/fsck").out())
        .startsWith("{\"path\":\"/fsck\",\"health\":\"HEALTHY\",\"files\":2,");
  }

  @Test
  void maintenanceAndRecommissionPrintTheServersState() throws IOException {
    ServerReport s = servers().get(0);
    Run in = ok("maintenance", s.address());
    assertThat(in.out().lines())
        .singleElement()
        .asString()
        .startsWith("data server " + s.serverId() + " (" + s.address())
        .contains(": IN_MAINTENANCE, live, ");
    Run back = ok("recommission", Integer.toString(s.serverId()));
    assertThat(back.out().lines()).singleElement().asString().contains(": IN_SERVICE, live, ");
  }

  @Test
  void decommissionWaitsUntilTheServerIsDrained() throws IOException {
    put("/drain/f", 2 << 20);
    ServerReport s = servers().get(SERVERS - 1);
    try {
      Run r = ok("decommission", "--wait", "--timeout", "60s", s.address());
      List<String> lines = r.out().lines().toList();
      assertThat(lines).hasSize(2);
      assertThat(lines.get(0)).contains(": DECOMMISSION"); // DECOMMISSIONING, or done already
      assertThat(lines.get(1)).contains(": DECOMMISSIONED, ");
      assertThat(servers())
          .filteredOn(x -> x.serverId() == s.serverId())
          .singleElement()
          .extracting(ServerReport::state)
          .isEqualTo(ServerState.DECOMMISSIONED);
      Await.until(
          "fsck of /drain healthy without the server",
          Duration.ofSeconds(30),
          () -> ok("fsck", "/drain").out().contains("Health:        HEALTHY"));
    } finally {
      ok("recommission", s.address());
    }
  }

  @Test
  void callsTheMdsRefusesAreOneLineAndExitTwo() {
    Run missing = admin("fsck", "/no/such/dir");
    assertThat(missing.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(missing.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin fsck: /no/such/dir: no such file or directory (NOT_FOUND: ");

    Run unknown = admin("decommission", "127.0.0.1:1");
    assertThat(unknown.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(unknown.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin decommission: 127.0.0.1:1: no such data server (NOT_FOUND: ");

    Run notRoot = admin("--user", "not-the-superuser", "report");
    assertThat(notRoot.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(notRoot.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin report: permission denied (PERMISSION_DENIED: ");
    assertThat(notRoot.out()).isEmpty();

    Run failover = admin("failover", "--wait");
    assertThat(failover.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(failover.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin failover: ")
        .contains("(UNSUPPORTED: failover: ", "is a lone MDS");
    assertThat(failover.out()).isEmpty();
  }

  @Test
  void haShowsTheLoneMdsAsSingle() {
    List<String> lines = ok("ha").out().lines().toList();
    assertThat(lines.get(0))
        .isEqualTo(
            "REPLICA  ADDRESS"
                + " ".repeat(mds.length() - 5)
                + "ROLE"
                + "    EPOCH  JOURNAL INDEX  BEHIND");
    assertThat(lines.get(1)).startsWith("mds      " + mds + "  SINGLE      1  ").endsWith("  -");
    assertThat(lines).contains("Leader:   mds at " + mds + ", epoch 1 (a lone MDS, no HA)");
    assertThat(ok("ha", "--json").out())
        .startsWith("{\"replicas\":[{\"mds\":\"" + mds + "\",\"answered\":true,")
        .contains("\"role\":\"SINGLE\"", "\"leaders\":1,\"leader\":\"" + mds + "\"");
  }
}
