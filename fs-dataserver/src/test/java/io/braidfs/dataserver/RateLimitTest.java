package io.braidfs.dataserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The shared byte rate, on a clock the test moves. */
class RateLimitTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void reservationsAreSpacedAtTheRateAcrossCallers() {
    AtomicLong now = new AtomicLong(5 * SECOND);
    RateLimit limit = new RateLimit(1000, now::get);
    assertThat(limit.reserve(500)).isZero(); // the first bytes go at once
    assertThat(limit.reserve(1000)).isEqualTo(SECOND / 2); // after the first 500 have gone
    assertThat(limit.reserve(250)).isEqualTo(SECOND + SECOND / 2);
    now.addAndGet(SECOND);
    assertThat(limit.reserve(1)).isEqualTo(SECOND - SECOND / 4); // 6.75 s - 6 s
  }

  @Test
  void idleTimeIsNotSavedUpForABurst() {
    AtomicLong now = new AtomicLong();
    RateLimit limit = new RateLimit(1000, now::get);
    assertThat(limit.reserve(1000)).isZero();
    now.addAndGet(10 * SECOND);
    assertThat(limit.reserve(1000)).isZero();
    assertThat(limit.reserve(1000)).isEqualTo(SECOND);
  }

  @Test
  void zeroMeansUnlimited() {
    RateLimit limit = new RateLimit(0, () -> 0);
    assertThat(limit.limited()).isFalse();
    assertThat(limit.reserve(Long.MAX_VALUE / 2)).isZero();
    assertThat(limit.reserve(1 << 30)).isZero();
  }
}
