package io.braidfs.common.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.testing.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClockTest {
  @Test
  void systemClockReadsTheJvmClocks() {
    long before = System.currentTimeMillis();
    long wall = Clock.system().currentTimeMillis();
    assertThat(wall).isBetween(before, System.currentTimeMillis());
    long n1 = Clock.system().nanoTime();
    assertThat(Clock.system().nanoTime()).isGreaterThanOrEqualTo(n1);
  }

  @Test
  void manualClockMovesOnlyWhenAdvanced() {
    ManualClock clock = new ManualClock(1000);
    assertThat(clock.nanoTime()).isZero();
    clock.advance(Duration.ofMillis(1500));
    assertThat(clock.nanoTime()).isEqualTo(1_500_000_000L);
    assertThat(clock.currentTimeMillis()).isEqualTo(2500);
    assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
