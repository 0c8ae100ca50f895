package io.braidfs.bench.driver;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.bench.Throughputs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What one {@code braid bench} invocation gives its experiments: the size (quick or full), the
 * number of rounds, scratch directories on the disk under test, references shared between
 * experiments, and a few shell helpers.
 *
 * <p>Thread-safety: the shared references are guarded by this object's lock, so a shutdown hook may
 * close them while an experiment runs; everything else is used by the driver's one thread.
 */
public final class Run implements AutoCloseable {
  private final boolean quick;
  private final int rounds;
  private final Path work;
  private final Path out;

  @GuardedBy("this")
  private final Map<String, AutoCloseable> shared = new LinkedHashMap<>();

  @GuardedBy("this")
  private final Deque<AutoCloseable> closeOrder = new ArrayDeque<>();

  private @Nullable Path fsx;
  private int fsxSeeds;
  private long fsxOps;
  private int failovers;

  Run(boolean quick, int rounds, Path work, Path out) {
    this.quick = quick;
    this.rounds = rounds;
    this.work = work;
    this.out = out;
  }

  /**
   * Sets what {@code --fsx}, {@code --fsx-seeds} and {@code --fsx-ops} gave (experiment 9); null or
   * 0 for an option not given.
   */
  void fsxOptions(@Nullable Path program, int seeds, long ops) {
    this.fsx = program;
    this.fsxSeeds = seeds;
    this.fsxOps = ops;
  }

  /** Sets what {@code --failovers} gave (experiment 11); 0 when not given. */
  void failoverOptions(int kills) {
    this.failovers = kills;
  }

  /**
   * Leader kills per setting in experiment 11: {@code --failovers}, else {@code --rounds}, else the
   * quick or full default.
   */
  public int failovers(int quickDefault, int fullDefault) {
    return failovers > 0 ? failovers : rounds(quickDefault, fullDefault);
  }

  /** The fsx program given with {@code --fsx}, or null to look for it. */
  public @Nullable Path fsx() {
    return fsx;
  }

  /** fsx processes at once (seeds): {@code --fsx-seeds}, or the quick or full default. */
  public int fsxSeeds(int quickDefault, int fullDefault) {
    return fsxSeeds > 0 ? fsxSeeds : quick ? quickDefault : fullDefault;
  }

  /** fsx operations per seed: {@code --fsx-ops}, or the quick or full default. */
  public long fsxOps(long quickDefault, long fullDefault) {
    return fsxOps > 0 ? fsxOps : quick ? quickDefault : fullDefault;
  }

  /** True for the small sizes that keep all experiments together to about 20 minutes. */
  public boolean quick() {
    return quick;
  }

  /**
   * The rounds to run: {@code --rounds} when given, otherwise the experiment's own default for the
   * quick or the full size.
   */
  public int rounds(int quickDefault, int fullDefault) {
    return rounds > 0 ? rounds : quick ? quickDefault : fullDefault;
  }

  /** Picks the quick or the full value. */
  public long size(long quickValue, long fullValue) {
    return quick ? quickValue : fullValue;
  }

  /** A new empty scratch directory under the work directory (on the disk being measured). */
  public Path scratch(String name) throws IOException {
    Path p = work.resolve(name);
    Throughputs.deleteTree(p);
    Files.createDirectories(p);
    return p;
  }

  /** The work directory: every system's files live on this disk. */
  public Path work() {
    return work;
  }

  /** Where results go (CSV, plots, Markdown fragments). */
  public Path out() {
    return out;
  }

  /**
   * A reference or cluster that several experiments use (HDFS, an sshd, the WAN emulator): started
   * by {@code start} the first time it is asked for, kept for later experiments, closed when the
   * run ends (last started, first closed).
   */
  @SuppressWarnings("unchecked")
  public synchronized <T extends AutoCloseable> T shared(String key, Callable<T> start)
      throws Exception {
    AutoCloseable c = shared.get(key);
    if (c == null) {
      c = start.call();
      shared.put(key, c);
      closeOrder.push(c);
    }
    return (T) c;
  }

  /** Closes a shared reference now (an experiment that needs it gone), if it was started. */
  public synchronized void closeShared(String key) throws Exception {
    AutoCloseable c = shared.remove(key);
    if (c != null) {
      closeOrder.remove(c);
      c.close();
    }
  }

  /** The systems in the order of one round: shifted by the round, so each leads in turn. */
  public static <T> List<T> rotate(List<T> systems, int round) {
    List<T> r = new ArrayList<>(systems.size());
    for (int i = 0; i < systems.size(); i++) {
      r.add(systems.get((i + round) % systems.size()));
    }
    return r;
  }

  /** True when the driver runs as root (it can drop the page cache and mount). */
  public static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  /**
   * Writes dirty pages and drops the page cache, so that the next read comes from the disk; false
   * (and nothing dropped) when not root.
   */
  public static boolean dropCaches() throws IOException, InterruptedException {
    if (!root()) {
      return false;
    }
    return sh(Path.of("/"), "sync && echo 3 > /proc/sys/vm/drop_caches") == 0;
  }

  /** Runs {@code command} with {@code sh -c} in {@code dir}, output to this process's; its exit. */
  public static int sh(Path dir, String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("sh", "-c", command).directory(dir.toFile()).inheritIO().start();
    if (!p.waitFor(2, TimeUnit.HOURS)) {
      p.destroyForcibly();
      throw new IOException("still running after 2 hours: " + command);
    }
    return p.exitValue();
  }

  /** Like {@link #sh} but a non-zero exit is an {@link IOException} naming the command. */
  public static void shOrFail(Path dir, String command) throws IOException, InterruptedException {
    int rc = sh(dir, command);
    if (rc != 0) {
      throw new IOException("exit " + rc + " from: " + command);
    }
  }

  /** True when {@code program} is on the PATH. */
  public static boolean installed(String program) throws IOException, InterruptedException {
    return new ProcessBuilder("sh", "-c", "command -v " + program + " >/dev/null 2>&1")
            .start()
            .waitFor()
        == 0;
  }

  /** Closes every shared reference, last started first; safe to call again (from a hook). */
  @Override
  public synchronized void close() throws Exception {
    Exception first = null;
    while (!closeOrder.isEmpty()) {
      try {
        closeOrder.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    shared.clear();
    if (first != null) {
      throw first;
    }
  }
}
