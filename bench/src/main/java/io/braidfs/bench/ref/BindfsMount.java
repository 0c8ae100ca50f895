package io.braidfs.bench.ref;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * bindfs, Debian's FUSE passthrough, mounted over a directory of the disk under test: the cost of
 * FUSE itself with no network (BENCHMARKING.md). Installed by {@code bench/bench-setup.sh}.
 *
 * <p>Thread-safety: immutable once mounted; close from one thread.
 */
public final class BindfsMount implements AutoCloseable {
  private final Path source;
  private final Path mount;
  private boolean closed;

  private BindfsMount(Path source, Path mount) {
    this.source = source;
    this.mount = mount;
  }

  /**
   * Mounts {@code dir/src} on {@code dir/mnt} with bindfs' default options.
   *
   * @throws IOException if bindfs is missing or the mount fails
   */
  public static BindfsMount mount(Path dir) throws IOException {
    Path src = Files.createDirectories(dir.resolve("src"));
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    run(List.of("bindfs", src.toString(), mnt.toString()), "mounting bindfs on " + mnt);
    return new BindfsMount(src, mnt);
  }

  /** True when the bindfs program is on the PATH. */
  public static boolean installed() {
    try {
      return new ProcessBuilder("sh", "-c", "command -v bindfs >/dev/null 2>&1").start().waitFor()
          == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The mounted directory. */
  public Path mount() {
    return mount;
  }

  /** The directory the mount passes through to. */
  public Path source() {
    return source;
  }

  /** Unmounts ({@code fusermount -u}, lazily if busy). */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      run(List.of("fusermount", "-u", mount.toString()), "unmounting bindfs from " + mount);
    } catch (IOException e) {
      run(List.of("fusermount", "-u", "-z", mount.toString()), "lazily unmounting " + mount);
    }
  }

  private static void run(List<String> command, String what) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(what + ": " + String.join(" ", command) + " hung for 30 s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted " + what, e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.exitValue() != 0) {
      throw new IOException(what + " failed (exit " + p.exitValue() + "): " + out);
    }
  }
}
