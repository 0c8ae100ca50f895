package io.braidfs.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code braid} command: the entry point of every Braid process an operator starts.
 *
 * <p>Each subcommand is a class of this package registered below: {@code braid mds}, {@code braid
 * dataserver}, {@code braid zk} (a ZooKeeper server for a small deployment), {@code braid bookie}
 * (a BookKeeper bookie for the MDS journal), {@code braid local} (a whole cluster in one process),
 * {@code braid fs} (file tools), {@code braid admin} (fsck, the cluster report, decommission),
 * {@code braid mount}. ({@code braid bench}, the benchmark driver of module bench, is not one: the
 * checkout's {@code ./braid} runs it from bench's jar, outside the release tarball.) Servers run in
 * the foreground until {@link #stopSignal()} fires, which {@link #main} wires to SIGTERM and Ctrl-C
 * through its shutdown hook; tests fire it themselves. File tools check it between buffers of a
 * long copy, so Ctrl-C stops those too.
 *
 * <p>Exit codes: {@value #EXIT_OK} on success (also after a server was stopped by a signal),
 * {@value #EXIT_FAILURE} when the work failed (a server could not start), {@value #EXIT_USAGE} for
 * a usage error (an unknown option, a missing subcommand, an unknown configuration key or an
 * invalid value). Every error is one line on stderr; a server's logs go to stderr too (or to files
 * in {@code braid.log.dir}, {@link ServerLogs}), so stdout carries only what a command prints on
 * purpose. The configuration comes from the places {@link ConfigOptions} lists. Text goes to stdout
 * through the command line's {@code PrintWriter}; file contents ({@code braid fs cat}) go as bytes
 * to {@link #stdout()}, and {@code braid fs put -} reads {@link #stdin()}.
 *
 * <p>Thread-safety: not thread-safe; one instance serves one command line.
 */
@Command(
    name = "braid",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Braid, a distributed file system: servers, the local cluster, file and operators' tools.",
    footer = {
      "",
      "Also, from a source checkout only: ./braid bench, the benchmark driver (./braid bench"
          + " --list; docs/benchmarks.md)."
    },
    subcommands = {
      MdsCommand.class,
      DataServerCommand.class,
      ZkCommand.class,
      BookieCommand.class,
      LocalCommand.class,
      FsCommand.class,
      AdminCommand.class,
      MountCommand.class
    })
public final class Braid implements Runnable {
  /** Exit code of a command that did its work (or a server stopped on request). */
  public static final int EXIT_OK = 0;

  /** Exit code of a command whose work failed, such as a server that could not start. */
  public static final int EXIT_FAILURE = 1;

  /** Exit code of a command line that could not be used: bad options, keys or values. */
  public static final int EXIT_USAGE = 2;

  /** How long the shutdown hook waits for a stopping server before giving up on a clean stop. */
  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

  private final StopSignal stopSignal;
  private final InputStream stdin;
  private final OutputStream stdout;
  private final Map<String, String> environment;

  @Spec CommandSpec spec;

  /**
   * A command whose servers stop when {@code stopSignal} is requested, on the process's streams,
   * without environment variables.
   */
  public Braid(StopSignal stopSignal) {
    this(stopSignal, System.in, System.out, Map.of());
  }

  /**
   * A command whose servers stop when {@code stopSignal} is requested, reading file contents from
   * {@code stdin} and writing them to {@code stdout}, without environment variables.
   */
  public Braid(StopSignal stopSignal, InputStream stdin, OutputStream stdout) {
    this(stopSignal, stdin, stdout, Map.of());
  }

  /**
   * As {@link #Braid(StopSignal, InputStream, OutputStream)}, with the environment variables the
   * command reads ({@value ConfigOptions#CONF_DIR_ENV}, {@value ConfigOptions#LOG_DIR_ENV}); {@link
   * #main} passes the process's.
   */
  public Braid(
      StopSignal stopSignal,
      InputStream stdin,
      OutputStream stdout,
      Map<String, String> environment) {
    this.stopSignal = stopSignal;
    this.stdin = stdin;
    this.stdout = stdout;
    this.environment = Map.copyOf(environment);
  }

  /** The signal servers started by this command wait for. */
  StopSignal stopSignal() {
    return stopSignal;
  }

  /** Where file contents come from ({@code braid fs put -}); never closed by a command. */
  InputStream stdin() {
    return stdin;
  }

  /**
   * Where file contents go ({@code braid fs cat}) as bytes; flushed, never closed, by a command.
   */
  OutputStream stdout() {
    return stdout;
  }

  /** The environment variables the command was given (none unless run from {@link #main}). */
  Map<String, String> environment() {
    return environment;
  }

  /** {@code braid} alone: a subcommand is missing. */
  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing a subcommand");
  }

  /**
   * The command line for {@code braid}: exit codes and one-line error reporting as described above,
   * output to {@code out} and errors to {@code err}.
   */
  public static CommandLine commandLine(StopSignal stopSignal, PrintWriter out, PrintWriter err) {
    return commandLine(new Braid(stopSignal), out, err);
  }

  /**
   * The command line for {@code braid} as above, with file contents read from {@code stdin} and
   * written to {@code stdout} as bytes; {@code out} should write to the same place as {@code
   * stdout}.
   */
  public static CommandLine commandLine(
      StopSignal stopSignal,
      InputStream stdin,
      OutputStream stdout,
      PrintWriter out,
      PrintWriter err) {
    return commandLine(new Braid(stopSignal, stdin, stdout), out, err);
  }

  /**
   * The command line for {@code braid} as above, on the process's streams, reading {@code
   * environment} as the process's environment.
   */
  public static CommandLine commandLine(
      StopSignal stopSignal, Map<String, String> environment, PrintWriter out, PrintWriter err) {
    return commandLine(new Braid(stopSignal, System.in, System.out, environment), out, err);
  }

  private static CommandLine commandLine(Braid braid, PrintWriter out, PrintWriter err) {
    CommandLine cmd = new CommandLine(braid);
    cmd.setOut(out);
    cmd.setErr(err);
    cmd.setParameterExceptionHandler(Errors::usage);
    cmd.setExecutionExceptionHandler(Errors::failure);
    return cmd;
  }

  /**
   * Runs {@code braid args...} and exits with its code. SIGTERM and Ctrl-C request a clean stop:
   * the shutdown hook fires the stop signal, waits (at most 30 s) for the command to close what it
   * runs, and ends the process with the command's exit code rather than the signal's.
   */
  public static void main(String[] args) {
    StopSignal stop = new StopSignal();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> onShutdown(stop), "braid-shutdown"));
    Charset charset = Charset.defaultCharset();
    PrintWriter out = new PrintWriter(System.out, true, charset);
    PrintWriter err = new PrintWriter(System.err, true, charset);
    int code = EXIT_FAILURE;
    try {
      code = commandLine(stop, System.getenv(), out, err).execute(args);
    } finally {
      // Also when an Error escapes (a broken classpath): the hook must not wait for a stop.
      out.flush();
      err.flush();
      stop.finished(code);
    }
    System.exit(code);
  }

  /**
   * The shutdown hook. After a normal exit there is nothing to do. After a signal it asks the
   * running command to stop and waits for it; the JVM would otherwise end with 128 + the signal
   * number, so the hook halts with the command's own code once everything is closed (halting skips
   * only hooks that Braid does not install).
   */
  private static void onShutdown(StopSignal stop) {
    if (stop.isFinished()) {
      return;
    }
    stop.request();
    if (stop.awaitFinished(SHUTDOWN_TIMEOUT)) {
      System.out.flush();
      System.err.flush();
      Runtime.getRuntime().halt(stop.exitCode());
    }
    System.err.println("braid: did not stop within " + SHUTDOWN_TIMEOUT.toSeconds() + " s");
    System.err.flush();
    Runtime.getRuntime().halt(EXIT_FAILURE);
  }
}
