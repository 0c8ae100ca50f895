package io.braidfs.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** Shared checks and shell helpers of the mount tests. Thread-safety: stateless. */
final class FuseTesting {
  private FuseTesting() {}

  /** Skips the calling test class, saying why, where this machine cannot mount with FUSE. */
  static void assumeFuse() {
    Assumptions.assumeTrue(
        Files.exists(Path.of("/dev/fuse")),
        "skipped: /dev/fuse is missing, FUSE mounts are impossible on this machine");
    Assumptions.assumeTrue(
        libfuse2Present(),
        "skipped: libfuse 2 (libfuse.so.2) is not installed; apt-get install libfuse2 fuse3");
  }

  static boolean libfuse2Present() {
    for (String dir :
        List.of(
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu",
            "/lib/x86_64-linux-gnu",
            "/lib/aarch64-linux-gnu",
            "/usr/lib64",
            "/usr/lib",
            "/lib64",
            "/usr/local/lib")) {
      if (Files.exists(Path.of(dir, "libfuse.so.2")) || Files.exists(Path.of(dir, "libfuse.so"))) {
        return true;
      }
    }
    return false;
  }

  static boolean isRoot() {
    return BraidMount.selfIds()[0] == 0;
  }

  static boolean installed(String tool) {
    for (String p : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      if (Files.isExecutable(Path.of(p, tool))) {
        return true;
      }
    }
    return false;
  }

  /** The result of a shell command. */
  record Run(int exit, String out) {}

  /** Runs {@code script} with bash in {@code dir}; stdout and stderr together. */
  static Run run(Path dir, String script) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", "-c", script));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
    pb.environment().put("LC_ALL", "C.UTF-8");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + script);
    }
    return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  /** Runs {@code script} and checks that it succeeds; returns its output. */
  static String sh(Path dir, String script) throws IOException, InterruptedException {
    Run r = run(dir, script);
    assertThat(r.exit()).as("exit status of `%s`, output:%n%s", script, r.out()).isZero();
    return r.out();
  }
}
