package io.braidfs.fuse;

import io.braidfs.common.config.BraidConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A mounted Braid file system: checks that FUSE can work here, connects to the cluster, mounts
 * {@link BraidFuse} on a directory and serves it on libfuse's threads until {@link #close()} or an
 * unmount from outside ({@code fusermount -u}).
 *
 * <pre>{@code
 * try (BraidMount m = BraidMount.mount(Path.of("/mnt/braid"), config, MountOptions.defaults())) {
 *   m.awaitUnmount();
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe; {@link #close()} may be called from any thread, more than once.
 */
public final class BraidMount implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BraidMount.class);
  private static final long MOUNT_WAIT_MS = 15_000;
  private static final long UNMOUNT_WAIT_MS = 10_000;

  private final Path dir;
  private final ClientPool clients;
  private final BraidFuse fs;
  private final Thread loop;
  private final CountDownLatch ended = new CountDownLatch(1);
  private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
  private volatile boolean closed;

  private BraidMount(Path dir, ClientPool clients, BraidFuse fs, MountOptions options) {
    this.dir = dir;
    this.clients = clients;
    this.fs = fs;
    String[] args = options.fuseArgs(fs.getFSNameForMount());
    this.loop =
        new Thread(
            () -> {
              try {
                fs.mount(dir, true, options.debug(), args);
              } catch (RuntimeException e) {
                failure.set(e);
              } finally {
                ended.countDown();
              }
            },
            "braid-fuse-loop");
    loop.setDaemon(true);
  }

  /**
   * Mounts Braid on {@code dir} and returns once the kernel serves the mount.
   *
   * @param config the client configuration ({@code braid.client.*}: MDS addresses, timeouts)
   * @throws MountException with a message for a person: FUSE missing, directory busy or not empty,
   *     cluster unreachable, libfuse refusing the mount
   */
  public static BraidMount mount(Path dir, BraidConfig config, MountOptions options)
      throws MountException {
    Path d = checkDirectory(dir);
    checkFuse(options);
    Identities ids = new Identities();
    String name = "braid";
    ClientPool pool = new ClientPool(config, ids, "fuse");
    try {
      int[] self = selfIds();
      pool.client(
          self[0], self[1], null); // fails now, not at the first request, if the MDS is away
    } catch (IOException e) {
      pool.close();
      throw new MountException(
          "cannot reach the Braid cluster ("
              + String.join(",", config.get(io.braidfs.client.ClientConfigKeys.MDS))
              + "): "
              + e.getMessage(),
          e);
    }
    BraidFuse fs;
    try {
      fs = new BraidFuse(pool, name, options.attrTimeout());
    } catch (LinkageError | RuntimeException e) {
      pool.close();
      throw new MountException(
          "FUSE is not available: libfuse 2 cannot be loaded ("
              + e.getMessage()
              + "); install it (Debian/Ubuntu: apt-get install libfuse2 fuse3)",
          e);
    }
    BraidMount m = new BraidMount(d, pool, fs, options);
    m.start();
    return m;
  }

  private void start() throws MountException {
    loop.start();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MOUNT_WAIT_MS);
    try {
      while (System.nanoTime() < deadline) {
        if (isMountPoint(dir)) {
          LOG.info("fuse: mounted on {}", dir);
          return;
        }
        if (ended.await(20, TimeUnit.MILLISECONDS)) {
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Throwable f = failure.get();
    close();
    throw new MountException(
        "cannot mount on "
            + dir
            + (f != null ? ": " + f.getMessage() : ": libfuse did not mount it")
            + " (libfuse prints its reason on stderr)",
        f);
  }

  /** The mount point. */
  public Path directory() {
    return dir;
  }

  /** The file system served. */
  public BraidFuse fileSystem() {
    return fs;
  }

  /** Waits until the file system is unmounted, by {@link #close()} or from outside. */
  public void awaitUnmount() throws InterruptedException {
    ended.await();
  }

  /** Waits up to {@code timeoutMs} for the unmount; true if it happened. */
  public boolean awaitUnmount(long timeoutMs) throws InterruptedException {
    return ended.await(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Unmounts ({@code fusermount -u}, lazily if the directory is busy) and waits for libfuse's loop
   * to end, then closes the clients, committing nothing more (release and destroy did).
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      if (ended.getCount() > 0 && isMountPoint(dir)) {
        if (!unmount(dir, false)) {
          LOG.warn("fuse: {} is busy; detaching it lazily", dir);
          unmount(dir, true);
        }
      }
      if (!ended.await(UNMOUNT_WAIT_MS, TimeUnit.MILLISECONDS)) {
        LOG.warn("fuse: libfuse's loop on {} did not end within {} ms", dir, UNMOUNT_WAIT_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      fs.shutdown();
      clients.close();
    }
    LOG.info("fuse: unmounted {}", dir);
  }

  // ---- checks -----------------------------------------------------------------------------------

  /**
   * Checks, without mounting or connecting, that {@code dir} can be mounted on with {@code
   * options}: an empty directory that is not a mount point, /dev/fuse and fusermount present.
   *
   * @throws MountException saying what is wrong and what to do
   */
  public static void check(Path dir, MountOptions options) throws MountException {
    checkDirectory(dir);
    checkFuse(options);
  }

  private static Path checkDirectory(Path dir) throws MountException {
    Path d = dir.toAbsolutePath().normalize();
    if (!Files.isDirectory(d)) {
      throw new MountException(d + ": no such directory (create the mount point first)", null);
    }
    try {
      d = d.toRealPath();
    } catch (IOException e) {
      throw new MountException(d + ": " + e.getMessage(), e);
    }
    if (isMountPoint(d)) {
      throw new MountException(
          d + " is busy: something is already mounted there (fusermount -u " + d + ")", null);
    }
    boolean empty;
    try (Stream<Path> s = Files.list(d)) {
      empty = s.findAny().isEmpty();
    } catch (IOException e) {
      throw new MountException(d + ": cannot list it: " + e.getMessage(), e);
    }
    if (!empty) {
      throw new MountException(d + " is not empty: mount on an empty directory", null);
    }
    return d;
  }

  private static void checkFuse(MountOptions options) throws MountException {
    if (!Files.exists(Path.of("/dev/fuse"))) {
      throw new MountException(
          "FUSE is not available: /dev/fuse is missing (modprobe fuse; in a container, run it with"
              + " --device /dev/fuse --cap-add SYS_ADMIN)",
          null);
    }
    if ((options.autoUnmount() || !MountOptions.isRoot()) && fusermount() == null) {
      throw new MountException(
          "FUSE is not available: fusermount is not installed (Debian/Ubuntu: apt-get install"
              + " fuse3 libfuse2)",
          null);
    }
  }

  private static @Nullable Path fusermount() {
    for (String p : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      for (String n : List.of("fusermount", "fusermount3")) {
        Path f = Path.of(p, n);
        if (Files.isExecutable(f)) {
          return f;
        }
      }
    }
    return null;
  }

  /** Whether {@code dir} is a mount point of this process's mount namespace. */
  static boolean isMountPoint(Path dir) {
    String want = dir.toString();
    try {
      for (String line :
          Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
        String[] f = line.split(" ");
        if (f.length > 4 && unescape(f[4]).equals(want)) {
          return true;
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  private static String unescape(String s) {
    if (s.indexOf('\\') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length()) {
        b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private static boolean unmount(Path dir, boolean lazy) {
    Path fm = fusermount();
    List<String> cmd = new ArrayList<>();
    if (fm != null) {
      cmd.add(fm.toString());
      cmd.add(lazy ? "-uz" : "-u");
    } else {
      cmd.add("umount");
      if (lazy) {
        cmd.add("-l");
      }
    }
    cmd.add(dir.toString());
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(UNMOUNT_WAIT_MS, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return false;
      }
      if (p.exitValue() != 0) {
        LOG.warn(
            "fuse: {} failed: {}", String.join(" ", cmd), new String(out, StandardCharsets.UTF_8));
        return false;
      }
      return true;
    } catch (IOException e) {
      LOG.warn("fuse: cannot run {}: {}", cmd.get(0), e.getMessage());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** This process's uid and gid (from /proc/self/status; 0 if unreadable). */
  static int[] selfIds() {
    int[] ids = new int[2];
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          ids[0] = Integer.parseInt(line.split("\\s+")[1]);
        } else if (line.startsWith("Gid:")) {
          ids[1] = Integer.parseInt(line.split("\\s+")[1]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: act as the JVM's user name's id lookups would
    }
    return ids;
  }
}
