package io.braidfs.cli;

import io.braidfs.client.ClusterReport;
import io.braidfs.client.ServerReport;
import io.braidfs.client.ServerState;
import java.io.IOException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * {@code braid admin decommission --wait}: polls the cluster report until the data server is
 * DECOMMISSIONED, or something says that it will not get there: the timeout passed, its state was
 * changed to another one (someone recommissioned it), it left the report, or a stop was requested.
 *
 * <p>Thread-safety: not thread-safe; one command uses it on one thread.
 */
final class DecommissionWait {
  /** How the wait ended. */
  enum Result {
    /** The server reached DECOMMISSIONED. */
    DECOMMISSIONED,
    /** The timeout passed first. */
    TIMED_OUT,
    /** Its state became something other than DECOMMISSIONING or DECOMMISSIONED. */
    CHANGED,
    /** The MDS no longer reports it. */
    GONE,
    /** A stop (Ctrl-C) was requested. */
    STOPPED
  }

  /** The end of a wait, and the server as last seen (null only when it was never seen). */
  record Outcome(Result result, @Nullable ServerReport last) {}

  /** A source of cluster reports: the MDS, through the client. */
  @FunctionalInterface
  interface Poll {
    ClusterReport report() throws IOException;
  }

  private final Poll poll;
  private final Duration interval;
  private final StopSignal stop;

  DecommissionWait(Poll poll, Duration interval, StopSignal stop) {
    this.poll = poll;
    this.interval = interval;
    this.stop = stop;
  }

  /**
   * Waits for server {@code serverId}, asking every interval.
   *
   * @param timeout how long at most; null to wait until the end
   * @throws IOException if a report could not be had
   * @throws InterruptedException if the thread is interrupted while it waits
   */
  Outcome await(int serverId, @Nullable Duration timeout) throws IOException, InterruptedException {
    long start = System.nanoTime();
    ServerReport last = null;
    while (true) {
      ServerReport now = find(poll.report(), serverId);
      if (now == null) {
        return new Outcome(Result.GONE, last);
      }
      last = now;
      if (last.state() == ServerState.DECOMMISSIONED) {
        return new Outcome(Result.DECOMMISSIONED, last);
      }
      if (last.state() != ServerState.DECOMMISSIONING) {
        return new Outcome(Result.CHANGED, last);
      }
      Duration pause = interval;
      if (timeout != null) {
        Duration left = timeout.minusNanos(System.nanoTime() - start);
        if (left.isNegative() || left.isZero()) {
          return new Outcome(Result.TIMED_OUT, last);
        }
        pause = left.compareTo(interval) < 0 ? left : interval;
      }
      if (stop.awaitRequest(pause)) {
        return new Outcome(Result.STOPPED, last);
      }
    }
  }

  private static @Nullable ServerReport find(ClusterReport r, int serverId) {
    for (ServerReport s : r.servers()) {
      if (s.serverId() == serverId) {
        return s;
      }
    }
    return null;
  }
}
