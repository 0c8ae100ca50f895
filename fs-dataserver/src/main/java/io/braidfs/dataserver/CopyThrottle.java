package io.braidfs.dataserver;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps re-replication from crowding out foreground I/O on this server: at most {@code
 * braid.dataserver.copy.max-concurrent} copies run at once (further ones wait their turn, in
 * order), and together they fetch at most {@code braid.dataserver.copy.bandwidth} bytes per second.
 * Nothing here blocks a thread: a copy's start and its next piece are run later instead, the pieces
 * on a timer thread of the throttle's own, {@code braid-<id>-copy}.
 *
 * <p>Thread-safety: thread-safe.
 */
final class CopyThrottle implements AutoCloseable {
  private final int maxConcurrent;
  private final RateLimit rate;
  private final ScheduledExecutorService timer;

  @GuardedBy("this")
  private int running;

  @GuardedBy("this")
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

  CopyThrottle(String id, int maxConcurrent, long bytesPerSecond) {
    if (maxConcurrent < 1) {
      throw new IllegalArgumentException("max concurrent copies must be positive");
    }
    this.maxConcurrent = maxConcurrent;
    this.rate = new RateLimit(bytesPerSecond, System::nanoTime);
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "braid-" + id + "-copy");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Runs {@code start} once a copy may start: now, on this thread, if fewer than the maximum run;
   * otherwise on the thread that {@linkplain #release() releases} the next slot. The copy must
   * release its slot exactly once when it ends.
   */
  void acquire(Runnable start) {
    synchronized (this) {
      if (running >= maxConcurrent) {
        waiting.add(start);
        return;
      }
      running++;
    }
    start.run();
  }

  /** A copy ended: its slot goes to the first waiting copy, if any. */
  void release() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        running--;
        return;
      }
    }
    next.run();
  }

  /** Copies running now. */
  synchronized int running() {
    return running;
  }

  /** Copies waiting for a slot. */
  synchronized int waiting() {
    return waiting.size();
  }

  /**
   * Runs {@code fetch} once the bandwidth allows {@code bytes} more: at once on this thread, or
   * later on the throttle's timer thread.
   */
  void pace(long bytes, Runnable fetch) {
    long wait = rate.reserve(bytes);
    if (wait <= 0) {
      fetch.run();
      return;
    }
    try {
      timer.schedule(fetch, wait, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closing) {
      fetch.run(); // the server is closing: the fetch fails at once and ends its copy
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
