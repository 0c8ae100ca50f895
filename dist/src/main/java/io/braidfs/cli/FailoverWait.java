package io.braidfs.cli;

import io.braidfs.client.MdsProbe;
import io.braidfs.client.MdsRole;
import io.braidfs.client.MdsStatus;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code braid admin failover --wait}: asks every MDS address for its status until one answers
 * LEADER under an epoch above the one the old leader gave up, or the timeout passes, or a stop is
 * requested. Only a higher epoch counts: the old leader's own LEADER answers, until it has stepped
 * down, do not.
 *
 * <p>Thread-safety: not thread-safe; one command uses it on one thread.
 */
final class FailoverWait {
  /** How the wait ended. */
  enum Result {
    /** A replica leads under a higher epoch. */
    LEADS,
    /** The timeout passed first. */
    TIMED_OUT,
    /** A stop (Ctrl-C) was requested. */
    STOPPED
  }

  /**
   * The end of a wait: the new leader as it answered and the address it was asked at (both null
   * unless LEADS).
   */
  record Outcome(Result result, @Nullable MdsStatus leader, @Nullable String askedAt) {}

  /** A source of every MDS's answer: the probe. */
  @FunctionalInterface
  interface Poll {
    List<MdsProbe.Answer> statusOfAll();
  }

  private final Poll poll;
  private final Duration interval;
  private final StopSignal stop;

  FailoverWait(Poll poll, Duration interval, StopSignal stop) {
    this.poll = poll;
    this.interval = interval;
    this.stop = stop;
  }

  /**
   * Waits for a leader under an epoch above {@code epoch}, asking every interval.
   *
   * @throws InterruptedException if the thread is interrupted while it waits
   */
  Outcome await(long epoch, Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    while (true) {
      for (MdsProbe.Answer a : poll.statusOfAll()) {
        MdsStatus s = a.status();
        if (s != null && s.role() == MdsRole.LEADER && Long.compareUnsigned(s.epoch(), epoch) > 0) {
          return new Outcome(Result.LEADS, s, a.address());
        }
      }
      Duration left = timeout.minusNanos(System.nanoTime() - start);
      if (left.isNegative() || left.isZero()) {
        return new Outcome(Result.TIMED_OUT, null, null);
      }
      if (stop.awaitRequest(left.compareTo(interval) < 0 ? left : interval)) {
        return new Outcome(Result.STOPPED, null, null);
      }
    }
  }
}
