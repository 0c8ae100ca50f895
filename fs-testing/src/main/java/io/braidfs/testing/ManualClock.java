package io.braidfs.testing;

import io.braidfs.common.clock.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test advances it; both readings move together.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ManualClock implements Clock {
  private final AtomicLong nanos = new AtomicLong();
  private final long epochMillisAtZero;

  /** A clock whose wall time starts at {@code epochMillis}. */
  public ManualClock(long epochMillis) {
    this.epochMillisAtZero = epochMillis;
  }

  /** A clock whose wall time starts at 2026-01-01T00:00:00Z. */
  public ManualClock() {
    this(1_767_225_600_000L);
  }

  /**
   * Moves time forward.
   *
   * @throws IllegalArgumentException if {@code by} is negative: monotonic time never goes back
   */
  public ManualClock advance(Duration by) {
    if (by.isNegative()) {
      throw new IllegalArgumentException("a monotonic clock cannot go back: " + by);
    }
    nanos.addAndGet(by.toNanos());
    return this;
  }

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  @Override
  public long currentTimeMillis() {
    return epochMillisAtZero + nanos.get() / 1_000_000;
  }
}
