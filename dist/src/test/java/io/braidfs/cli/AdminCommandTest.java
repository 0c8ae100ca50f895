package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.cli.BraidCommandTest.Run;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code braid admin}'s command line without a cluster: help, usage errors (exit code 2, one line),
 * no MDS to reach (exit code 2, one line), and how failed calls are put into words.
 */
class AdminCommandTest {
  private static final String NO_MDS = "127.0.0.1:1";

  private static Run admin(String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "admin";
    all[1] = "-D";
    all[2] = "braid.client.mds.failover-timeout=200ms";
    System.arraycopy(args, 0, all, 3, args.length);
    return BraidCommandTest.run(all);
  }

  @Test
  void helpListsTheSubcommandsAndExitCodes() {
    Run r = BraidCommandTest.run("admin", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains("fsck", "report", "decommission", "maintenance", "recommission", "Exit codes")
        .contains("ha", "failover", "exactly one MDS leads")
        .contains("--mds", "--user");
    assertThat(BraidCommandTest.run("--help").out()).contains("admin");
    Run fsck = BraidCommandTest.run("admin", "fsck", "--help");
    assertThat(fsck.out()).contains("-v, --verbose", "--max-files", "--json", "[PATH]");
    Run dec = BraidCommandTest.run("admin", "decommission", "--help");
    assertThat(dec.out()).contains("HOST:PORT", "--wait", "--timeout");
    assertThat(BraidCommandTest.run("admin", "ha", "--help").out()).contains("--json");
    assertThat(BraidCommandTest.run("admin", "failover", "--help").out())
        .contains("--to=HOST:PORT", "--wait", "--timeout");
  }

  @Test
  void usageErrorsAreOneLineAndExitTwo() {
    assertThat(admin().errLines())
        .containsExactly("braid admin: missing a subcommand (see braid admin --help)");
    assertThat(admin().code()).isEqualTo(Braid.EXIT_USAGE);

    Run noServer = admin("decommission");
    assertThat(noServer.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(noServer.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin decommission: Missing required parameter: 'HOST:PORT'");

    for (String bad : List.of("ds1", "ds1:", ":7500", "ds1:70000", "::1:7500", "-1")) {
      for (String sub : List.of("decommission", "maintenance", "recommission")) {
        Run r = admin(sub, "--mds", NO_MDS, "--", bad);
        assertThat(r.code()).as("%s %s", sub, bad).isEqualTo(Braid.EXIT_USAGE);
        assertThat(r.errLines())
            .as("%s %s", sub, bad)
            .singleElement()
            .asString()
            .startsWith("braid admin " + sub + ": Invalid value for positional parameter")
            .contains("invalid address '" + bad + "'");
      }
    }

    Run timeoutAlone = admin("decommission", "--mds", NO_MDS, "--timeout", "1m", "ds1:7500");
    assertThat(timeoutAlone.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(timeoutAlone.errLines())
        .containsExactly(
            "braid admin decommission: --timeout needs --wait (see braid admin decommission"
                + " --help)");

    Run failoverTimeoutAlone = admin("failover", "--mds", NO_MDS, "--timeout", "1m");
    assertThat(failoverTimeoutAlone.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(failoverTimeoutAlone.errLines())
        .containsExactly(
            "braid admin failover: --timeout needs --wait or --to (see braid admin failover"
                + " --help)");

    Run badTarget = admin("failover", "--mds", NO_MDS, "--to", "mds2");
    assertThat(badTarget.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(badTarget.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin failover: Invalid value for option '--to'")
        .contains("invalid address 'mds2'");

    Run badTimeout = admin("decommission", "--wait", "--timeout", "soon", "ds1:7500");
    assertThat(badTimeout.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(badTimeout.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin decommission: Invalid value for option '--timeout'");

    Run negative = admin("fsck", "--mds", NO_MDS, "--max-files", "-1");
    assertThat(negative.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(negative.errLines())
        .containsExactly(
            "braid admin fsck: --max-files: -1 is negative (see braid admin fsck --help)");

    Run badMds = admin("report", "--mds", "nowhere");
    assertThat(badMds.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(badMds.errLines())
        .containsExactly(
            "braid admin: --mds: invalid address 'nowhere': expected HOST:PORT with a port from 0"
                + " to 65535");

    Run badKey = admin("-D", "braid.client.nope=1", "report");
    assertThat(badKey.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(badKey.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin: unknown configuration key 'braid.client.nope'");
  }

  @Test
  void noMdsIsOneLineAndExitCodeTwo() {
    for (List<String> args :
        List.of(
            List.of("fsck", "/x"),
            List.of("report"),
            List.of("decommission", "127.0.0.1:7500"),
            List.of("maintenance", "7"),
            List.of("recommission", "[::1]:7500"),
            List.of("failover"),
            List.of("failover", "--to", "127.0.0.1:1", "--wait"))) {
      String[] line = new String[args.size() + 2];
      line[0] = "--mds";
      line[1] = NO_MDS;
      for (int i = 0; i < args.size(); i++) {
        line[i + 2] = args.get(i);
      }
      Run r = admin(line);
      assertThat(r.code()).as("%s", args).isEqualTo(Braid.EXIT_USAGE);
      assertThat(r.errLines())
          .as("%s", args)
          .singleElement()
          .asString()
          .startsWith(
              "braid admin "
                  + args.get(0)
                  + ": MDS "
                  + NO_MDS
                  + ": connection refused by every MDS address [/"
                  + NO_MDS
                  + "]: no MDS listens there (UNAVAILABLE)");
      assertThat(r.out()).as("%s", args).isEmpty();
    }
  }

  @Test
  void haShowsAnMdsThatDoesNotAnswerAndExitsOne() {
    Run r = admin("ha", "--mds", NO_MDS + ",127.0.0.1:2");
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.err()).isEmpty();
    assertThat(r.out().lines())
        .contains(
            "-        127.0.0.1:1  no answer      -              -       -",
            "-        127.0.0.1:2  no answer      -              -       -",
            "Leader:     none answered as leader",
            "Cluster:    none named")
        .anySatisfy(l -> assertThat(l).startsWith("No answer:  127.0.0.1:1: UNAVAILABLE: "));
    Run json = admin("ha", "--json", "--mds", NO_MDS);
    assertThat(json.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(json.out())
        .startsWith("{\"replicas\":[{\"mds\":\"127.0.0.1:1\",\"answered\":false,\"error\":")
        .contains("\"leaders\":0,\"leader\":null,\"cluster_ids\":[]}");
  }

  @Test
  void aFailedCallIsPutInWordsWithItsStatusAndTheServersMessage() {
    IOException notFound = StatusExceptions.toIOException(Status.NOT_FOUND, "fsck /x: not found");
    assertThat(AdminCommand.failure(notFound, "no such file or directory"))
        .isEqualTo("no such file or directory (NOT_FOUND: fsck /x: not found)");
    IOException denied =
        StatusExceptions.toIOException(Status.PERMISSION_DENIED, "fsck: superuser only\nask root");
    assertThat(AdminCommand.failure(denied, "-"))
        .isEqualTo("permission denied (PERMISSION_DENIED: fsck: superuser only; ask root)");
    assertThat(AdminCommand.failure(new IOException("connection reset"), "-"))
        .isEqualTo("connection reset");
  }
}
