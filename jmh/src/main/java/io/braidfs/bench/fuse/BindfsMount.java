package io.braidfs.bench.fuse;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A bindfs mount of a local directory: FUSE passthrough, the cost of FUSE itself with no network
 * (BENCHMARKING.md's references). bindfs runs as a daemon; {@link #close()} unmounts it.
 *
 * <p>Thread-safety: thread-safe ({@link #close()} is idempotent).
 */
public final class BindfsMount implements AutoCloseable {
  private final Path mountPoint;
  private boolean closed;

  private BindfsMount(Path mountPoint) {
    this.mountPoint = mountPoint;
  }

  /** True when bindfs is on the PATH. */
  public static boolean installed() throws IOException, InterruptedException {
    return run("sh", "-c", "command -v bindfs >/dev/null") == 0;
  }

  /**
   * Mounts {@code source} on {@code mountPoint} (both existing directories).
   *
   * @throws IOException if bindfs fails
   */
  public static BindfsMount mount(Path source, Path mountPoint)
      throws IOException, InterruptedException {
    int rc = run("bindfs", source.toString(), mountPoint.toString());
    if (rc != 0) {
      throw new IOException("exit " + rc + " from: bindfs " + source + " " + mountPoint);
    }
    return new BindfsMount(mountPoint);
  }

  public Path directory() {
    return mountPoint;
  }

  /**
   * Unmounts ({@code fusermount -u}). Idempotent.
   *
   * @throws IOException if the unmount fails
   */
  @Override
  public synchronized void close() throws IOException, InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    int rc = run("fusermount", "-u", mountPoint.toString());
    if (rc != 0) {
      throw new IOException("exit " + rc + " from: fusermount -u " + mountPoint);
    }
  }

  private static int run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).inheritIO().start();
    if (!p.waitFor(1, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("still running after a minute: " + String.join(" ", command));
    }
    return p.exitValue();
  }
}
