package io.braidfs.it.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.process.CommandResult;
import io.braidfs.testing.process.HostProcess;
import io.braidfs.testing.process.ProcessCluster;
import io.braidfs.testing.process.ProcessClusterExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * MDS high availability under a nemesis, Jepsen's way, on real processes: three MDS replicas (each
 * with its bookie), {@code braid zk}, three data servers and a client, each on a host of its own. A
 * client program runs concurrent mkdirs, creates with data, and renames, recording each outcome,
 * while the nemesis, round after round, SIGKILLs the leader, SIGSTOPs it past the ZooKeeper session
 * and resumes it, cuts its link, or restarts a standby.
 *
 * <p>Checks: a new leader with a higher epoch after every fault on the leader; a leader that was
 * paused or cut off rejoins as a standby by itself once it can see again; every acknowledged change
 * is in the final namespace with its data, and no refused one; no inode id twice; and, with every
 * replica stopped and brought to the same journal index, the replicas' stores are identical. A
 * paused old leader acknowledging anything after its successor started would show as an
 * acknowledged change missing (its ledger is fenced, so nothing it wrote after that survives).
 *
 * <p>{@code -Dbraid.ha.rounds=N} (default 20) sets the rounds; the benchmark driver runs longer.
 */
class HaNemesisIT {
  private static final int ROUNDS = Integer.getInteger("braid.ha.rounds", 20);
  private static final Duration FAILOVER = Duration.ofSeconds(30);
  private static final Pattern STANDBY = Pattern.compile(": standby on ");

  @RegisterExtension
  static final ProcessClusterExtension CLUSTER =
      new ProcessClusterExtension(
          b ->
              b.mdsReplicas(3)
                  .dataServers(3)
                  .clients("client")
                  .set("braid.mds.ha.session-timeout", "1500ms")
                  .set("braid.mds.cluster.heartbeat-interval", "500ms")
                  .set("braid.mds.cluster.startup-grace", "5s")
                  // Small ledgers, few records kept: ledgers roll and are deleted under the
                  // nemesis, and a replica that was away for long copies a peer's store.
                  .set("braid.mds.ha.ledger-records", "200")
                  .set("braid.mds.ha.retained-records", "600"));

  @Test
  @Timeout(900)
  void everyAcknowledgedChangeSurvivesLeaderFaults() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    Path records = c.logDir().resolve("ha-records.txt");
    Path stop = c.logDir().resolve("ha-stop");
    HostProcess workload =
        c.startJava(
            "client",
            HaWorkload.class,
            c.mdsAddress(),
            "run",
            records.toString(),
            stop.toString(),
            "4");
    List<String> faults = new ArrayList<>();
    Set<String> leaders = new HashSet<>();
    String lastCut = null;
    for (int round = 0; round < ROUNDS; round++) {
      Thread.sleep(300); // the workload goes on through each failover too
      String leader = c.awaitLeader(0, FAILOVER);
      long epoch = c.leaderEpoch();
      leaders.add(leader);
      switch (round % 4) {
        case 0 -> {
          faults.add("kill " + leader);
          c.kill(leader);
          c.awaitLeader(epoch, FAILOVER);
          c.restart(leader);
        }
        case 1 -> {
          faults.add("pause " + leader);
          int standbys = c.process(leader).logCount(STANDBY);
          c.pause(leader);
          c.awaitLeader(epoch, FAILOVER);
          c.resume(leader);
          // It cannot lead on: it sees its session gone (or its ledger fenced) and rejoins as a
          // standby, in its own process.
          c.process(leader).awaitLog(STANDBY, standbys + 1, FAILOVER);
        }
        case 2 -> {
          faults.add("cut " + leader);
          lastCut = leader;
          int standbys = c.process(leader).logCount(STANDBY);
          c.linkDown(leader);
          c.awaitLeader(epoch, FAILOVER);
          c.linkUp(leader);
          c.process(leader).awaitLog(STANDBY, standbys + 1, FAILOVER);
        }
        default -> {
          // The replica the last round cut off, which has since rejoined as a standby in its
          // own process: it stops cleanly on SIGTERM and starts again.
          String standby =
              lastCut != null && !lastCut.equals(leader)
                  ? lastCut
                  : c.mdsNames().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
          faults.add("restart " + standby);
          c.restart(standby);
          assertThat(c.leader()).isEqualTo(leader);
        }
      }
    }
    Thread.sleep(1000);
    Files.createFile(stop);
    assertThat(workload.awaitExit(Duration.ofMinutes(2))).as("workload exit").isZero();
    String run = String.join("\n", workload.stdout());
    System.out.println("nemesis: " + faults);
    System.out.println(run);
    Map<String, String> ran =
        Clients.pairs(run.lines().filter(l -> l.startsWith("run ")).findFirst().orElseThrow());
    assertThat(Integer.parseInt(ran.get("ok"))).as("acknowledged operations").isGreaterThan(100);
    assertThat(leaders).as("leaders over the run").hasSizeGreaterThan(1);

    CommandResult check =
        c.java(
            "client",
            Duration.ofMinutes(3),
            HaWorkload.class,
            c.mdsAddress(),
            "check",
            records.toString());
    System.out.println(check.stdout());
    assertThat(check.exitCode()).as(check.stderr()).isZero();
    assertThat(check.stdout()).contains("violations=0");

    // Identical replicas: stop all at once (no takeover in between), then compare their stores.
    for (String m : c.mdsNames()) {
      if (c.isRunning(m)) {
        c.kill(m);
      }
    }
    List<String> args = new ArrayList<>(List.of("-", "digest"));
    for (String m : c.mdsNames()) {
      args.add(c.storeDir(m).toString());
    }
    CommandResult digest =
        c.java("client", Duration.ofMinutes(3), HaWorkload.class, args.toArray(String[]::new));
    System.out.println(digest.stdout());
    assertThat(digest.exitCode()).as(digest.stderr()).isZero();
    Set<String> shas = new HashSet<>();
    digest
        .stdout()
        .lines()
        .filter(l -> l.startsWith("digest "))
        .forEach(l -> shas.add(Clients.pairs(l).get("sha256")));
    assertThat(shas).as("distinct store digests: %s", digest.stdout()).hasSize(1);
  }
}
