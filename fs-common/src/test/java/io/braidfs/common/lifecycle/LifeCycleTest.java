package io.braidfs.common.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LifeCycleTest {
  @Test
  void startsRunsAndClosesOnce() {
    LifeCycle lc = new LifeCycle("svc");
    assertThat(lc.state()).isEqualTo(LifeCycle.State.NEW);
    lc.startTransition();
    assertThat(lc.running()).isTrue();
    lc.assertRunning();
    assertThat(lc.closeTransition()).isTrue();
    assertThat(lc.closeTransition()).as("a second close does nothing").isFalse();
    lc.closed();
    assertThat(lc.state()).isEqualTo(LifeCycle.State.CLOSED);
  }

  @Test
  void cannotStartTwiceOrAfterClose() {
    LifeCycle lc = new LifeCycle("svc");
    lc.startTransition();
    assertThatThrownBy(lc::startTransition)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("svc")
        .hasMessageContaining("STARTING");
    LifeCycle closed = new LifeCycle("other");
    closed.closeTransition();
    assertThatThrownBy(closed::startTransition).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aServiceClosedWhileStartingDoesNotBecomeRunning() {
    LifeCycle lc = new LifeCycle("svc");
    lc.startTransition();
    assertThat(lc.closeTransition()).isTrue();
    assertThat(lc.running()).isFalse();
    assertThatThrownBy(lc::assertRunning).hasMessageContaining("CLOSING");
  }

  @Test
  void aFailedStartCanStillBeClosed() {
    LifeCycle lc = new LifeCycle("svc");
    lc.startTransition();
    lc.failed();
    assertThat(lc.state()).isEqualTo(LifeCycle.State.FAILED);
    assertThat(lc.closeTransition()).isTrue();
  }
}
