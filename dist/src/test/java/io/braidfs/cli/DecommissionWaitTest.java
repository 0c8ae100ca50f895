package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.cli.DecommissionWait.Result;
import io.braidfs.client.ClusterReport;
import io.braidfs.client.ServerReport;
import io.braidfs.client.ServerState;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code braid admin decommission --wait}'s polling against a scripted sequence of cluster reports
 * (what the MDS would answer over time): each way the wait ends.
 */
class DecommissionWaitTest {
  private static final Duration TICK = Duration.ofMillis(5);

  /** Cluster reports in order; the last one repeats. */
  private static final class Script implements DecommissionWait.Poll {
    private final Deque<ClusterReport> reports = new ArrayDeque<>();
    int polls;

    Script(ClusterReport... reports) {
      this.reports.addAll(List.of(reports));
    }

    @Override
    public ClusterReport report() throws IOException {
      polls++;
      return reports.size() > 1 ? reports.poll() : reports.getFirst();
    }
  }

  private static ClusterReport with(ServerReport... servers) {
    return new ClusterReport(
        List.of(servers), 0, 0, 0, servers.length, 0, 0, 0, false, Duration.ZERO);
  }

  private static ServerReport server(int id, ServerState state, long replicas) {
    return new ServerReport(id, "h", 1, "", true, state, 0, 0, 0, replicas, Duration.ZERO, 0, 0, 1);
  }

  @Test
  void endsWhenTheServerIsDecommissioned() throws Exception {
    Script s =
        new Script(
            with(server(1, ServerState.IN_SERVICE, 5), server(2, ServerState.DECOMMISSIONING, 9)),
            with(server(2, ServerState.DECOMMISSIONING, 4)),
            with(server(2, ServerState.DECOMMISSIONED, 0)));
    DecommissionWait.Outcome o = new DecommissionWait(s, TICK, new StopSignal()).await(2, null);
    assertThat(o.result()).isEqualTo(Result.DECOMMISSIONED);
    assertThat(o.last()).isEqualTo(server(2, ServerState.DECOMMISSIONED, 0));
    assertThat(s.polls).isEqualTo(3);
  }

  @Test
  void givesUpAfterTheTimeoutWithTheLastStateSeen() throws Exception {
    Script s = new Script(with(server(2, ServerState.DECOMMISSIONING, 9)));
    long start = System.nanoTime();
    DecommissionWait.Outcome o =
        new DecommissionWait(s, TICK, new StopSignal()).await(2, Duration.ofMillis(100));
    assertThat(o.result()).isEqualTo(Result.TIMED_OUT);
    assertThat(o.last()).isEqualTo(server(2, ServerState.DECOMMISSIONING, 9));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(100));
    assertThat(s.polls).isGreaterThan(2);
  }

  @Test
  void endsWhenSomeoneElseChangesTheStateOrTheServerLeaves() throws Exception {
    Script recommissioned =
        new Script(
            with(server(2, ServerState.DECOMMISSIONING, 9)),
            with(server(2, ServerState.IN_SERVICE, 9)));
    DecommissionWait.Outcome changed =
        new DecommissionWait(recommissioned, TICK, new StopSignal()).await(2, null);
    assertThat(changed.result()).isEqualTo(Result.CHANGED);
    assertThat(changed.last()).isEqualTo(server(2, ServerState.IN_SERVICE, 9));

    Script gone = new Script(with(server(2, ServerState.DECOMMISSIONING, 9)), with());
    DecommissionWait.Outcome left =
        new DecommissionWait(gone, TICK, new StopSignal()).await(2, null);
    assertThat(left.result()).isEqualTo(Result.GONE);
    assertThat(left.last()).isEqualTo(server(2, ServerState.DECOMMISSIONING, 9));
  }

  @Test
  void aStopRequestEndsTheWait() throws Exception {
    StopSignal stop = new StopSignal();
    stop.request();
    Script s = new Script(with(server(2, ServerState.DECOMMISSIONING, 9)));
    DecommissionWait.Outcome o =
        new DecommissionWait(s, Duration.ofMinutes(10), stop).await(2, null);
    assertThat(o.result()).isEqualTo(Result.STOPPED);
    assertThat(s.polls).isEqualTo(1);
  }
}
