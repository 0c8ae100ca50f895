package io.braidfs.cli;

import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code braid} command: the entry point of every Braid process an operator starts.
 *
 * <p>Each subcommand is a class of this package registered below ({@code braid mds} and {@code
 * braid dataserver} today; {@code braid local} and {@code braid fs} come with the client). Servers
 * run in the foreground until {@link #stopSignal()} fires, which {@link #main} wires to SIGTERM and
 * Ctrl-C through its shutdown hook; tests fire it themselves.
 *
 * <p>Exit codes: {@value #EXIT_OK} on success (also after a server was stopped by a signal),
 * {@value #EXIT_FAILURE} when the work failed (a server could not start), {@value #EXIT_USAGE} for
 * a usage error (an unknown option, a missing subcommand, an unknown configuration key or an
 * invalid value). Every error is one line on stderr; a server's logs go to stderr too, so stdout
 * carries only what a command prints on purpose.
 *
 * <p>Thread-safety: not thread-safe; one instance serves one command line.
 */
@Command(
    name = "braid",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Braid, a distributed file system: servers, the local cluster and file tools.",
    subcommands = {MdsCommand.class, DataServerCommand.class})
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

  @Spec CommandSpec spec;

  /** A command whose servers stop when {@code stopSignal} is requested. */
  public Braid(StopSignal stopSignal) {
    this.stopSignal = stopSignal;
  }

  /** The signal servers started by this command wait for. */
  StopSignal stopSignal() {
    return stopSignal;
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
    CommandLine cmd = new CommandLine(new Braid(stopSignal));
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
    int code = commandLine(stop, out, err).execute(args);
    out.flush();
    err.flush();
    stop.finished(code);
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
