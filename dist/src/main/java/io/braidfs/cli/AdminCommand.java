package io.braidfs.cli;

import io.braidfs.client.BraidAdmin;
import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.client.MdsProbe;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import java.io.IOException;
import java.io.PrintWriter;
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
 * {@code braid admin}: the operators' tools over {@link BraidAdmin} ({@code fsck}, {@code report},
 * {@code decommission}, {@code maintenance}, {@code recommission}, {@code failover}) and {@link
 * MdsProbe} ({@code ha}). Each subcommand connects, does its work and exits.
 *
 * <p>It takes the options of {@code braid fs}: {@code --mds}, {@code --user} (before or after the
 * subcommand), {@code --conf} and {@code -D}. The MDS answers these calls for its superuser and
 * supergroup only (but HaStatus, which {@code ha} asks every MDS for). Exit codes: 0 done (for
 * fsck: nothing missing or corrupt; for ha: exactly one MDS leads); 1 for what was asked about, not
 * for the command (fsck found missing or corrupt data; decommission {@code --wait} did not see the
 * server decommissioned; ha did not find exactly one leader of one cluster; failover {@code --wait}
 * or {@code --to} did not see the leader it waited for); 2 when the command could not do its work:
 * a bad command line or configuration, no MDS reachable, or the MDS refused the call. Every failure
 * is one line on stderr naming the subcommand.
 *
 * <p>Thread-safety: not thread-safe; picocli fills it in and calls it on one thread.
 */
@Command(
    name = "admin",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "Operators' tools: check files (fsck), report the data servers, decommission them or take"
          + " them out for maintenance, show the MDS replicas (ha) and hand leadership over"
          + " (failover).",
      "The MDS serves these to its superuser and supergroup only (see --user)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done; for fsck, nothing is missing or corrupt (under-replicated alone is 0); for ha,"
          + " exactly one MDS leads",
      "1:fsck found missing or corrupt data; decommission --wait ended before DECOMMISSIONED;"
          + " ha found no leader, several, or MDSs of different clusters; failover --wait or --to"
          + " saw no new leader (or not the target) in time",
      "2:bad command line or configuration, no MDS reachable, or the MDS refused the call"
    },
    subcommands = {
      AdminCommands.Fsck.class,
      AdminCommands.Report.class,
      AdminCommands.Decommission.class,
      AdminCommands.Maintenance.class,
      AdminCommands.Recommission.class,
      AdminHaCommands.Ha.class,
      AdminHaCommands.Failover.class
    })
final class AdminCommand implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(AdminCommand.class);

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
      description =
          "Act as this user (default: the user running the command); the MDS's superuser"
              + " (braid.mds.security.superuser) or one of its supergroup.")
  @Nullable String user;

  /** What a subcommand does once connected. */
  @FunctionalInterface
  interface Work {
    /**
     * Does the subcommand's work, printing to {@code out}.
     *
     * @return the exit code
     * @throws IOException a call that failed; reported as described by {@link #failure}
     */
    int run(BraidAdmin admin, PrintWriter out) throws IOException, InterruptedException;
  }

  /** {@code braid admin} alone: a subcommand is missing. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec().commandLine(), "missing a subcommand");
  }

  /**
   * Connects as configured and runs {@code work}; a failure to connect or of the work is one line
   * on {@code sub}'s stderr and exit code {@value Braid#EXIT_USAGE}.
   *
   * @param about what a failure concerns (a path or a server), named first in its line; null for
   *     nothing in particular
   * @param notFound the words for NOT_FOUND from the work (no such path, no such server)
   * @throws ConfigException if the configuration or {@code --mds} is invalid
   */
  int run(CommandSpec sub, @Nullable String about, String notFound, Work work) {
    BraidConfig cfg = FsCommand.clientConfiguration(spec().commandLine(), config, mds, user);
    String name = sub.qualifiedName();
    String who = who();
    String where = "MDS " + String.join(",", cfg.get(ClientConfigKeys.MDS));
    StopSignal stop = parent().stopSignal();
    PrintWriter err = sub.commandLine().getErr();
    try (BraidClient client =
        FsCommand.connect(cfg, who, "admin-" + sub.name(), where, stop, sub.commandLine())) {
      if (client == null) {
        return Braid.EXIT_USAGE;
      }
      PrintWriter out = sub.commandLine().getOut();
      int code = work.run(client.admin(), out);
      out.flush();
      return code;
    } catch (IOException e) {
      LOG.debug("{}: failed", name, e);
      err.println(name + ": " + (about == null ? "" : about + ": ") + failure(e, notFound));
      err.flush();
      return Braid.EXIT_USAGE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(name + ": interrupted");
      err.flush();
      return Braid.EXIT_USAGE;
    }
  }

  /** What {@code braid admin ha} does with a probe of every MDS address. */
  @FunctionalInterface
  interface ProbeWork {
    /**
     * Does the subcommand's work, printing to {@code out}.
     *
     * @return the exit code
     */
    int run(MdsProbe probe, PrintWriter out);
  }

  /**
   * Runs {@code work} with a probe of every configured MDS address, which needs no leader and no
   * connection made beforehand: an MDS that does not answer is the work's to report.
   *
   * @throws ConfigException if the configuration or {@code --mds} is invalid
   */
  int probe(CommandSpec sub, ProbeWork work) {
    try (MdsProbe probe = openProbe()) {
      PrintWriter out = sub.commandLine().getOut();
      int code = work.run(probe, out);
      out.flush();
      return code;
    }
  }

  /**
   * A probe of every configured MDS address, as the configured user.
   *
   * @throws ConfigException if the configuration or {@code --mds} is invalid
   */
  MdsProbe openProbe() {
    BraidConfig cfg = FsCommand.clientConfiguration(spec().commandLine(), config, mds, user);
    return MdsProbe.open(cfg, who());
  }

  private String who() {
    return user != null ? user : System.getProperty("user.name", "nobody");
  }

  /**
   * A failed call in words: as {@code braid fs} puts it ({@link PathFailure#describe}), the
   * server's message always included, and NOT_FOUND said as {@code notFound}.
   */
  static String failure(IOException e, String notFound) {
    if (!(e instanceof StatusException se)) {
      return PathFailure.describe(e);
    }
    Status s = se.status();
    String words = s == Status.NOT_FOUND ? notFound : PathFailure.words(s);
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      return words + " (" + s.name() + ")";
    }
    return words
        + " ("
        + s.name()
        + ": "
        + message.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ")
        + ")";
  }

  StopSignal stop() {
    return parent().stopSignal();
  }

  private CommandSpec spec() {
    return Picocli.spec(spec);
  }

  private Braid parent() {
    return Picocli.parent(parent);
  }
}
