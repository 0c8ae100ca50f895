package io.braidfs.client.internal.data;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory all read-ahead of one client may hold: streams reserve a block's bytes before they ask
 * for it and give them back when the block is consumed or dropped. A stream that cannot reserve
 * reads ahead less; it never waits for memory.
 *
 * <p>Thread-safety: thread-safe (lock-free).
 */
public final class PrefetchBudget {
  private final long limit;
  private final AtomicLong used = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();

  public PrefetchBudget(long limit) {
    this.limit = limit;
  }

  /** Reserves {@code bytes} if they fit under the limit. */
  boolean tryReserve(long bytes) {
    while (true) {
      long u = used.get();
      if (u + bytes > limit) {
        return false;
      }
      if (used.compareAndSet(u, u + bytes)) {
        peak.accumulateAndGet(u + bytes, Math::max);
        return true;
      }
    }
  }

  void release(long bytes) {
    used.addAndGet(-bytes);
  }

  /** The most bytes read-ahead may hold. */
  public long limit() {
    return limit;
  }

  /** Bytes held by read-ahead now. */
  public long used() {
    return used.get();
  }

  /** The most bytes read-ahead has held at once since the client started. */
  public long peak() {
    return peak.get();
  }
}
