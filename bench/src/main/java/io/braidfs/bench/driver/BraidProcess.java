package io.braidfs.bench.driver;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One {@code braid} command ({@code io.braidfs.cli.Braid}) in a child JVM on the driver's own class
 * path, as {@link io.braidfs.bench.ref.HdfsCluster} runs HDFS, so that it can be killed with
 * SIGKILL. Its stdout and stderr go line by line, stamped with the driver's clock on arrival, to a
 * log file and to the callers of {@link #await}.
 *
 * <p>Thread-safety: thread-safe; one daemon thread per process reads its output.
 */
final class BraidProcess implements AutoCloseable {
  /** A line of output and when the driver read it ({@link System#nanoTime()}). */
  record Line(long nanos, String text) {}

  /** More than a run writes; a runaway log must not take the driver's heap. */
  private static final int KEPT_LINES = 200_000;

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final String name;
  private final Path log;
  private final Process process;

  @GuardedBy("this")
  private final List<Line> lines = new ArrayList<>();

  @GuardedBy("this")
  private boolean ended;

  private BraidProcess(String name, Path log, Process process) {
    this.name = name;
    this.log = log;
    this.process = process;
  }

  /**
   * Starts {@code braid ARGS} in a new JVM with {@code jvmOptions}, logging through reload4j as
   * {@code log4jConfig} says, its output appended to {@code log}.
   */
  static BraidProcess start(
      String name, Path log, Path log4jConfig, List<String> jvmOptions, List<String> args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // As bin/braid: an embedded BookKeeper bookie reads a file descriptor by reflection.
    cmd.add("--add-opens=java.base/java.io=ALL-UNNAMED");
    cmd.addAll(jvmOptions);
    cmd.add("-Dlog4j.configuration=" + log4jConfig.toUri());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.braidfs.cli.Braid");
    cmd.addAll(args);
    Files.createDirectories(log.toAbsolutePath().getParent());
    Files.writeString(
        log,
        "# " + String.join(" ", cmd) + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    BraidProcess p = new BraidProcess(name, log, pb.start());
    Thread reader = new Thread(p::read, "bench-" + name + "-output");
    reader.setDaemon(true);
    reader.start();
    return p;
  }

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The exit code, or -1 while it runs. */
  int exitCode() {
    return process.isAlive() ? -1 : process.exitValue();
  }

  private void read() {
    try (BufferedReader in =
            new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Writer out =
            Files.newBufferedWriter(
                log,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
      String text;
      while ((text = in.readLine()) != null) {
        Line line = new Line(System.nanoTime(), text);
        out.write(text);
        out.write('\n');
        out.flush();
        synchronized (this) {
          if (lines.size() < KEPT_LINES) {
            lines.add(line);
          }
          notifyAll();
        }
      }
    } catch (IOException e) {
      // The process died with its pipe: ended below says so to the waiters.
    } finally {
      try {
        // Its output ends just before it does: wait a moment, so waiters can name its exit code.
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (this) {
        ended = true;
        notifyAll();
      }
    }
  }

  /**
   * The first line matching {@code pattern} read at or after {@code afterNanos}, waiting for it up
   * to {@code timeout}.
   *
   * @throws IOException if the process ends or the time runs out first, naming the log
   */
  Matched await(Pattern pattern, long afterNanos, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int from = 0;
    synchronized (this) {
      while (true) {
        for (; from < lines.size(); from++) {
          Line l = lines.get(from);
          Matcher m = pattern.matcher(l.text());
          if (l.nanos() >= afterNanos && m.find()) {
            return new Matched(l.nanos(), m);
          }
        }
        if (ended) {
          throw new IOException(
              name + " ended (" + exit() + ") before printing /" + pattern + "/; see " + log);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IOException(
              name + " printed no /" + pattern + "/ within " + timeout + "; see " + log);
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /** The last line matching {@code pattern} so far, or null. */
  synchronized @Nullable Matched last(Pattern pattern) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      Matcher m = pattern.matcher(lines.get(i).text());
      if (m.find()) {
        return new Matched(lines.get(i).nanos(), m);
      }
    }
    return null;
  }

  /** A matching line: when it was read, and its groups. */
  record Matched(long nanos, Matcher matcher) {
    String group(int i) {
      String g = matcher.group(i);
      return g == null ? "" : g;
    }
  }

  private String exit() {
    return process.isAlive() ? "output closed" : "exit " + process.exitValue();
  }

  /**
   * SIGKILL (Process.destroyForcibly on Linux), and waits until the process is gone.
   *
   * @return when it was found gone ({@link System#nanoTime()})
   */
  long kill() throws InterruptedException, IOException {
    process.destroyForcibly();
    if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      throw new IOException(name + " (pid " + process.pid() + ") outlived SIGKILL by 30 s");
    }
    return System.nanoTime();
  }

  /** SIGTERM, without waiting. */
  void terminate() {
    process.destroy();
  }

  /** SIGTERM, then SIGKILL if it has not stopped within 30 s. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
  }
}
