package io.braidfs.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import me.tongfei.progressbar.ProgressBar;
import org.jspecify.annotations.Nullable;

/**
 * The file copies of a recursive {@code braid fs put} or {@code get}, run a few at a time on a
 * small pool of its own, under one progress bar for the bytes of them all.
 *
 * <p>The walk of the tree adds the copies (and reports what it could not plan) on the command's
 * thread; {@link #run} then runs them and waits for every one to end. A failed copy is reported as
 * its one line and the others go on. On a stop request each running copy ends at its next buffer
 * and removes its temporary file itself, copies not yet started are skipped, and {@link #run}
 * returns only once every running copy has cleaned up: the shutdown hook waits for that.
 *
 * <p>Thread-safety: {@link #add} and {@link #failed} on the command's thread before {@link #run};
 * the copies themselves run on the pool and report through the session, which serialises that.
 */
final class ParallelCopy {
  /** The copy of one file; it removes its temporary file itself when it fails or is stopped. */
  @FunctionalInterface
  interface FileCopy {
    /**
     * Copies, stepping {@code bar} (if any) by the bytes moved.
     *
     * @throws PathFailure naming the path that failed, as its one line
     */
    void run(@Nullable ProgressBar bar) throws PathFailure;
  }

  /**
   * How long {@link #run} waits for interrupted copies to clean up once its thread is interrupted.
   */
  private static final Duration CLEANUP_WAIT = Duration.ofSeconds(20);

  private final FsSession session;
  private final String task;
  private final String root;
  private final List<FileCopy> copies = new ArrayList<>();
  private long bytes;
  private int failures;

  /**
   * The copies of {@code task} ({@code put} or {@code get}, the progress bar's label) into {@code
   * root}, the destination named when copies are skipped for a stop.
   */
  ParallelCopy(FsSession session, String task, String root) {
    this.session = session;
    this.task = task;
    this.root = root;
  }

  /** Adds the copy of a file of {@code size} bytes. */
  void add(long size, FileCopy copy) {
    bytes += Math.max(0, size);
    copies.add(copy);
  }

  /** Reports a failure found while walking the tree; the walk goes on, the exit code will be 1. */
  void failed(PathFailure f) {
    session.report(f);
    failures++;
  }

  /**
   * Runs the copies, at most {@code threads} at a time, and waits for them all.
   *
   * @return {@link Braid#EXIT_OK} if the walk and every copy succeeded, else {@link
   *     Braid#EXIT_FAILURE}
   * @throws IllegalArgumentException if {@code threads} is less than 1
   */
  int run(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1: " + threads);
    }
    AtomicInteger failed = new AtomicInteger(failures);
    AtomicInteger skipped = new AtomicInteger();
    if (!copies.isEmpty()) {
      AtomicInteger n = new AtomicInteger();
      ExecutorService pool =
          Executors.newFixedThreadPool(
              Math.min(threads, copies.size()),
              r -> new Thread(r, "braid-fs-" + task + "-" + n.incrementAndGet()));
      try (ProgressBar bar = Transfer.progressBar(task, bytes)) {
        List<Future<?>> running = new ArrayList<>(copies.size());
        for (FileCopy c : copies) {
          running.add(pool.submit(() -> copyOne(c, bar, failed, skipped)));
        }
        pool.shutdown();
        awaitAll(pool, running);
      }
    }
    if (skipped.get() > 0) {
      session.report(new PathFailure(root, "interrupted (" + skipped.get() + " files not copied)"));
    }
    return failed.get() == 0 && skipped.get() == 0 ? Braid.EXIT_OK : Braid.EXIT_FAILURE;
  }

  private void copyOne(
      FileCopy c, @Nullable ProgressBar bar, AtomicInteger failed, AtomicInteger skipped) {
    if (session.stop().isRequested()) {
      skipped.incrementAndGet();
      return;
    }
    try {
      c.run(bar);
    } catch (PathFailure f) {
      session.report(f);
      failed.incrementAndGet();
    }
  }

  /**
   * Waits for every copy; a copy's unchecked exception (a bug) is rethrown once all have ended. If
   * this thread is interrupted the copies are interrupted too, and waited for a bounded time so
   * they can remove their temporary files; the interrupt is then restored.
   */
  private static void awaitAll(ExecutorService pool, List<Future<?>> running) {
    try {
      while (!pool.awaitTermination(1, TimeUnit.SECONDS)) {
        // The copies check the stop signal themselves; this only waits for them.
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      try {
        pool.awaitTermination(CLEANUP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException again) {
        // Given up: restored below.
      }
      Thread.currentThread().interrupt();
      return;
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException r) {
          throw r;
        }
        if (cause instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // cannot happen: the pool has ended
        return;
      }
    }
  }
}
