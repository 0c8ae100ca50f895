package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.cli.FailoverWait.Result;
import io.braidfs.client.MdsProbe;
import io.braidfs.client.MdsRole;
import io.braidfs.client.MdsStatus;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code braid admin failover --wait}'s polling against a scripted sequence of answers (what the
 * replicas would say over time): each way the wait ends.
 */
class FailoverWaitTest {
  private static final Duration TICK = Duration.ofMillis(5);

  /** Every replica's answers, round by round; the last round repeats. */
  private static final class Script implements FailoverWait.Poll {
    private final Deque<List<MdsProbe.Answer>> rounds = new ArrayDeque<>();
    int polls;

    @SafeVarargs
    Script(List<MdsProbe.Answer>... rounds) {
      this.rounds.addAll(List.of(rounds));
    }

    @Override
    public List<MdsProbe.Answer> statusOfAll() {
      polls++;
      return rounds.size() > 1 ? rounds.poll() : rounds.getFirst();
    }
  }

  private static MdsProbe.Answer as(String address, MdsRole role, long epoch) {
    return new MdsProbe.Answer(
        address, new MdsStatus("id-" + address, address, role, epoch, 5, "", "c"), null);
  }

  @Test
  void endsWhenAnotherReplicaLeadsUnderAHigherEpoch() throws Exception {
    Script s =
        new Script(
            // The old leader still says LEADER until it has stepped down: not what is waited for.
            List.of(as("a:1", MdsRole.LEADER, 3), as("b:1", MdsRole.STANDBY, 0)),
            List.of(as("a:1", MdsRole.STANDBY, 0), as("b:1", MdsRole.TAKING_OVER, 0)),
            List.of(as("a:1", MdsRole.STANDBY, 0), as("b:1", MdsRole.LEADER, 4)));
    FailoverWait.Outcome o =
        new FailoverWait(s, TICK, new StopSignal()).await(3, Duration.ofSeconds(10));
    assertThat(o.result()).isEqualTo(Result.LEADS);
    assertThat(o.leader()).isEqualTo(as("b:1", MdsRole.LEADER, 4).status());
    assertThat(o.askedAt()).isEqualTo("b:1");
    assertThat(s.polls).isEqualTo(3);
  }

  @Test
  void endsAtTheTimeoutOrAtAStop() throws Exception {
    Script s = new Script(List.of(as("a:1", MdsRole.LEADER, 3), as("b:1", MdsRole.STANDBY, 0)));
    FailoverWait.Outcome late =
        new FailoverWait(s, TICK, new StopSignal()).await(3, Duration.ofMillis(50));
    assertThat(late.result()).isEqualTo(Result.TIMED_OUT);
    assertThat(late.leader()).isNull();
    assertThat(s.polls).isGreaterThan(1);

    StopSignal stop = new StopSignal();
    stop.request();
    FailoverWait.Outcome stopped = new FailoverWait(s, TICK, stop).await(3, Duration.ofMinutes(1));
    assertThat(stopped.result()).isEqualTo(Result.STOPPED);
  }
}
