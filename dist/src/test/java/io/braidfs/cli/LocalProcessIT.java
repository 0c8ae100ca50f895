package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.braidfs.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The way README.md says to start Braid, as real processes: {@code ./braid local} from the
 * repository root, files written and read with {@code ./braid fs}, a SIGTERM, and a restart on the
 * same data.
 *
 * <p>It runs in failsafe, after {@code package}, because {@code ./braid} runs the release tarball
 * ({@code dist/target/braid-VERSION.tar.gz}, unpacked by the wrapper). {@code BRAID_NO_BUILD=1}
 * keeps the wrapper from starting a Maven build of its own if the tarball were missing or stale;
 * the test then fails, saying so.
 *
 * <p>Checks: {@code braid local} prints its ready line within 60 s; a 5 MiB random file put with
 * {@code braid fs put} comes back byte for byte through {@code get}, and a small one through {@code
 * cat}; SIGTERM ends the process with exit code 0 within 15 s and leaves no process behind (the
 * wrapper and {@code bin/braid} exec Java, so there is exactly one process); after a restart with
 * the same {@code --data} both files read back the same.
 */
@Timeout(180)
class LocalProcessIT {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
  private static final Pattern READY = Pattern.compile(Pattern.quote(LocalCommand.READY) + ".*");

  /** JVM options for every process: a small heap, fast start; these tests are not about speed. */
  private static final String JVM_OPTIONS = "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

  @TempDir Path tmp;

  private @Nullable BraidProcess running;

  @AfterEach
  void killLeftover() {
    if (running != null) {
      running.close();
    }
  }

  @Test
  void localServesFilesStopsOnSigtermAndKeepsThemAcrossARestart() throws Exception {
    Path root = ConfigurationDocTest.repositoryRoot();
    Path data = tmp.resolve("data");
    byte[] big = new byte[5 << 20];
    new Random(42).nextBytes(big);
    Path bigFile = tmp.resolve("big.bin");
    Files.write(bigFile, big);
    Path smallFile = tmp.resolve("small.txt");
    Files.writeString(smallFile, "hello from braid local\n");

    int port = freePort();
    String mds = "127.0.0.1:" + port;
    BraidProcess local = startLocal(root, data, port, "first");
    assertThat(local.stdout()).contains("  URI:    braid://" + mds + "/");

    run(root, "put", "fs", "--mds", mds, "put", bigFile.toString(), "/it/big.bin");
    run(root, "put-small", "fs", "--mds", mds, "put", smallFile.toString(), "/it/small.txt");
    Path back = tmp.resolve("big.back");
    run(root, "get", "fs", "--mds", mds, "get", "/it/big.bin", back.toString());
    assertThat(Files.readAllBytes(back)).isEqualTo(big);
    assertThat(run(root, "cat", "fs", "--mds", mds, "cat", "/it/small.txt"))
        .isEqualTo(Files.readAllBytes(smallFile));

    stop(local);

    BraidProcess again = startLocal(root, data, port, "second");
    Path backAgain = tmp.resolve("big.back2");
    run(root, "get-again", "fs", "--mds", mds, "get", "/it/big.bin", backAgain.toString());
    assertThat(Files.readAllBytes(backAgain)).isEqualTo(big);
    assertThat(run(root, "cat-again", "fs", "--mds", mds, "cat", "/it/small.txt"))
        .isEqualTo(Files.readAllBytes(smallFile));
    stop(again);
  }

  /** Starts {@code ./braid local} the way README.md says, and waits for its ready line. */
  private BraidProcess startLocal(Path root, Path data, int port, String name)
      throws IOException, InterruptedException {
    BraidProcess p =
        BraidProcess.startCommand(
            tmp.resolve("local-" + name + ".log"),
            root,
            environment(),
            List.of(
                root.resolve("braid").toString(),
                "local",
                "--data-servers",
                "3",
                "--data",
                data.toString(),
                "--mds-port",
                Integer.toString(port)));
    running = p;
    p.awaitLine(READY, READY_TIMEOUT);
    // The wrapper and bin/braid exec java: what runs is the JVM itself, with no shell around it.
    assertThat(p.process().info().command())
        .hasValueSatisfying(c -> assertThat(c).endsWith("java"));
    return p;
  }

  /** SIGTERM, then: exit code 0 in time, the process and anything it started gone. */
  private void stop(BraidProcess p) throws InterruptedException {
    List<ProcessHandle> family = new ArrayList<>(p.process().descendants().toList());
    family.add(p.process().toHandle());
    long started = System.nanoTime();
    assertThat(p.terminate(STOP_TIMEOUT))
        .as("exit code after SIGTERM; %s", p.diagnostics())
        .isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(STOP_TIMEOUT);
    assertThat(p.process().isAlive()).isFalse();
    for (ProcessHandle h : family) {
      Await.until("process " + h.pid() + " to end", Duration.ofSeconds(5), () -> !h.isAlive());
    }
    assertThat(p.process().descendants()).isEmpty();
    running = null;
  }

  /**
   * Runs {@code ./braid args...} to its end and returns its stdout; fails unless it exits with 0
   * and says nothing on stderr.
   */
  private byte[] run(Path root, String name, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(root.resolve("braid").toString());
    command.addAll(List.of(args));
    Path out = tmp.resolve(name + ".out");
    Path err = tmp.resolve(name + ".err");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    pb.environment().putAll(environment());
    Process p = pb.start();
    if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail("%s did not end within %s", command, COMMAND_TIMEOUT);
    }
    String errText = Files.readString(err, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("exit code of %s; stderr: %s", command, errText).isZero();
    assertThat(errText).as("stderr of %s", command).isEmpty();
    return Files.readAllBytes(out);
  }

  private static Map<String, String> environment() {
    return Map.of(
        "JAVA_HOME",
        System.getProperty("java.home"),
        "BRAID_OPTS",
        JVM_OPTIONS,
        "BRAID_NO_BUILD",
        "1");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
