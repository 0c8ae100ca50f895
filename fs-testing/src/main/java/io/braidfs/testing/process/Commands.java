package io.braidfs.testing.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Short commands run to their end ({@code ip}, {@code sh -c kill}), the {@code ip} executable, and
 * the polling wait the process cluster uses instead of sleeps.
 *
 * <p>Thread-safety: stateless.
 */
final class Commands {
  /** How long one {@code ip} or {@code kill} command may take; they take milliseconds. */
  static final Duration SHORT = Duration.ofSeconds(30);

  private Commands() {}

  /**
   * Runs {@code command} with stderr merged into stdout and returns its output; throws unless it
   * exits with 0 within {@link #SHORT}.
   *
   * @throws IOException if it cannot be started, fails or does not end in time
   */
  static String check(List<String> command) throws IOException {
    CommandResult r = run(command, SHORT);
    if (r.exitCode() != 0) {
      throw new IOException(
          String.join(" ", command) + " failed with exit code " + r.exitCode() + ": " + r.stdout());
    }
    return r.stdout();
  }

  /**
   * Runs {@code command} with stderr merged into stdout, waiting at most {@code timeout}.
   *
   * @throws IOException if it cannot be started or does not end in time (it is then killed)
   */
  static CommandResult run(List<String> command, Duration timeout) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    // Read while it runs: a full pipe would stop it.
    CompletableFuture<String> out =
        CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
    try {
      if (!p.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not end within " + timeout);
      }
      return new CommandResult(p.exitValue(), out.get(5, TimeUnit.SECONDS), "");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted running " + String.join(" ", command), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("reading the output of " + String.join(" ", command), e);
    }
  }

  private static String readAll(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The {@code ip} executable (iproute2), or null if there is none. */
  static @Nullable Path ip() {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(":")));
    }
    // root's PATH has them, but a JVM started by another tool may not.
    dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    for (String d : dirs) {
      if (d.isEmpty()) {
        continue;
      }
      Path p = Path.of(d, "ip");
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  /** Sends signal {@code name} (such as STOP) to {@code pid}, with the shell's kill. */
  static void signal(long pid, String name) throws IOException {
    // Java can send only TERM and KILL; sh is on every machine (procps' kill may not be).
    check(List.of("sh", "-c", "kill -s " + name + " \"$1\"", "sh", Long.toString(pid)));
  }

  /**
   * Waits until {@code condition} holds, polling every 10 ms.
   *
   * @return whether it held within {@code timeout}
   */
  static boolean await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(10_000_000L);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
    return true;
  }
}
