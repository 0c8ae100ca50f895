package io.braidfs.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A Braid cluster as its own process, started the way README.md says: {@code ./braid local} from
 * the repository root, running the packaged tarball, with 3 data servers, {@code --data} in a
 * directory of the caller's and a free MDS port on 127.0.0.1. For ITs that use Braid through a
 * client of their own (Spark, Hadoop's FsShell) rather than test {@code braid local} itself, which
 * {@link LocalProcessIT} does.
 *
 * <p>It needs nothing but the JDK, so that it also runs on SparkJobIT's classpath, where neither
 * Braid's modules nor fs-common's test-jar are (see dist's pom.xml).
 *
 * <p>Thread-safety: not thread-safe; one test thread drives it.
 */
final class LocalBraid implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

  /** JVM options for the cluster: small and quick to start; these tests are not about speed. */
  private static final String JVM_OPTIONS = "-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

  private final Process process;
  private final Path log;
  private final int port;
  private final List<String> stdout = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Boolean> ready = new CompletableFuture<>();

  private LocalBraid(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
    Thread reader = new Thread(this::readStdout, "test-braid-local-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code ./braid local --data-servers 3 --data work/data --mds-port <free port>} and waits
   * for its ready line; its stderr (the log) goes to {@code work/braid-local.log}.
   *
   * @throws IllegalStateException if it ends or does not get ready within 60 s (it is killed)
   * @throws IOException if the process cannot be started
   */
  static LocalBraid start(Path work) throws IOException, InterruptedException {
    return start(work, List.of());
  }

  /** As {@link #start(Path)}, with more options for {@code braid local} (e.g. {@code -D k=v}). */
  static LocalBraid start(Path work, List<String> options)
      throws IOException, InterruptedException {
    Path root = repositoryRoot();
    int port = freePort();
    Path log = work.resolve("braid-local.log");
    List<String> command =
        new ArrayList<>(
            List.of(
                root.resolve("braid").toString(),
                "local",
                "--data-servers",
                "3",
                "--data",
                work.resolve("data").toString(),
                "--mds-port",
                Integer.toString(port)));
    command.addAll(options);
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(root.toFile())
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("BRAID_OPTS", JVM_OPTIONS);
    // Fail rather than build when dist/target holds no current tarball (failsafe runs after
    // package, so it does).
    pb.environment().put("BRAID_NO_BUILD", "1");
    LocalBraid braid = new LocalBraid(pb.start(), log, port);
    try {
      braid.awaitReady();
    } catch (RuntimeException | InterruptedException e) {
      braid.close();
      throw e;
    }
    return braid;
  }

  private void awaitReady() throws InterruptedException {
    boolean isReady;
    try {
      isReady = ready.get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "braid local not ready within " + READY_TIMEOUT + "; " + diagnostics(), e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("reading braid local's stdout; " + diagnostics(), e);
    }
    if (!isReady) {
      throw new IllegalStateException("braid local ended before it was ready; " + diagnostics());
    }
  }

  private void readStdout() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        stdout.add(line);
        if (line.startsWith(LocalCommand.READY)) {
          ready.complete(true);
        }
      }
      ready.complete(false);
    } catch (IOException e) {
      ready.completeExceptionally(e);
    }
  }

  /** The MDS's host:port, 127.0.0.1 and the port picked at start. */
  String authority() {
    return "127.0.0.1:" + port;
  }

  /** {@code braid://127.0.0.1:PORT/}. */
  URI uri() {
    return URI.create("braid://" + authority() + "/");
  }

  /** Whether the cluster process still runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  /** Stdout and the end of the log, for failure messages. */
  String diagnostics() {
    String tail;
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      tail = "(log unreadable: " + e + ")";
    }
    return "stdout:\n" + String.join("\n", stdout) + "\nlog " + log + " (last 40 lines):\n" + tail;
  }

  /**
   * Stops the cluster with SIGTERM, and SIGKILL if it is still there after 15 s (an interrupt skips
   * the wait, kills, and is restored).
   */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroyForcibly();
  }

  /**
   * The repository root: the nearest directory, from the working directory up, whose pom.xml is the
   * {@code braid-parent} project itself. (ConfigurationDocTest has the same search; it is not
   * called here because its class needs Braid's modules, which SparkJobIT's classpath lacks.)
   */
  static Path repositoryRoot() throws IOException {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path pom = dir.resolve("pom.xml");
      if (Files.isRegularFile(pom)) {
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        String withoutParent = text.replaceAll("(?s)<parent>.*?</parent>", "");
        if (withoutParent.contains("<artifactId>braid-parent</artifactId>")) {
          return dir;
        }
      }
    }
    throw new IllegalStateException(
        "no braid-parent pom.xml above " + Path.of("").toAbsolutePath());
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
