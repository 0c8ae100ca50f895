package io.braidfs.bench.fuse;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Unpacking a real source tarball with {@code tar x} and building it with {@code make} in a
 * directory of the file system under test (experiment 7 of BENCHMARKING.md), timed separately.
 * {@link FuseBench} and {@code braid bench} both run it.
 *
 * <p>Thread-safety: immutable; runs in different directories may overlap.
 */
public final class SourceBuild {
  private final Path tarball;
  private final String command;

  /** Seconds spent unpacking and building one tree. */
  public record Times(double unpackSeconds, double buildSeconds) {
    public double totalSeconds() {
      return unpackSeconds + buildSeconds;
    }
  }

  /**
   * Builds with {@code command} (run by {@code sh -c} in the unpacked tree's top directory, output
   * to {@code build.log} there).
   */
  public SourceBuild(Path tarball, String command) {
    this.tarball = tarball.toAbsolutePath();
    this.command = command;
  }

  /** Building the whole tree with one job per core and libc's malloc (no jemalloc build). */
  public static String defaultCommand() {
    return "make -j" + Runtime.getRuntime().availableProcessors() + " MALLOC=libc";
  }

  /**
   * The redis source tarball that bench/bench-setup.sh fetches into {@code where}.
   *
   * @throws IOException if there is none
   */
  public static Path findTarball(Path where) throws IOException {
    if (Files.isDirectory(where)) {
      try (DirectoryStream<Path> s = Files.newDirectoryStream(where, "redis_*.orig.tar.gz")) {
        for (Path p : s) {
          return p;
        }
      }
    }
    throw new IOException(
        "no source tarball in "
            + where.toAbsolutePath()
            + ": run bench/bench-setup.sh (it fetches Debian's redis source) or pass --tarball");
  }

  public Path tarball() {
    return tarball;
  }

  public String command() {
    return command;
  }

  /**
   * Unpacks the tarball into a new directory {@code where/name} and builds it there; the tree is
   * left for the caller to delete.
   *
   * @throws IOException if tar or the build fails (the message names the build log)
   */
  public Times run(Path where, String name) throws IOException, InterruptedException {
    Path tree = where.resolve(name);
    double unpack = unpack(where, name);
    Path top;
    try (DirectoryStream<Path> s = Files.newDirectoryStream(tree)) {
      top = s.iterator().next();
    }
    long t1 = System.nanoTime();
    sh(top, command + " >build.log 2>&1");
    return new Times(unpack, (System.nanoTime() - t1) / 1e9);
  }

  /**
   * Only unpacks the tarball into a new directory {@code where/name}; the seconds it took.
   *
   * @throws IOException if tar fails
   */
  public double unpack(Path where, String name) throws IOException, InterruptedException {
    Path tree = Files.createDirectories(where.resolve(name));
    long t0 = System.nanoTime();
    sh(tree, "tar xzf " + tarball + " -C " + tree);
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void sh(Path cwd, String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("sh", "-c", command).directory(cwd.toFile()).inheritIO().start();
    if (!p.waitFor(2, TimeUnit.HOURS)) {
      p.destroyForcibly();
      throw new IOException("still running after 2 hours in " + cwd + ": " + command);
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          "exit " + p.exitValue() + " in " + cwd + " from: " + command + " (see build.log there)");
    }
  }
}
