package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three MDS replicas in this JVM with a real ZooKeeper and their embedded bookies: one leads, the
 * others answer NOT_LEADER with its address and follow the journal; when the leader stops another
 * takes over with every acknowledged change, under a higher epoch; a client's retry with the same
 * call id after the failover is applied once; the old leader rejoins as a standby and catches up.
 */
class HaFailoverTest {
  @TempDir Path dir;
  private HaTestBed bed;
  private final MdsServer[] replicas = new MdsServer[3];

  @BeforeEach
  void startZooKeeper() throws Exception {
    bed = new HaTestBed(dir, 3);
  }

  @AfterEach
  void stop() throws IOException {
    for (MdsServer m : replicas) {
      if (m != null) {
        m.close();
      }
    }
    bed.close();
  }

  private MdsServer start(int i) throws IOException {
    MdsServer m = new MdsServer(BraidConfig.fromMap(bed.replica(i)));
    replicas[i] = m;
    m.start();
    return m;
  }

  private MdsServer awaitLeader(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      for (MdsServer m : replicas) {
        if (m != null && m.role() == MdsServer.Role.LEADER) {
          return m;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no leader within " + within);
  }

  private static void awaitIndex(MdsServer m, long index) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (m.journalIndex() < index) {
      assertThat(System.nanoTime()).as("%s caught up to %d", m, index).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static List<String> list(RpcClient c, InetSocketAddress at, String path)
      throws IOException {
    ReadDirResponse r =
        c.callSync(at, RpcMethod.READ_DIR, ReadDirRequest.newBuilder().setPath(path).build());
    List<String> names = new ArrayList<>();
    r.getEntriesList().forEach(e -> names.add(e.getName()));
    return names;
  }

  @Test
  void standbysFollowAndOneTakesOverWithEveryAcknowledgedChange() throws Exception {
    for (int i = 0; i < 3; i++) {
      start(i);
    }
    MdsServer leader = awaitLeader(Duration.ofSeconds(30));
    long firstEpoch = leader.epoch();
    assertThat(firstEpoch).isPositive();
    try (RpcClient c = RpcClient.builder("test").user("root").build()) {
      c.start();
      for (MdsServer m : replicas) {
        if (m != leader) {
          assertThat(m.role()).isEqualTo(MdsServer.Role.STANDBY);
          assertThatThrownBy(
                  () ->
                      c.callSync(
                          m.address(),
                          RpcMethod.MKDIR,
                          MkdirRequest.newBuilder().setPath("/x").setMode(0755).build()))
              .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_LEADER))
              .hasMessageContaining("standby")
              .hasMessageContaining(String.valueOf(leader.address().getPort()));
        }
      }
      int n = 200;
      for (int i = 0; i < n; i++) {
        c.callSync(
            leader.address(),
            RpcMethod.MKDIR,
            MkdirRequest.newBuilder().setPath("/d/" + i).setMode(0755).setParents(true).build());
      }
      // A mkdir whose answer is "lost": the client retries it with the same call id after the
      // failover, and it is applied once (the retry cache is in the journal).
      long callId = c.newCallId();
      MkdirRequest once = MkdirRequest.newBuilder().setPath("/once").setMode(0755).build();
      try (RpcResponse<?> r =
          c.await(
              c.call(
                  leader.address(), RpcMethod.MKDIR, once, null, Duration.ofSeconds(10), callId))) {
        assertThat(r).isNotNull();
      }
      // The leader stops at once after its last answer: the successor must read the journal to its
      // end itself, not rely on what it had followed.
      io.braidfs.proto.SigningKeys keys = leader.namespace().signingKeys();
      int old = indexOf(leader);
      leader.close();
      replicas[old] = null;
      long stopped = System.nanoTime();
      MdsServer next = awaitLeader(Duration.ofSeconds(20));
      long tookMs = (System.nanoTime() - stopped) / 1_000_000;
      assertThat(next).isNotSameAs(leader);
      assertThat(next.epoch()).isGreaterThan(firstEpoch);
      // The signing keys follow the leader: tokens the old one issued still verify.
      assertThat(next.namespace().signingKeys()).isEqualTo(keys);
      assertThat(list(c, next.address(), "/d")).hasSize(n);
      try (RpcResponse<?> r =
          c.await(
              c.call(
                  next.address(), RpcMethod.MKDIR, once, null, Duration.ofSeconds(10), callId))) {
        assertThat(r).as("the retry answers as the first call did").isNotNull();
      }
      assertThatThrownBy(() -> c.callSync(next.address(), RpcMethod.MKDIR, once))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.ALREADY_EXISTS));
      c.callSync(
          next.address(),
          RpcMethod.MKDIR,
          MkdirRequest.newBuilder().setPath("/after").setMode(0755).build());
      // The old leader rejoins as a standby and catches up with what its successor wrote.
      MdsServer back = start(old);
      assertThat(back.role()).isEqualTo(MdsServer.Role.STANDBY);
      awaitIndex(back, next.journalIndex() - 1);
      // A hand-over (maintenance): the leader rejoins as a standby in its own process, another
      // leads with a higher epoch and every change.
      long epoch = next.epoch();
      next.handOver();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      MdsServer third;
      while ((third = leaderOtherThan(next)) == null || third.epoch() <= epoch) {
        assertThat(System.nanoTime()).as("a new leader after the hand-over").isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(list(c, third.address(), "/d")).hasSize(n);
      assertThat(list(c, third.address(), "/")).contains("after", "once");
      while (next.role() != MdsServer.Role.STANDBY) {
        assertThat(System.nanoTime()).as("the old leader back as a standby").isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(next.whenStopped()).isNotDone();
      System.out.println("failover after a clean stop took " + tookMs + " ms");
    }
  }

  private MdsServer leaderOtherThan(MdsServer not) {
    for (MdsServer m : replicas) {
      if (m != null && m != not && m.role() == MdsServer.Role.LEADER) {
        return m;
      }
    }
    return null;
  }

  private int indexOf(MdsServer m) {
    for (int i = 0; i < replicas.length; i++) {
      if (replicas[i] == m) {
        return i;
      }
    }
    throw new AssertionError(m + " is not a replica");
  }
}
