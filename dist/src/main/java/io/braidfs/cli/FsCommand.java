package io.braidfs.cli;

import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code braid fs}: file tools over the Braid client ({@code ls}, {@code mkdir}, {@code put},
 * {@code get}, {@code cat}, {@code cp}, {@code rm} (into the trash when it is on, {@link FsTrash}),
 * {@code expunge}, {@code mv}, {@code stat}, {@code du}, {@code layout}, ...). Each subcommand
 * connects, does its work and exits.
 *
 * <p>Paths are Braid paths; one without a leading {@code /} is taken from the root. {@code --mds},
 * {@code --user}, {@code --conf} and {@code -D} come before the subcommand ({@code --mds} and
 * {@code --user} may also follow it). A failure is one line on stderr naming the subcommand, the
 * path and what went wrong ({@link PathFailure}), with exit code {@value Braid#EXIT_FAILURE}; a bad
 * command line exits with {@value Braid#EXIT_USAGE}.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "fs",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "File tools: list, copy in, out and within, remove (to the trash when it is on), move,"
          + " inspect and lay out files in Braid.",
      "Paths without a leading / are taken from the root."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done",
      "1:the operation failed (one line on stderr names the path and why)",
      "2:bad command line or configuration"
    },
    subcommands = {
      FsNamespaceCommands.Ls.class,
      FsNamespaceCommands.Mkdir.class,
      FsDataCommands.Put.class,
      FsDataCommands.Get.class,
      FsDataCommands.Cat.class,
      FsCopyCommand.class,
      FsNamespaceCommands.Rm.class,
      FsTrash.Expunge.class,
      FsNamespaceCommands.Mv.class,
      FsNamespaceCommands.Stat.class,
      FsNamespaceCommands.Du.class,
      FsPermissionCommands.Chmod.class,
      FsPermissionCommands.Chown.class,
      FsPermissionCommands.Chgrp.class,
      FsMoreCommands.Touch.class,
      FsMoreCommands.Test.class,
      FsMoreCommands.Count.class,
      FsMoreCommands.Setrep.class,
      FsMoreCommands.Df.class,
      FsMoreCommands.Head.class,
      FsMoreCommands.Tail.class,
      FsMoreCommands.Checksum.class,
      FsLayoutCommand.class
    })
