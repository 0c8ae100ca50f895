package io.braidfs.fuse;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The outside test tools the mount is gated with (issue 24): fsx and pjdfstest, built by .ci/run
 * from their public sources on crates.io into {@code $BRAID_OUTSIDE_TOOLS}, and python3's sqlite3.
 * Where a tool is missing the test skips saying how to install it, except when {@code
 * BRAID_OUTSIDE_TOOLS_REQUIRED=1} (CI sets it): then it fails.
 *
 * <p>Thread-safety: stateless.
 */
final class OutsideTools {
  private OutsideTools() {}

  /** The path of {@code tool}, from {@code $BRAID_OUTSIDE_TOOLS} or the PATH. */
  static Path require(String tool, String howToInstall) {
    String dirs =
        System.getenv().getOrDefault("BRAID_OUTSIDE_TOOLS", "")
            + ":"
            + System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String d : dirs.split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
        return Path.of(d, tool);
      }
    }
    String why = tool + " is not installed (" + howToInstall + ")";
    if ("1".equals(System.getenv("BRAID_OUTSIDE_TOOLS_REQUIRED"))) {
      fail(why + ", and BRAID_OUTSIDE_TOOLS_REQUIRED=1");
    }
    Assumptions.abort("skipped: " + why);
    throw new AssertionError("unreachable");
  }

  /** How a run ended: its exit status and the last lines of its output. */
  record Result(int exit, String tail) {}

  /**
   * Runs {@code command} in {@code dir}, its output (stdout and stderr) to {@code log}; kills it
   * after {@code timeout}, which fails the test.
   */
  static Result run(List<String> command, Path dir, Path log, Duration timeout)
      throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("LC_ALL", "C.UTF-8");
    Process p = pb.start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor();
      fail("%s did not finish within %s; last output:%n%s", command, timeout, tail(log, 40));
    }
    return new Result(p.exitValue(), tail(log, 40));
  }

  /** The last {@code n} lines of {@code file}. */
  static String tail(Path file, int n) throws IOException {
    List<String> lines =
        List.of(new String(Files.readAllBytes(file), StandardCharsets.UTF_8).split("\n"));
    return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
  }
}
