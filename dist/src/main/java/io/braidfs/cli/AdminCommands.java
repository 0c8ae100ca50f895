package io.braidfs.cli;

import io.braidfs.client.BraidAdmin;
import io.braidfs.client.ClusterReport;
import io.braidfs.client.FsckReport;
import io.braidfs.client.ServerReport;
import io.braidfs.client.ServerState;
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
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The {@code braid admin} subcommands: {@code fsck}, {@code report}, and the state changes {@code
 * decommission}, {@code maintenance} and {@code recommission}.
 *
 * <p>Thread-safety: not thread-safe; picocli fills each in and calls it on one thread.
 */
final class AdminCommands {
  /** How often {@code decommission --wait} asks how far the drain got. */
  static final Duration WAIT_INTERVAL = Duration.ofSeconds(2);

  private AdminCommands() {}

  /** {@code braid admin fsck [PATH] [-v] [--max-files N] [--json]}. */
  @Command(
      name = "fsck",
      mixinStandardHelpOptions = true,
      description = {
        "Checks the files under PATH: whether every chunk has its full replication (HEALTHY),",
        "too few replicas (UNDER_REPLICATED), only corrupt ones (CORRUPT) or none on a live data"
            + " server (MISSING).",
        "Lists the files that are not healthy (every file with -v), then the totals.",
        "Exit code 1 when anything is missing or corrupt; under-replicated alone is 0."
      })
  static final class Fsck implements Callable<Integer> {
    @ParentCommand @Nullable AdminCommand admin;

    @Spec @Nullable CommandSpec spec;

    @Parameters(
        arity = "0..1",
        paramLabel = "PATH",
        defaultValue = "/",
        description = "A file or directory (default: /, everything).")
    String path = "/";

    @Option(
        names = {"-v", "--verbose"},
        description = "List every file, healthy ones too.")
    boolean verbose;

    @Option(
        names = "--max-files",
        paramLabel = "N",
        description = "List at most N files (default: the MDS's, 10000); the totals count all.")
    int maxFiles;

    @Option(names = "--json", description = "One JSON object on stdout, for scripts.")
    boolean json;

    @Override
    public Integer call() {
      CommandSpec s = spec(spec);
      if (maxFiles < 0) {
        throw new ParameterException(s.commandLine(), "--max-files: " + maxFiles + " is negative");
      }
      String p = FsSession.resolve(path);
      return parent(admin)
          .run(
              s,
              p,
              "no such file or directory",
              (braid, out) -> {
                FsckReport r = braid.fsck(p, verbose, maxFiles);
                if (json) {
                  out.println(AdminFormat.fsckJson(p, r));
                } else {
                  AdminFormat.fsck(p, r).forEach(out::println);
                }
                return AdminFormat.fsckExitCode(r);
              });
    }
  }

  /** {@code braid admin report [--json]}. */
  @Command(
      name = "report",
      mixinStandardHelpOptions = true,
      description = {
        "Shows every data server (id, address, rack, live or dead, state, capacity, used,",
        "available, replicas, last heartbeat, failed data directories, repair copies under way),",
        "then the cluster's totals, the repair queue and safe mode."
      })
  static final class Report implements Callable<Integer> {
    @ParentCommand @Nullable AdminCommand admin;

    @Spec @Nullable CommandSpec spec;

    @Option(names = "--json", description = "One JSON object on stdout, for scripts.")
    boolean json;

    @Override
    public Integer call() {
      return parent(admin)
          .run(
              spec(spec),
              null,
              "not found",
              (braid, out) -> {
                ClusterReport r = braid.clusterReport();
                if (json) {
                  out.println(AdminFormat.reportJson(r));
                } else {
                  AdminFormat.report(r).forEach(out::println);
                }
                return Braid.EXIT_OK;
              });
    }
  }

  /** What the state commands share: the server argument, the call and the line printed. */
  abstract static class StateChange implements Callable<Integer> {
    @ParentCommand @Nullable AdminCommand admin;

    @Spec @Nullable CommandSpec spec;

    @Parameters(
        paramLabel = "HOST:PORT",
        converter = ServerConverter.class,
        description = "The data server as it registered (see braid admin report), or its id.")
    String server = "";

    /** Asks for {@code state}, prints the server after the call, then does {@link #after}. */
    int change(ServerState state) {
      return parent(admin)
          .run(
              spec(spec),
              server,
              "no such data server",
              (braid, out) -> {
                ServerReport s = braid.setServerState(server, state);
                out.println(AdminFormat.serverLine(s));
                out.flush();
                return after(braid, s, out);
              });
    }

