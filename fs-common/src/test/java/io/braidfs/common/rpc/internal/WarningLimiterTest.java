package io.braidfs.common.rpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class WarningLimiterTest {
  private final AtomicLong now = new AtomicLong();
  private final WarningLimiter limiter =
      new WarningLimiter(LoggerFactory.getLogger(WarningLimiterTest.class), 10, now::get);

  @Test
  void oneWarningOfAKindPerIntervalTheRestCounted() {
    assertThat(limiter.warn("a", "first")).isTrue();
    now.set(9);
    assertThat(limiter.warn("a", "second")).isFalse();
    assertThat(limiter.warn("a", "third")).isFalse();
    assertThat(limiter.suppressed("a")).isEqualTo(2);
    // Another kind is not held back by the first.
    assertThat(limiter.warn("b", "other")).isTrue();
    now.set(10);
    assertThat(limiter.warn("a", "after the interval")).isTrue();
    assertThat(limiter.suppressed("a")).isZero();
  }

  @Test
  void anUnknownKindHasNothingSuppressed() {
    assertThat(limiter.suppressed("never")).isZero();
  }
}
