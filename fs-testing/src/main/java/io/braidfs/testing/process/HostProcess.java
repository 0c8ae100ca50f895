package io.braidfs.testing.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A process running on one {@link Host}: started with {@code ip netns exec}, which enters the
 * host's namespace and then executes the command itself, and {@code bin/braid} executes java in
 * turn, so {@link #pid()} is the JVM's own pid and every signal reaches it directly. Stdout is kept
 * line by line; stderr (the log) goes to a file.
 *
 * <p>Thread-safety: thread-safe for reading its output; one thread sends the signals.
 */
public final class HostProcess implements AutoCloseable {
  /** How the first line of each log starts: what was started, where. */
  static final String HEADER = "### ";

  private final Host host;
  private final String name;
  private final Process process;
  private final Path log;
  private final List<String> stdout = new CopyOnWriteArrayList<>();
  private final Thread reader;

  private HostProcess(Host host, String name, Process process, Path log) {
    this.host = host;
    this.name = name;
    this.process = process;
    this.log = log;
    this.reader = new Thread(this::readStdout, "process-cluster-stdout-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code command} in {@code host}'s namespace, in {@code dir}, with {@code env} added to
   * this JVM's environment; stderr is appended to {@code log}.
   *
   * @param ip the {@code ip} executable
   * @param name what to call it in messages, such as {@code ds1}
   * @throws IOException if it cannot be started
   */
  static HostProcess start(
      String ip,
      Host host,
      String name,
      List<String> command,
      Map<String, String> env,
      Path dir,
      Path log)
      throws IOException {
    List<String> full = new ArrayList<>(List.of(ip, "netns", "exec", host.namespace()));
    full.addAll(command);
    ProcessBuilder pb =
        new ProcessBuilder(full)
            .directory(dir.toFile())
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().putAll(env);
    Files.writeString(
        log,
        HEADER + name + " on " + host.name() + " (" + host.address() + "): " + full + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    return new HostProcess(host, name, pb.start(), log);
  }

  /** The process itself. */
  Process process() {
    return process;
  }

  /** The host it runs on. */
  public Host host() {
    return host;
  }

  /** Its name in messages. */
  public String name() {
    return name;
  }

  /** The process's pid (the JVM's: nothing stays around it). */
  public long pid() {
    return process.pid();
  }

  /** The file its stderr goes to. */
  public Path log() {
    return log;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** The lines printed to stdout so far. */
  public List<String> stdout() {
    return List.copyOf(stdout);
  }

  /**
   * Waits for a stdout line matching {@code line} and returns its match.
   *
   * @throws AssertionError if the process ends first or the line does not come within {@code
   *     timeout}, with its output
   */
  public Matcher awaitLine(Pattern line, Duration timeout) throws InterruptedException {
    Commands.await(timeout, () -> find(stdout, line) != null || !process.isAlive());
    Matcher m = find(stdout, line);
    if (m == null && !process.isAlive()) {
      reader.join(1000); // the last lines may still be on their way
      m = find(stdout, line);
    }
    if (m == null) {
      throw new AssertionError(
          name
              + (process.isAlive() ? " did not print " : " ended before printing ")
              + line
              + " within "
              + timeout
              + "; "
              + diagnostics());
    }
    return m;
  }

  /**
   * Waits until the log holds at least {@code count} lines matching {@code line} (a pattern found
   * anywhere in the line).
   *
   * @throws AssertionError if the process ends first or they do not come within {@code timeout}
   */
  public void awaitLog(Pattern line, int count, Duration timeout) throws InterruptedException {
    Commands.await(timeout, () -> logCount(line) >= count || !process.isAlive());
    if (logCount(line) < count) {
      throw new AssertionError(
          name
              + (process.isAlive() ? " did not log " : " ended before logging ")
              + line
              + " ("
              + count
              + " times) within "
              + timeout
              + "; "
              + diagnostics());
    }
  }

  /** How many log lines match {@code line} (found anywhere in the line). */
  public int logCount(Pattern line) {
    return (int) logLines().stream().filter(l -> line.matcher(l).find()).count();
  }

  /** The log's lines (empty if it cannot be read). */
  public List<String> logLines() {
    try {
      return Files.readAllLines(log, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGKILL, and waits until the process is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError(name + " (pid " + pid() + ") outlived SIGKILL by 30 s");
    }
  }

  /** SIGSTOP: the process stops where it is; its sockets stay open and unanswered. */
  public void pause() throws IOException {
    Commands.signal(pid(), "STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() throws IOException {
    Commands.signal(pid(), "CONT");
  }

  /**
   * SIGTERM, then waits for the exit code.
   *
   * @throws AssertionError if it does not end within {@code timeout} (it is then killed)
   */
  public int terminate(Duration timeout) throws InterruptedException {
    process.destroy();
    return awaitExit(timeout);
  }

  /**
   * Waits for the process to end and returns its exit code.
   *
   * @throws AssertionError if it does not end within {@code timeout} (it is then killed)
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      String d = diagnostics() + threadDump();
      kill();
      throw new AssertionError(name + " did not end within " + timeout + "; killed; " + d);
    }
    reader.join(5000);
    return process.exitValue();
  }

  /**
   * Where a hung Java process's threads are (jstack, into a file beside its log), for failure
   * messages; empty if that cannot be had.
   */
  private String threadDump() {
    Path jstack = Path.of(System.getProperty("java.home"), "bin", "jstack");
    Path out = log.resolveSibling(log.getFileName() + ".jstack.txt");
    try {
      Process p =
          new ProcessBuilder(jstack.toString(), Long.toString(pid()))
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      return "\nthreads: " + out;
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** Stdout and the end of the log, for failure messages. */
  public String diagnostics() {
    List<String> lines = logLines();
    List<String> tail = lines.subList(Math.max(0, lines.size() - 40), lines.size());
    List<String> out = stdout();
    return name
        + " (pid "
        + pid()
        + (process.isAlive() ? ", running" : ", exit code " + process.exitValue())
        + ") stdout:\n"
        + String.join("\n", out.subList(Math.max(0, out.size() - 40), out.size()))
        + "\nlog "
        + log
        + " (last 40 lines):\n"
        + String.join("\n", tail);
  }

  /** Kills the process if it still runs. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
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

  private static @Nullable Matcher find(List<String> lines, Pattern line) {
    for (String l : lines) {
      Matcher m = line.matcher(l);
      if (m.matches()) {
        return m;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return name + " on " + host.name() + " (" + host.address() + ", pid " + pid() + ")";
  }
}
