package io.braidfs.cli;

import io.braidfs.common.lifecycle.Service;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Runs a server in the foreground, the way every server subcommand does: start it, print where it
 * serves (one line for a server, a few for {@code braid local}), wait for the {@link StopSignal},
 * close it.
 *
 * <p>A start failure (a port in use, a store locked by another process) is reported as one line on
 * stderr naming the cause, with the stack trace only at DEBUG: the operator needs the cause, not a
 * trace. The ready text is the only thing written to stdout, so scripts and tests can parse it.
 *
 * <p>Thread-safety: stateless; {@link #run} blocks the calling thread until the server is closed.
 */
final class Foreground {
  private static final Logger LOG = LoggerFactory.getLogger(Foreground.class);

  private Foreground() {}

  /**
   * Starts {@code service}, prints {@code readyLine.apply(service)} to the command's stdout, waits
   * for {@code stop}, then closes the service. The service is closed on every path.
   *
   * @param command the command; its name begins every message, such as {@code braid mds}
   * @param where what a failed start names besides its cause, such as {@code address 0.0.0.0:7400,
   *     store /data/mds}
   * @param inUse what to do when an address is in use, said after the cause in parentheses, such as
   *     {@code choose another with --address}
   * @return {@link Braid#EXIT_OK} after a requested stop, {@link Braid#EXIT_FAILURE} if the service
   *     did not start or the wait was interrupted
   */
  static <S extends Service> int run(
      CommandSpec command,
      String where,
      String inUse,
      S service,
      Function<S, String> readyLine,
      StopSignal stop) {
    return run(command, where, inUse, service, readyLine, stop, s -> new CompletableFuture<>());
  }

  /** The command's hint for a failed start whose cause is an address in use, else nothing. */
  private static String hint(String inUse, Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof java.net.BindException) {
        return " (" + inUse + ")";
      }
    }
    return "";
  }

  /**
   * As {@link #run(CommandSpec, String, String, Service, Function, StopSignal)}, for a service that
   * may also stop on its own (a data server whose every disk failed): then the command ends with
   * {@link Braid#EXIT_FAILURE}.
   *
   * @param stoppedOnItsOwn completes when the service stopped without being asked
   */
  static <S extends Service> int run(
      CommandSpec command,
      String where,
      String inUse,
      S service,
      Function<S, String> readyLine,
      StopSignal stop,
      Function<S, CompletableFuture<Void>> stoppedOnItsOwn) {
    CommandLine cmd = command.commandLine();
    String what = command.qualifiedName();
    PrintWriter out = cmd.getOut();
    PrintWriter err = cmd.getErr();
    try (service) {
      try {
        service.start();
      } catch (IOException | RuntimeException e) {
        LOG.debug("{}: start failed", what, e);
        err.println(
            what + ": failed to start (" + where + "): " + Errors.describe(e) + hint(inUse, e));
        err.flush();
        return Braid.EXIT_FAILURE;
      }
      out.println(readyLine.apply(service));
      out.flush();
      AtomicBoolean onItsOwn = new AtomicBoolean();
      stoppedOnItsOwn
          .apply(service)
          .thenRun(
              () -> {
                onItsOwn.set(true);
                stop.request();
              });
      stop.awaitRequest();
      if (onItsOwn.get()) {
        err.println(what + ": stopped on its own; see its log for why");
        err.flush();
        return Braid.EXIT_FAILURE;
      }
      LOG.info("{}: stopping", what);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(what + ": interrupted; stopped");
      err.flush();
      return Braid.EXIT_FAILURE;
    }
    LOG.info("{}: stopped", what);
    return Braid.EXIT_OK;
  }
}