final class FsCommand implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(FsCommand.class);

  /**
   * How long a command keeps retrying while no MDS answers, unless configured: shorter than the
   * library's default, since a person is waiting.
   */
  static final String FAILOVER_TIMEOUT = "10s";

  @ParentCommand @Nullable Braid parent;

  @Spec @Nullable CommandSpec spec;

  @Mixin ConfigOptions config = new ConfigOptions();

  @Option(
      names = "--mds",
      paramLabel = "HOST:PORT[,HOST:PORT...]",
      scope = ScopeType.INHERIT,
      description = "Every MDS's address (braid.client.mds; default 127.0.0.1:7400).")
  @Nullable String mds;

  @Option(
      names = "--user",
      paramLabel = "NAME",
      scope = ScopeType.INHERIT,
      description = "Act as this user (default: the user running the command).")
  @Nullable String user;

  /** What a subcommand does once connected. */
  @FunctionalInterface
  interface Work {
    /**
     * Does the subcommand's work.
     *
     * @return the exit code
     * @throws PathFailure naming the path that failed and why
     */
    int run(FsSession fs) throws IOException;
  }

  /** {@code braid fs} alone: a subcommand is missing. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec().commandLine(), "missing a subcommand");
  }

  /**
   * Connects as configured, runs {@code work} and reports its failure, if any, as one line on
   * {@code sub}'s stderr prefixed with {@code sub}'s name.
   *
   * @return the exit code of {@code work}, or {@link Braid#EXIT_FAILURE} if it or the connection
   *     failed
   * @throws ConfigException if the configuration or {@code --mds} is invalid
   */
  int run(CommandSpec sub, Work work) {
    BraidConfig cfg = configuration(sub);
    String name = sub.qualifiedName();
    String who = user != null ? user : System.getProperty("user.name", "nobody");
    String where = "MDS " + String.join(",", cfg.get(ClientConfigKeys.MDS));
    PrintWriter err = sub.commandLine().getErr();
    try (BraidClient client =
        connect(cfg, who, "fs-" + sub.name(), where, stop(), sub.commandLine())) {
      if (client == null) {
        return Braid.EXIT_FAILURE;
      }
      String authority = String.join(",", cfg.get(ClientConfigKeys.MDS));
      return work.run(
          new FsSession(
              client,
              stop(),
              parent(),
              name,
              err,
              who,
              authority,
              cfg.get(FsConfigKeys.TRASH_INTERVAL)));
    } catch (IOException e) {
      LOG.debug("{}: failed", name, e);
      String line = e instanceof PathFailure ? e.getMessage() : PathFailure.describe(e);
      err.println(name + ": " + line);
      err.flush();
      return Braid.EXIT_FAILURE;
    }
  }

  /**
   * Connects a client as {@code who}; on failure reports one line on {@code cmd}'s stderr, {@code
   * cmd's name: where: why}, and returns null. Shared with {@code braid admin}.
   */
  static @Nullable BraidClient connect(
      BraidConfig cfg,
      String who,
      String clientName,
      String where,
      StopSignal stop,
      CommandLine cmd) {
    try {
      return BraidClient.builder(cfg).user(who).name(clientName).build();
    } catch (IOException e) {
      LOG.debug("{}: cannot connect", clientName, e);
      PrintWriter err = cmd.getErr();
      err.println(
          cmd.getCommandSpec().qualifiedName()
              + ": "
              + where
              + ": "
              + (stop.isRequested() ? "interrupted" : PathFailure.describe(e)));
      err.flush();
      return null;
    }
  }

  /**
   * The client's configuration: a shorter failover timeout, the file, {@code -D}, then {@code
   * --mds}.
   *
   * @throws ConfigException if any of it is unknown or invalid
   */
  BraidConfig configuration() {
    return clientConfiguration(spec().commandLine(), config, mds, user);
  }

  /**
   * The configuration for subcommand {@code sub}: as {@link #configuration()}, but a {@code
   * braid://} URI among its arguments names the MDS addresses when {@code --mds} does not, as
   * {@code hdfs dfs} takes the file system from a path's URI.
   *
   * @throws ConfigException if the URIs name different clusters, or another than {@code --mds}
   */
  private BraidConfig configuration(CommandSpec sub) {
    java.util.Set<String> named = null;
    String first = null;
    List<String> values = new java.util.ArrayList<>();
    for (CommandLine.Model.PositionalParamSpec p :
        sub.commandLine().getParseResult().matchedPositionals()) {
      values.addAll(p.stringValues());
    }
    for (String s : values) {
      java.util.Set<String> a = FsSession.authority(s);
      if (a == null) {
        continue;
      }
      if (named != null && !named.equals(a)) {
        throw new ConfigException(
            sub.commandLine(),
            first + " and " + s + " name different clusters' MDS addresses",
            null);
      }
      named = a;
      first = s;
    }
    if (named == null) {
      return configuration();
    }
    String addresses = String.join(",", named);
    if (mds != null
        && !new java.util.TreeSet<>(java.util.Arrays.asList(mds.split(","))).equals(named)) {
      throw new ConfigException(
          sub.commandLine(),
          "--mds " + mds + " but " + first + " names the MDS at " + addresses,
          null);
    }
    return clientConfiguration(spec().commandLine(), config, addresses, user);
  }

  /**
   * A command's client configuration from its options (those of {@code braid fs}, which {@code
   * braid admin} shares): a shorter failover timeout, then {@code config}'s file and {@code -D},
   * then {@code --mds}; {@code --user} is checked here too.
   *
   * @throws ConfigException if any of it is unknown or invalid
   */
  static BraidConfig clientConfiguration(
      CommandLine cmd, ConfigOptions config, @Nullable String mds, @Nullable String user) {
    Map<String, String> defaults = new LinkedHashMap<>();
    defaults.put(ClientConfigKeys.FAILOVER_TIMEOUT.name(), FAILOVER_TIMEOUT);
    // Nothing listening is said at once, not after the failover timeout.
    defaults.put(ClientConfigKeys.FAIL_FAST_WHEN_REFUSED.name(), "true");
    Map<String, String> flags = new LinkedHashMap<>();
    if (mds != null) {
      flags.put(ClientConfigKeys.MDS.name(), mds);
    }
    if (user != null && (user.isBlank() || !user.strip().equals(user))) {
      throw new ConfigException(
          cmd, "--user: '" + user + "' is blank or has spaces around it", null);
    }
    BraidConfig cfg = config.load(cmd, defaults, flags);
    String origin = mds != null ? "--mds" : ClientConfigKeys.MDS.name();
    List<String> addresses = cfg.get(ClientConfigKeys.MDS);
    if (addresses.isEmpty()) {
      throw new ConfigException(cmd, origin + ": name at least one MDS as HOST:PORT", null);
    }
    for (String a : addresses) {
      try {
        HostPort.parse(a);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(cmd, origin + ": " + e.getMessage(), e);
      }
    }
    return cfg;
  }

  private StopSignal stop() {
    return parent().stopSignal();
  }

  private CommandSpec spec() {
    return Picocli.spec(spec);
  }

  private Braid parent() {
    return Picocli.parent(parent);
  }
}
