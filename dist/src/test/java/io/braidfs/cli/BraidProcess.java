package io.braidfs.cli;

import static org.assertj.core.api.Assertions.fail;

import io.braidfs.testing.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@code braid} command running in its own JVM, started with the test's classpath and the java
 * executable of the test JVM, as {@code java -cp <classpath> io.braidfs.cli.Braid args...}. Its
 * stdout is collected line by line; its stderr (the log, through dist's own {@code logback.xml})
 * goes to a file, shown when something fails.
 *
 * <p>Thread-safety: not thread-safe; one test thread drives it.
 */
final class BraidProcess implements AutoCloseable {
  /** The line {@code braid mds} prints once it serves. */
  static final Pattern MDS_LISTENING =
      Pattern.compile("braid mds listening on (.+):(\\d+) \\(store (.+)\\)");

  private final Process process;
  private final Path log;
  private final List<String> stdout = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private BraidProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.reader = new Thread(this::readStdout, "test-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code braid args...} in a new JVM; its stderr goes to {@code log}.
   *
   * @throws IOException if the JVM cannot be started
   */
  static BraidProcess start(Path log, String... args) throws IOException {
    return start(log, java.util.Map.of(), args);
  }

  /**
   * Starts {@code braid args...} in a new JVM with {@code env} added to this process's environment
   * (such as {@code BRAID_LOG_DIR}); its stderr goes to {@code log}.
   *
   * @throws IOException if the JVM cannot be started
   */
  static BraidProcess start(Path log, java.util.Map<String, String> env, String... args)
      throws IOException {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx256m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1"); // starts faster; these tests are not about speed
    // The test classpath holds fs-common's logback-test.xml, which logs to stdout; use dist's.
    command.add("-Dlogback.configurationFile=logback.xml");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Braid.class.getName());
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().putAll(env);
    return new BraidProcess(pb.start(), log);
  }

  /**
   * Starts {@code command} (such as the {@code ./braid} wrapper with its arguments) in {@code dir}
   * with {@code env} added to this process's environment; its stderr goes to {@code log}.
   *
   * @throws IOException if the process cannot be started
   */
  static BraidProcess startCommand(
      Path log, Path dir, java.util.Map<String, String> env, List<String> command)
      throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().putAll(env);
    return new BraidProcess(pb.start(), log);
  }

  /**
   * Waits for a stdout line matching {@code line} and returns its match; fails if the process ends
   * first or the line does not come within {@code timeout}.
   */
  Matcher awaitLine(Pattern line, Duration timeout) throws InterruptedException {
    Await.until(
        line + " on stdout; " + log, timeout, () -> find(line) != null || !process.isAlive());
    Matcher m = find(line);
    if (m == null) {
      reader.join(1000);
      m = find(line);
    }
    if (m == null) {
      fail(
          "braid ended (alive: %s) before printing %s; %s", process.isAlive(), line, diagnostics());
    }
    return m;
  }

  private @Nullable Matcher find(Pattern line) {
    for (String l : stdout) {
      Matcher m = line.matcher(l);
      if (m.matches()) {
        return m;
      }
    }
    return null;
  }

  /** The process itself, for its descendants and its command. */
  Process process() {
    return process;
  }

  private void readStdout() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        stdout.add(line);
      }
    } catch (IOException e) {
      // The process went away; what was read is kept.
    }
  }

  /** The lines printed to stdout so far. */
  List<String> stdout() {
    return List.copyOf(stdout);
  }

  /**
   * Waits for {@code braid mds}'s listening line and returns the address it names; fails if the
   * process ends first or the line does not come within {@code timeout}.
   */
  InetSocketAddress awaitMdsListening(Duration timeout) throws InterruptedException {
    Await.until(
        "braid mds's listening line; " + log,
        timeout,
        () -> listening() != null || !process.isAlive());
    InetSocketAddress address = listening();
    if (address == null) {
      reader.join(1000);
      fail("braid ended with %d before listening; %s", process.exitValue(), diagnostics());
    }
    return address;
  }

  private @Nullable InetSocketAddress listening() {
    for (String line : stdout) {
      Matcher m = MDS_LISTENING.matcher(line);
      if (m.matches()) {
        return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
      }
    }
    return null;
  }

  /** Sends SIGKILL (no shutdown hook runs) and waits for the process to be gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      fail("braid did not die from SIGKILL within 30 s");
    }
  }

  /** Sends SIGTERM and returns the exit code; fails if the process does not end in time. */
  int terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    return awaitExit(timeout);
  }

  /** Waits for the process to end and returns its exit code. */
  int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      fail("braid did not end within %s; %s", timeout, diagnostics());
    }
    reader.join(5000);
    return process.exitValue();
  }

  long pid() {
    return process.pid();
  }

  /** Stdout and the end of the log, for failure messages. */
  String diagnostics() {
    String tail;
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      tail = "(log unreadable: " + e + ")";
    }
    return "stdout:\n" + String.join("\n", stdout) + "\nlog " + log + " (last 40 lines):\n" + tail;
  }

  /** Kills the process if it still runs (an interrupt stops the wait and is restored). */
  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
