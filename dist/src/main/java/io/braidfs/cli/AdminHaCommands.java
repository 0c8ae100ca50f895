package io.braidfs.cli;

import static io.braidfs.cli.AdminCommands.parent;
import static io.braidfs.cli.AdminCommands.spec;

import io.braidfs.client.BraidAdmin;
import io.braidfs.client.FailoverResult;
import io.braidfs.client.MdsProbe;
import io.braidfs.client.MdsStatus;
import io.braidfs.common.config.Durations;
import io.braidfs.common.rpc.HostPort;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The {@code braid admin} subcommands of MDS high availability: {@code ha} (every MDS's role) and
 * {@code failover} (hand leadership to another replica).
 *
 * <p>Thread-safety: not thread-safe; picocli fills each in and calls it on one thread.
 */
final class AdminHaCommands {
  /** How often {@code failover --wait} asks who leads. */
  static final Duration WAIT_INTERVAL = Duration.ofMillis(200);

  /** How long {@code failover --wait} waits for each handover by default. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  private AdminHaCommands() {}

  /** {@code braid admin ha [--json]}. */
  @Command(
      name = "ha",
      mixinStandardHelpOptions = true,
      description = {
        "Asks every MDS address of --mds on its own (standbys answer too) and shows each one's",
        "replica id, role (LEADER, STANDBY, TAKING_OVER; SINGLE for a lone MDS), epoch, journal",
        "index and how many records it is behind the leader; an MDS that does not answer is shown",
        "as such. Exit code 0 when exactly one MDS leads and all name one cluster, else 1."
      })
  static final class Ha implements Callable<Integer> {
    @ParentCommand @Nullable AdminCommand admin;

    @Spec @Nullable CommandSpec spec;

    @Option(names = "--json", description = "One JSON object on stdout, for scripts.")
    boolean json;

    @Override
    public Integer call() {
      return parent(admin)
          .probe(
              spec(spec),
              (probe, out) -> {
                var answers = probe.statusOfAll();
                if (json) {
                  out.println(AdminFormat.haJson(answers));
                } else {
                  AdminFormat.ha(answers).forEach(out::println);
                }
                return AdminFormat.haExitCode(answers);
              });
    }
  }

  /** {@code braid admin failover [--to HOST:PORT] [--wait] [--timeout DURATION]}. */
  @Command(
      name = "failover",
      mixinStandardHelpOptions = true,
      description = {
        "Asks the leading MDS to hand leadership to another replica (for maintenance of its host):",
        "it answers, leaves the election and rejoins it as a standby, and ZooKeeper elects the",
        "replica that has waited longest. Prints the replica that handed over; with --wait, the",
        "new leader once it serves. --to names the replica that should lead: as the election, not",
        "the leader, picks the next one, it hands over again (at most once per other replica of",
        "--mds) until that one leads; it waits as --wait does. --mds should list every replica."
      })
  static final class Failover implements Callable<Integer> {
    @ParentCommand @Nullable AdminCommand admin;

    @Spec @Nullable CommandSpec spec;

    @Option(
        names = "--to",
        paramLabel = "HOST:PORT",
        converter = AddressConverter.class,
        description = "The replica that should lead next (as braid admin ha shows it).")
    @Nullable String to;

    @Option(
        names = "--wait",
        description = "Wait until another replica leads under a higher epoch, and print it.")
    boolean await;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        converter = AdminCommands.DurationConverter.class,
        description =
            "With --wait or --to: how long to wait for each handover (default 60s); exit code 1"
                + " after that.")
    @Nullable Duration timeout;

    @Override
    public Integer call() {
      CommandSpec cs = spec(spec);
      if (timeout != null && !await && to == null) {
        throw new ParameterException(cs.commandLine(), "--timeout needs --wait or --to");
      }
      AdminCommand parent = parent(admin);
      return parent.run(
          cs,
          null,
          "not found",
          (braid, out) -> {
            try (MdsProbe probe = parent.openProbe()) {
              return handOver(braid, probe, out, cs.commandLine().getErr());
            }
          });
    }

    /** Hands over, and with --wait or --to waits (and with --to repeats) as the command says. */
    private int handOver(BraidAdmin braid, MdsProbe probe, PrintWriter out, PrintWriter err)
        throws IOException, InterruptedException {
      String name = spec(spec).qualifiedName();
      String target = to == null ? "" : to;
      Duration wait = timeout != null ? timeout : DEFAULT_TIMEOUT;
      int rounds = to == null ? 1 : Math.max(1, probe.addresses().size() - 1);
      if (to != null && probe.addresses().stream().noneMatch(a -> sameAddress(a, to))) {
        // Only the replicas of --mds are asked who leads: the target would never be seen leading.
        err.println(name + ": --to " + to + " is not one of --mds (list every replica there)");
        err.flush();
        return Braid.EXIT_USAGE;
      }
      long epoch = 0;
      for (int round = 1; ; round++) {
        FailoverResult r = braid.failover(target, epoch);
        out.println(
            r.replicaId()
                + " at "
                + r.address()
                + " handed leadership over (epoch "
                + Long.toUnsignedString(r.epoch())
                + ")");
        out.flush();
        if (!await && to == null) {
          return Braid.EXIT_OK;
        }
        FailoverWait.Outcome o =
            new FailoverWait(probe::statusOfAll, WAIT_INTERVAL, parent(admin).stop())
                .await(r.epoch(), wait);
        MdsStatus leader = o.leader();
        String askedAt = o.askedAt();
        if (o.result() == FailoverWait.Result.STOPPED) {
          err.println(name + ": interrupted (leadership is moving)");
          err.flush();
          return Braid.EXIT_FAILURE;
        }
        if (leader == null || askedAt == null) {
          err.println(
              name
                  + ": no MDS of --mds leads under an epoch above "
                  + Long.toUnsignedString(r.epoch())
                  + " after "
                  + Durations.format(wait)
                  + " (braid admin ha shows each one)");
          err.flush();
          return Braid.EXIT_FAILURE;
        }
        out.println("leader: " + AdminFormat.leaderLine(leader));
        out.flush();
        if (to == null || sameAddress(to, askedAt) || sameAddress(to, leader.address())) {
          return Braid.EXIT_OK;
        }
        if (round >= rounds) {
          err.println(
              name
                  + ": the election picked "
                  + leader.replicaId()
                  + " at "
                  + leader.address()
                  + ", not "
                  + to
                  + ", after "
                  + round
                  + (round == 1 ? " handover" : " handovers"));
          err.flush();
          return Braid.EXIT_FAILURE;
        }
        epoch = leader.epoch(); // the next call moves only this leader, not a later one
      }
    }
  }

  /** Whether two {@code host:port}s name the same endpoint (a host name and its address do). */
  static boolean sameAddress(String a, String b) {
    try {
      return HostPort.parse(a).toSocketAddress().equals(HostPort.parse(b).toSocketAddress());
    } catch (IllegalArgumentException e) {
      return a.equals(b);
    }
  }

  /** An MDS address as {@code HOST:PORT}; anything else is a usage error. */
  static final class AddressConverter implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        return HostPort.parse(value).toString();
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
