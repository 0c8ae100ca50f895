package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.Await;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * {@code braid args...} running on a thread of this JVM, stopped through its {@link StopSignal}: a
 * server command the tests can read the output of and stop as SIGTERM would.
 *
 * <p>Thread-safety: one test thread drives it.
 */
final class InProcessBraid implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  final StopSignal stop = new StopSignal();
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  private final Thread thread;
  private volatile int code = -1;

  InProcessBraid(String... args) {
    thread =
        new Thread(
            () ->
                code =
                    Braid.commandLine(stop, new PrintWriter(out, true), new PrintWriter(err, true))
                        .execute(args),
            "test-braid-" + args[0]);
    thread.start();
  }

  /** Waits for a stdout line matching {@code line} and returns its match. */
  Matcher awaitLine(Pattern line) {
    Await.until(
        line + " on stdout (err: " + err + ")",
        TIMEOUT,
        () -> find(line) != null || !thread.isAlive());
    Matcher m = find(line);
    assertThat(m).as("ended with %d before printing %s: %s", code, line, err).isNotNull();
    return m;
  }

  private @Nullable Matcher find(Pattern line) {
    for (String l : out.toString().lines().toList()) {
      Matcher m = line.matcher(l);
      if (m.matches()) {
        return m;
      }
    }
    return null;
  }

  /** Waits for the command to end and returns its exit code. */
  int awaitExit() throws InterruptedException {
    thread.join(TIMEOUT.toMillis());
    assertThat(thread.isAlive()).as("the command still runs").isFalse();
    return code;
  }

  /** Stops the command and waits for it (an interrupt stops the wait and is restored). */
  @Override
  public void close() {
    stop.request();
    try {
      thread.join(TIMEOUT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits for a listening line (host in group 1, port in group 2) and returns its address. */
  InetSocketAddress awaitListening(Pattern line) {
    Matcher m = awaitLine(line);
    return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
  }
}
