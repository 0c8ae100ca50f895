package io.braidfs.dataserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Copies beyond the limit wait their turn, in order, and start as running ones end. */
class CopyThrottleTest {
  @Test
  void copiesBeyondTheLimitWaitForASlot() {
    List<String> started = new ArrayList<>();
    try (CopyThrottle t = new CopyThrottle("test", 2, 0)) {
      t.acquire(() -> started.add("a"));
      t.acquire(() -> started.add("b"));
      t.acquire(() -> started.add("c"));
      t.acquire(() -> started.add("d"));
      assertThat(started).containsExactly("a", "b");
      assertThat(t.running()).isEqualTo(2);
      assertThat(t.waiting()).isEqualTo(2);

      t.release(); // a ends: c takes its slot
      assertThat(started).containsExactly("a", "b", "c");
      t.release();
      t.release();
      assertThat(started).containsExactly("a", "b", "c", "d");
      assertThat(t.running()).isEqualTo(1);
      t.release();
      assertThat(t.running()).isZero();
      assertThat(t.waiting()).isZero();
    }
  }

  @Test
  void withoutABandwidthLimitAPieceIsFetchedAtOnce() {
    List<String> fetched = new ArrayList<>();
    try (CopyThrottle t = new CopyThrottle("test", 1, 0)) {
      t.pace(4 << 20, () -> fetched.add("now"));
      assertThat(fetched).containsExactly("now");
    }
  }
}
