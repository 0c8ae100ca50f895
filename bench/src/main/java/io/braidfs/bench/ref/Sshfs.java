package io.braidfs.bench.ref;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A directory of an {@link Sshd}'s machine mounted with sshfs, reached through a given address (the
 * sshd itself, or a {@code LinkEmulator} route in front of it, so that the WAN sits between sshfs
 * and sshd).
 *
 * <p>Options: {@code IdentityFile} (the sshd's generated key), {@code StrictHostKeyChecking=no} and
 * {@code UserKnownHostsFile=/dev/null} (a fresh host key each run), {@code BatchMode=yes} (never
 * prompt). Caching is sshfs 3.7's default, as users run it: the kernel page cache on, sshfs's own
 * read-ahead on, the directory and attribute cache on ({@code dir_cache=yes}, 20 s); ssh's default
 * cipher, no compression, one connection ({@code max_conns=1}). sshfs runs in the foreground
 * ({@code -f}) as a child of this JVM, so that {@link #close()} can wait for it to end.
 *
 * <p>Thread-safety: thread-safe ({@link #close()} is idempotent).
 */
public final class Sshfs implements AutoCloseable {
  /** The options every mount gets; see the class comment. */
  public static final String OPTIONS =
      "StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,LogLevel=ERROR";

  private static final long MOUNT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);

  private final Process process;
  private final Path mountPoint;
  private final Path log;
  private boolean closed;

  private Sshfs(Process process, Path mountPoint, Path log) {
    this.process = process;
    this.mountPoint = mountPoint;
    this.log = log;
  }

  /**
   * Mounts {@code remoteDir} of {@code sshd}'s machine on {@code mountPoint} (an existing empty
   * directory), connecting to {@code via}; returns once the mount is in place.
   *
   * @throws IOException if sshfs is missing, exits, or the mount does not appear within 20 s (the
   *     message carries sshfs's output)
   */
  public static Sshfs mount(Sshd sshd, InetSocketAddress via, Path remoteDir, Path mountPoint)
      throws IOException, InterruptedException {
    Path mp = mountPoint.toAbsolutePath();
    Path log = Files.createTempFile("braid-sshfs-", ".log");
    Process p =
        new ProcessBuilder(
                "sshfs",
                "-f",
                "-p",
                Integer.toString(via.getPort()),
                sshd.user() + "@" + via.getAddress().getHostAddress() + ":" + remoteDir,
                mp.toString(),
                "-o",
                "IdentityFile=" + sshd.identityFile() + "," + OPTIONS)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Sshfs m = new Sshfs(p, mp, log);
    try {
      m.awaitMounted(via);
    } catch (IOException | InterruptedException | RuntimeException e) {
      m.close();
      throw e;
    }
    return m;
  }

  /** The mounted directory. */
  public Path directory() {
    return mountPoint;
  }

  private void awaitMounted(InetSocketAddress via) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + MOUNT_TIMEOUT_NANOS;
    while (!mounted(mountPoint)) {
      if (!process.isAlive()) {
        throw new IOException(
            "sshfs of "
                + mountPoint
                + " via "
                + via
                + " exited with "
                + process.exitValue()
                + ": "
                + Files.readString(log));
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "sshfs of " + mountPoint + " via " + via + " not mounted after 20 s: " + output());
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  /** True when /proc/self/mountinfo lists an sshfs mount on {@code dir}. */
  static boolean mounted(Path dir) throws IOException {
    List<String> lines = Files.readAllLines(Path.of("/proc/self/mountinfo"));
    String where = " " + dir + " ";
    for (String l : lines) {
      if (l.contains(where) && l.contains(" fuse.sshfs ")) {
        return true;
      }
    }
    return false;
  }

  private String output() throws IOException {
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  /**
   * Unmounts ({@code fusermount3 -u}, then a lazy unmount if the mount is busy), waits up to 10 s
   * for sshfs to exit (then kills it) and deletes its log. Idempotent.
   *
   * @throws IOException if the mount is still there afterwards
   */
  @Override
  public synchronized void close() throws IOException, InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (mounted(mountPoint) && unmount("-u") != 0) {
        unmount("-uz");
      }
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
      if (mounted(mountPoint)) {
        throw new IOException("sshfs mount " + mountPoint + " is still mounted after unmount");
      }
    } finally {
      Files.deleteIfExists(log);
    }
  }

  private int unmount(String flags) throws IOException, InterruptedException {
    Process u = new ProcessBuilder("fusermount3", flags, mountPoint.toString()).inheritIO().start();
    if (!u.waitFor(10, TimeUnit.SECONDS)) {
      u.destroyForcibly();
      return -1;
    }
    return u.exitValue();
  }

  @Override
  public String toString() {
    return "sshfs[" + mountPoint + "]";
  }
}