    /** What follows a successful call; the exit code. */
    int after(BraidAdmin braid, ServerReport server, PrintWriter out)
        throws IOException, InterruptedException {
      return Braid.EXIT_OK;
    }
  }

  /** {@code braid admin decommission HOST:PORT [--wait [--timeout DURATION]]}. */
  @Command(
      name = "decommission",
      mixinStandardHelpOptions = true,
      description = {
        "Drains a data server: it serves reads but gets nothing new while its replicas are copied",
        "to other servers, then it is DECOMMISSIONED and may be switched off.",
        "Prints the server's state after the call; with --wait, once more when it is done."
      })
  static final class Decommission extends StateChange {
    @Option(
        names = "--wait",
        description =
            "Wait until the server is DECOMMISSIONED (Ctrl-C stops waiting, not the drain).")
    boolean await;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        converter = DurationConverter.class,
        description = "With --wait: give up after this long (such as 30m), exit code 1.")
    @Nullable Duration timeout;

    @Override
    public Integer call() {
      if (timeout != null && !await) {
        throw new ParameterException(spec(spec).commandLine(), "--timeout needs --wait");
      }
      return change(ServerState.DECOMMISSIONING);
    }

    @Override
    int after(BraidAdmin braid, ServerReport s, PrintWriter out)
        throws IOException, InterruptedException {
      if (!await) {
        return Braid.EXIT_OK;
      }
      CommandSpec cs = spec(spec);
      DecommissionWait.Outcome o =
          new DecommissionWait(braid::clusterReport, WAIT_INTERVAL, parent(admin).stop())
              .await(s.serverId(), timeout);
      ServerReport last = o.last();
      if (last != null && o.result() != DecommissionWait.Result.GONE) {
        out.println(AdminFormat.serverLine(last));
        out.flush();
      }
      String why =
          switch (o.result()) {
            case DECOMMISSIONED -> null;
            case TIMED_OUT ->
                "still " + stateOf(last) + " after " + Durations.format(timeout(timeout));
            case CHANGED -> "no longer being decommissioned: " + stateOf(last);
            case GONE -> "the MDS no longer reports it";
            case STOPPED -> "interrupted (the drain goes on)";
          };
      if (why == null) {
        return Braid.EXIT_OK;
      }
      PrintWriter err = cs.commandLine().getErr();
      err.println(cs.qualifiedName() + ": " + server + ": " + why);
      err.flush();
      return Braid.EXIT_FAILURE;
    }

    private static String stateOf(@Nullable ServerReport s) {
      return s == null ? "unknown" : s.state().name();
    }

    private static Duration timeout(@Nullable Duration d) {
      return d == null ? Duration.ZERO : d;
    }
  }

  /** {@code braid admin maintenance HOST:PORT}. */
  @Command(
      name = "maintenance",
      mixinStandardHelpOptions = true,
      description = {
        "Takes a data server out for a planned restart: it gets nothing new, and its replicas are",
        "not copied elsewhere while it is away (they still count). recommission brings it back.",
        "Prints the server's state after the call."
      })
  static final class Maintenance extends StateChange {
    @Override
    public Integer call() {
      return change(ServerState.IN_MAINTENANCE);
    }
  }

  /** {@code braid admin recommission HOST:PORT}. */
  @Command(
      name = "recommission",
      mixinStandardHelpOptions = true,
      description = {
        "Puts a data server back IN_SERVICE, after decommission or maintenance.",
        "Prints the server's state after the call."
      })
  static final class Recommission extends StateChange {
    @Override
    public Integer call() {
      return change(ServerState.IN_SERVICE);
    }
  }

  /** A data server as {@code HOST:PORT} or as its id; anything else is a usage error. */
  static final class ServerConverter implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      String v = value.strip();
      if (v.matches("[0-9]{1,10}") && Long.parseLong(v) <= 0xFFFF_FFFFL) {
        return v;
      }
      try {
        return HostPort.parse(v).toString();
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** A duration such as {@code 30s} or {@code 2h}, as configuration values are written. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  static AdminCommand parent(@Nullable AdminCommand admin) {
    if (admin == null) {
      throw new IllegalStateException("not run as a subcommand of braid admin");
    }
    return admin;
  }

  static CommandSpec spec(@Nullable CommandSpec spec) {
    return Picocli.spec(spec);
  }
}
