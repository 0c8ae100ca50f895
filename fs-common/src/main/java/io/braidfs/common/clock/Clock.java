package io.braidfs.common.clock;

/**
 * Time as Braid components read it: a monotonic reading for intervals (leases, heartbeats,
 * timeouts) and the wall clock for timestamps stored in metadata (mtime, token expiry). Injected
 * everywhere time matters so that tests can drive it with a manual clock instead of sleeping
 * (Caffeine's {@code Ticker}).
 *
 * <p>Thread-safety: implementations are thread-safe.
 */
public interface Clock {
  /** A monotonic reading in nanoseconds; only differences between readings mean anything. */
  long nanoTime();

  /** Wall-clock time in milliseconds since the epoch. */
  long currentTimeMillis();

  /** The system's clocks ({@link System#nanoTime()}, {@link System#currentTimeMillis()}). */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}
