package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.cli.BraidCommandTest.Run;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.zk.EmbeddedZooKeeper;
import io.braidfs.testing.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid admin ha} and {@code braid admin failover --wait} against three MDS replicas in this
 * JVM (a real ZooKeeper and each replica's embedded bookie): the table of roles and its exit code,
 * a handover waited for, and a target the leader refuses.
 */
class AdminHaTest {
  private static final Pattern LEADER_ROW =
      Pattern.compile("^(mds-\\d)\\s+(127\\.0\\.0\\.1:\\d+)\\s+LEADER\\s+(\\d+)\\s+\\d+\\s+-$");

  @TempDir Path dir;
  private EmbeddedZooKeeper zk;
  private final List<MdsServer> replicas = new ArrayList<>();

  @AfterEach
  void stop() {
    replicas.forEach(MdsServer::close);
    if (zk != null) {
      zk.close();
    }
  }

  private String startReplicas() throws IOException {
    zk =
        new EmbeddedZooKeeper(
            BraidConfig.fromMap(
                Map.of("braid.zk.address", "127.0.0.1:0", "braid.zk.dir", dir.resolve("zk") + "")));
    zk.start();
    List<String> addresses = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Map<String, String> c = new HashMap<>();
      c.put("braid.mds.id", "mds-" + i);
      c.put("braid.mds.address", "127.0.0.1:0");
      c.put("braid.mds.store.dir", dir.resolve("mds-" + i).toString());
      c.put("braid.mds.ha.zk", zk.connectString());
      c.put("braid.mds.ha.session-timeout", "2s");
      try (ServerSocket s = new ServerSocket(0)) {
        c.put("braid.mds.ha.bookie.address", "127.0.0.1:" + s.getLocalPort());
      }
      MdsServer m = new MdsServer(BraidConfig.fromMap(c));
      replicas.add(m);
      m.start();
      addresses.add("127.0.0.1:" + m.address().getPort());
    }
    return String.join(",", addresses);
  }

  private static Run admin(String mds, String... args) {
    List<String> all = new ArrayList<>(List.of("admin", "--mds", mds, "--user", "root"));
    all.addAll(List.of(args));
    return BraidCommandTest.run(all.toArray(String[]::new));
  }

  /** The leader's row of {@code braid admin ha}: its id, address and epoch. */
  private static Matcher leaderRow(Run ha) {
    List<Matcher> rows =
        ha.out().lines().map(LEADER_ROW::matcher).filter(Matcher::matches).toList();
    assertThat(rows).as(ha.out()).hasSize(1);
    return rows.get(0);
  }

  @Test
  void haShowsOneLeaderAndFailoverWaitsForTheNext() throws IOException {
    String mds = startReplicas();
    Await.until(
        "braid admin ha to find one leader",
        Duration.ofSeconds(30),
        () -> admin(mds, "ha").code() == 0);
    Run ha = admin(mds, "ha");
    assertThat(ha.err()).isEmpty();
    Matcher leader = leaderRow(ha);
    assertThat(
            ha.out()
                .lines()
                .filter(l -> l.matches("^mds-\\d\\s.*\\sSTANDBY\\s+-\\s+\\d+\\s+\\d+$")))
        .hasSize(2);
    assertThat(ha.out()).contains("Leader:   " + leader.group(1) + " at " + leader.group(2));

    Run refused = admin(mds, "failover", "--to", leader.group(2));
    assertThat(refused.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(refused.errLines())
        .singleElement()
        .asString()
        .startsWith("braid admin failover: ")
        .contains("(INVALID_ARGUMENT: failover: target " + leader.group(2) + " is this leader");

    Run failover = admin(mds, "failover", "--wait", "--timeout", "30s");
    assertThat(failover.err()).isEmpty();
    assertThat(failover.code()).isZero();
    List<String> lines = failover.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .isEqualTo(
            leader.group(1)
                + " at "
                + leader.group(2)
                + " handed leadership over (epoch "
                + leader.group(3)
                + ")");
    long epoch = Long.parseLong(leader.group(3));
    assertThat(lines.get(1))
        .startsWith("leader: mds-")
        .doesNotContain(leader.group(2))
        .endsWith(", epoch " + (epoch + 1));
    // braid admin ha agrees, once the old leader has rejoined as a standby.
    Await.until(
        "the old leader to show as a standby",
        Duration.ofSeconds(30),
        () ->
            admin(mds, "ha")
                .out()
                .lines()
                .anyMatch(l -> l.startsWith(leader.group(1) + " ") && l.contains(" STANDBY ")));
    Matcher next = leaderRow(admin(mds, "ha"));
    assertThat(lines.get(1))
        .isEqualTo(
            "leader: " + next.group(1) + " at " + next.group(2) + ", epoch " + next.group(3));
  }
}
