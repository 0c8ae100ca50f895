package io.braidfs.dataserver;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.function.LongSupplier;

/**
 * A byte rate shared by several users: each asks to {@link #reserve} the bytes it is about to move
 * and is told how long to wait first, so that the bytes of all of them together never go faster
 * than the rate. Time unused is not saved up: after an idle spell the next bytes go at once, but no
 * burst follows (the shape of Guava's {@code RateLimiter} with no stored permits).
 *
 * <p>Thread-safety: thread-safe.
 */
final class RateLimit {
  private final long bytesPerSecond;
  private final LongSupplier nanoClock;

  /** When the bytes reserved so far will have gone, on {@link #nanoClock}'s scale. */
  @GuardedBy("this")
  private long freeAt;

  /**
   * @param bytesPerSecond the rate; 0 means unlimited
   * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
   */
  RateLimit(long bytesPerSecond, LongSupplier nanoClock) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("negative rate " + bytesPerSecond);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.nanoClock = nanoClock;
    this.freeAt = nanoClock.getAsLong();
  }

  /** Whether there is a limit at all. */
  boolean limited() {
    return bytesPerSecond > 0;
  }

  /**
   * Reserves {@code bytes} at the rate.
   *
   * @return nanoseconds to wait before moving them; 0 when they may go now
   */
  synchronized long reserve(long bytes) {
    if (bytesPerSecond == 0 || bytes <= 0) {
      return 0;
    }
    long now = nanoClock.getAsLong();
    long start = freeAt - now > 0 ? freeAt : now;
    // bytes * 1e9 overflows only past 9 GB in one reservation; callers move at most a few MiB.
    freeAt = start + Math.multiplyExact(bytes, 1_000_000_000L) / bytesPerSecond;
    return start - now;
  }
}
