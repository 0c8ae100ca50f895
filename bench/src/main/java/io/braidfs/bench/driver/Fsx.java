package io.braidfs.bench.driver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * fsx, the Rust port from crates.io (crate {@code fsx}, the version .ci/run builds), run as one
 * process per seed on a file of its own, several seeds at once: where the program is, what its
 * configuration is, and how a run ended (its rate, or the first failing operation and its last
 * lines).
 *
 * <p>The configuration is fs-fuse's {@code outside/fsx.toml}, the file OutsideSuitesTest runs in
 * CI, carried into bench.jar by bench's build as {@value #CONFIG} (see bench/pom.xml).
 *
 * <p>Thread-safety: immutable; {@link #run} may be called from one thread at a time per directory.
 */
final class Fsx {
  /** The version .ci/run and bench/bench-setup.sh install. */
  static final String VERSION = "0.3.2";

  /** The classpath resource holding fs-fuse's fsx.toml. */
  static final String CONFIG = "/io/braidfs/bench/driver/outside/fsx.toml";

  /** How to install fsx, for messages. */
  static final String INSTALL =
      "bench/bench-setup.sh installs it: cargo install --locked --root"
          + " ~/.cache/braid/outside-tools fsx --version "
          + VERSION;

  private static final String PASSED = "All operations completed A-OK!";
  private static final Pattern LOGGED = Pattern.compile("^\\[(?:ERROR|WARN|INFO)[^]]*] ?(.*)$");
  private static final Pattern STEP = Pattern.compile("^\\s*(\\d+) (.*)$");
  private static final int TAIL = 15;

  private final Path program;
  private final Path config;

  /** fsx at {@code program} with the configuration file {@code config}. */
  Fsx(Path program, Path config) {
    this.program = program;
    this.config = config;
  }

  /**
   * The fsx program: {@code option} when given, else the first executable {@code fsx} in {@code
   * $BRAID_OUTSIDE_TOOLS}, {@code ~/.cache/braid/outside-tools/bin} (where .ci/run and
   * bench/bench-setup.sh install it) and the PATH.
   *
   * @throws IOException if there is none, naming how to install it
   */
  static Path find(@Nullable Path option, Map<String, String> env) throws IOException {
    if (option != null) {
      if (!Files.isExecutable(option)) {
        throw new IOException("--fsx " + option + " is not an executable file");
      }
      return option;
    }
    List<String> dirs = new ArrayList<>();
    dirs.add(env.getOrDefault("BRAID_OUTSIDE_TOOLS", ""));
    dirs.add(
        Path.of(env.getOrDefault("HOME", System.getProperty("user.home")))
            .resolve(".cache/braid/outside-tools/bin")
            .toString());
    dirs.addAll(List.of(env.getOrDefault("PATH", "/usr/bin:/bin").split(":")));
    for (String d : dirs) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, "fsx"))) {
        return Path.of(d, "fsx");
      }
    }
    throw new IOException(
        "fsx is not installed (looked in --fsx, $BRAID_OUTSIDE_TOOLS,"
            + " ~/.cache/braid/outside-tools/bin and the PATH); "
            + INSTALL);
  }

  /** The configuration's text, as carried in bench.jar. */
  static String configText() throws IOException {
    try (InputStream in = Fsx.class.getResourceAsStream(CONFIG)) {
      if (in == null) {
        throw new IOException("no " + CONFIG + " in the classpath (bench/pom.xml copies it)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Writes the configuration into {@code dir} and returns its path. */
  static Path writeConfig(Path dir) throws IOException {
    Path p = dir.resolve("fsx.toml");
    try (InputStream in = Fsx.class.getResourceAsStream(CONFIG)) {
      if (in == null) {
        throw new IOException("no " + CONFIG + " in the classpath (bench/pom.xml copies it)");
      }
      Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
    }
    return p;
  }

  /** What {@code program -V} prints ("fsx 0.3.2"), or "fsx (version unknown)". */
  static String version(Path program) {
    try {
      Process p = new ProcessBuilder(program.toString(), "-V").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return p.waitFor() == 0 && !out.isEmpty() ? out : "fsx (version unknown)";
    } catch (IOException e) {
      return "fsx (version unknown)";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "fsx (version unknown)";
    }
  }

  /**
   * How one seed's run ended: {@code ops} is every operation of a passed run, and those before the
   * failing one of a failed run (0 when that is unknown).
   */
  record Outcome(
      int seed, boolean passed, long ops, long nanos, String failure, List<String> tail) {
    /** Operations per second over the process's life. */
    double opsPerSecond() {
      return ops / (nanos / 1e9);
    }
  }

  /** All seeds of one batch, and the batch's wall time (first start to last exit). */
  record Batch(List<Outcome> outcomes, long nanos) {}

  /**
   * Runs one fsx process per seed at once, each on {@code files/f<seed>} with {@code ops}
   * operations, its artifacts and output ({@code output}) in {@code logs/seed<seed>}; waits for
   * all. A process still running after {@code limit} is killed and counts as failed.
   */
  Batch run(Path files, Path logs, List<Integer> seeds, long ops, Duration limit)
      throws IOException, InterruptedException {
    List<Process> processes = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    List<CompletableFuture<Long>> exits = new ArrayList<>();
    long t0 = System.nanoTime();
    try {
      for (int i = 0; i < seeds.size(); i++) {
        int seed = seeds.get(i);
        Path dir = Files.createDirectories(logs.resolve("seed" + seed));
        Path output = dir.resolve("output");
        List<String> command =
            List.of(
                program.toString(),
                "-v",
                "-f",
                config.toString(),
                "-N",
                Long.toString(ops),
                "-S",
                Integer.toString(seed),
                "-P",
                dir.toString(),
                files.resolve("f" + seed).toString());
        ProcessBuilder pb =
            new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        pb.environment().put("LC_ALL", "C.UTF-8");
        Process p = pb.start();
        // The time of exit, taken when it happens rather than when this thread gets to it.
        exits.add(p.onExit().thenApply(x -> System.nanoTime()));
        processes.add(p);
        outputs.add(output);
      }
      long deadline = t0 + limit.toNanos();
      List<Outcome> outcomes = new ArrayList<>();
      for (int i = 0; i < processes.size(); i++) {
        Process p = processes.get(i);
        long left = Math.max(0, deadline - System.nanoTime());
        boolean done = p.waitFor(left, TimeUnit.NANOSECONDS);
        if (!done) {
          p.destroyForcibly().waitFor();
        }
        long end = exits.get(i).join();
        List<String> lines = Files.readAllLines(outputs.get(i), StandardCharsets.UTF_8);
        outcomes.add(
            outcome(
                seeds.get(i),
                ops,
                end - t0,
                done ? p.exitValue() : -1,
                done ? null : "killed after " + limit.toMinutes() + " min",
                lines));
      }
      long last = t0;
      for (Outcome o : outcomes) {
        last = Math.max(last, t0 + o.nanos());
      }
      return new Batch(outcomes, last - t0);
    } finally {
      for (Process p : processes) {
        p.destroyForcibly();
      }
    }
  }

  /**
   * How a process ended, from its exit status and output ({@code -v}: one line per operation):
   * passed when it exited 0 saying so; otherwise the failure names the first failing operation (the
   * last of fsx's log dump after a failed check, or the last logged before a panic on an I/O error)
   * and what fsx said about it.
   */
  static Outcome outcome(
      int seed, long ops, long nanos, int exit, @Nullable String killed, List<String> lines) {
    List<String> tail = lines.subList(Math.max(0, lines.size() - TAIL), lines.size());
    if (killed == null && exit == 0 && lines.contains(PASSED)) {
      return new Outcome(seed, true, ops, nanos, "", List.copyOf(tail));
    }
    StringBuilder why = new StringBuilder();
    if (killed != null) {
      why.append(killed).append("; ");
    } else {
      why.append("exit ").append(exit).append(signal(exit)).append("; ");
    }
    int dump = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (text(lines.get(i)).equals("LOG DUMP")) {
        dump = i;
        break;
      }
    }
    // With -v fsx logs each operation as it starts; its log dump (after a failed check) ends with
    // the operation that found the error, and a panic (an I/O error) comes right after it.
    int last = dump >= 0 ? lines.size() : -1;
    String step = null;
    long completed = 0;
    for (int i = lines.size() - 1; i > dump && step == null; i--) {
      Matcher m = STEP.matcher(text(lines.get(i)));
      if (LOGGED.matcher(lines.get(i)).matches() && m.matches()) {
        step = "operation " + m.group(1) + " (" + m.group(2).strip().replaceAll("\\s+", " ") + ")";
        completed = Long.parseLong(m.group(1)) - 1;
        last = i;
      }
    }
    why.append(step != null ? "first failing " + step : "first failing operation unknown");
    List<String> errors = new ArrayList<>();
    for (int i = dump >= 0 ? 0 : Math.max(0, last); i < (dump >= 0 ? dump : lines.size()); i++) {
      String line = lines.get(i);
      if (line.startsWith("[ERROR") && !text(line).startsWith("Using seed")) {
        errors.add(text(line));
      } else if (line.contains("panicked at")) {
        errors.add(line.strip() + (i + 1 < lines.size() ? " " + lines.get(i + 1).strip() : ""));
      }
    }
    if (!errors.isEmpty()) {
      why.append(": ").append(String.join(" / ", errors));
    }
    return new Outcome(seed, false, completed, nanos, why.toString(), List.copyOf(tail));
  }

  /** " (SIGBUS)" for an exit status of 128 + a signal's number, else "". */
  static String signal(int exit) {
    return switch (exit - 128) {
      case 6 -> " (SIGABRT)";
      case 7 -> " (SIGBUS: a mapped page could not be read or written)";
      case 9 -> " (SIGKILL)";
      case 11 -> " (SIGSEGV)";
      default -> exit > 128 && exit < 160 ? " (signal " + (exit - 128) + ")" : "";
    };
  }

  /** A line of fsx's log without its "[ERROR fsx] " prefix. */
  private static String text(String line) {
    Matcher m = LOGGED.matcher(line);
    return m.matches() ? m.group(1) : line;
  }
}
