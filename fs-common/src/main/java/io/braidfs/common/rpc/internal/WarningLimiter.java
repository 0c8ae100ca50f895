package io.braidfs.common.rpc.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Logs a warning of each kind at most once per interval, so a flood of bad connections (a scanner,
 * an attacker, a misconfigured client in a loop) cannot fill the log or cost more than the
 * connections themselves. The next warning of a kind after a quiet interval says how many of that
 * kind were left out.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class WarningLimiter {
  private final Logger log;
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Kind> kinds = new ConcurrentHashMap<>();

  private static final class Kind {
    private long lastNanos;
    private boolean logged;
    private final AtomicLong suppressed = new AtomicLong();
  }

  /**
   * @param intervalNanos the least time between two warnings of one kind
   * @param nanoTime the clock ({@link System#nanoTime} in service)
   */
  public WarningLimiter(Logger log, long intervalNanos, LongSupplier nanoTime) {
    this.log = log;
    this.intervalNanos = intervalNanos;
    this.nanoTime = nanoTime;
  }

  /**
   * Logs {@code message} at WARN unless a warning of {@code kind} was logged less than one interval
   * ago, in which case it is only counted.
   *
   * @return whether it was logged
   */
  public boolean warn(String kind, String message) {
    Kind k = kinds.computeIfAbsent(kind, x -> new Kind());
    long now = nanoTime.getAsLong();
    long left;
    synchronized (k) {
      if (k.logged && now - k.lastNanos < intervalNanos) {
        k.suppressed.incrementAndGet();
        return false;
      }
      k.logged = true;
      k.lastNanos = now;
      left = k.suppressed.getAndSet(0);
    }
    if (left > 0) {
      log.warn("{} ({} more like it were not logged)", message, left);
    } else {
      log.warn(message);
    }
    return true;
  }

  /** How many warnings of {@code kind} were counted and not logged since the last one logged. */
  public long suppressed(String kind) {
    Kind k = kinds.get(kind);
    return k == null ? 0 : k.suppressed.get();
  }
}
