package io.braidfs.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.BraidClient;
import io.braidfs.client.FailoverResult;
import io.braidfs.client.MdsProbe;
import io.braidfs.client.MdsRole;
import io.braidfs.client.MdsStatus;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.OperationUnsupportedException;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.zk.EmbeddedZooKeeper;
import io.braidfs.proto.FailoverRequest;
import io.braidfs.testing.Await;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid admin ha} and {@code braid admin failover} through the client API against real MDS
 * replicas in this JVM (a real ZooKeeper and each replica's embedded bookie): every replica answers
 * HaStatus, the standbys too; Failover moves leadership to another replica under a higher epoch,
 * the old leader rejoining as a standby, and is refused by a standby (NOT_LEADER naming the
 * leader), to anyone but the superuser, for a target outside the election, for a stale epoch, with
 * no other replica left, and by a lone MDS (UNSUPPORTED).
 */
class HaAdminTest {
  private static final Duration WITHIN = Duration.ofSeconds(30);

  @TempDir Path dir;
  private EmbeddedZooKeeper zk;
  private final List<MdsServer> replicas = new ArrayList<>();

  @AfterEach
  void stop() {
    replicas.forEach(MdsServer::close);
    if (zk != null) {
      zk.close();
    }
  }

  private MdsServer start(Map<String, String> settings) throws IOException {
    MdsServer m = new MdsServer(BraidConfig.fromMap(settings));
    replicas.add(m);
    m.start();
    return m;
  }

  private List<MdsServer> startReplicas(int n) throws IOException {
    zk =
        new EmbeddedZooKeeper(
            BraidConfig.fromMap(
                Map.of("braid.zk.address", "127.0.0.1:0", "braid.zk.dir", dir.resolve("zk") + "")));
    zk.start();
    List<MdsServer> started = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<String, String> c = new HashMap<>();
      c.put("braid.mds.id", "mds-" + i);
      c.put("braid.mds.address", "127.0.0.1:0");
      c.put("braid.mds.store.dir", dir.resolve("mds-" + i).toString());
      c.put("braid.mds.ha.zk", zk.connectString());
      c.put("braid.mds.ha.zk-root", "/test");
      c.put("braid.mds.ha.session-timeout", "2s");
      try (ServerSocket s = new ServerSocket(0)) {
        c.put("braid.mds.ha.bookie.address", "127.0.0.1:" + s.getLocalPort());
      }
      started.add(start(c));
    }
    return started;
  }

  private static String address(MdsServer m) {
    return "127.0.0.1:" + m.address().getPort();
  }

  private static BraidConfig clientConfig(List<MdsServer> mds) {
    List<String> addresses = new ArrayList<>();
    mds.forEach(m -> addresses.add(address(m)));
    return BraidConfig.fromMap(
        Map.of(
            "braid.client.mds",
            String.join(",", addresses),
            "braid.client.mds.failover-timeout",
            "20s"));
  }

  /** The one replica that answers LEADER, once exactly one does and every other is a standby. */
  private static MdsStatus awaitOneLeader(MdsProbe probe, long aboveEpoch) {
    AtomicReference<MdsStatus> leader = new AtomicReference<>();
    Await.until(
        "one leader above epoch " + aboveEpoch + " and standbys",
        WITHIN,
        () -> {
          List<MdsStatus> leaders = new ArrayList<>();
          for (MdsProbe.Answer a : probe.statusOfAll()) {
            MdsStatus s = a.status();
            if (s != null && s.role() == MdsRole.LEADER) {
              leaders.add(s);
            } else if (s != null && s.role() != MdsRole.STANDBY) {
              return false;
            }
          }
          if (leaders.size() != 1 || leaders.get(0).epoch() <= aboveEpoch) {
            return false;
          }
          leader.set(leaders.get(0));
          return true;
        });
    return leader.get();
  }

  @Test
  void everyReplicaSaysWhatItIsAndFailoverMovesLeadershipUnderAHigherEpoch() throws Exception {
    List<MdsServer> mds = startReplicas(3);
    BraidConfig cfg = clientConfig(mds);
    try (MdsProbe probe = MdsProbe.open(cfg, "root");
        BraidClient root = BraidClient.builder(cfg).user("root").build();
        BraidClient alice = BraidClient.builder(cfg).user("alice").build();
        RpcClient raw = RpcClient.builder("raw").user("root").build()) {
      raw.start();
      MdsStatus leader = awaitOneLeader(probe, 0);
      root.mkdir("/before-failover", 0755);
      root.mkdir("/before-failover/a", 0755);
      // The standbys follow the journal up to the record before the leader's last: they apply only
      // what a quorum of bookies confirmed, which a ledger entry learns from the next one.
      long index = probe.status(leader.address()).journalIndex();
      Await.until(
          "the standbys to apply record " + (index - 1),
          WITHIN,
          () ->
              probe.statusOfAll().stream()
                  .allMatch(a -> a.status() != null && a.status().journalIndex() >= index - 1));
      List<MdsProbe.Answer> all = probe.statusOfAll();
      assertThat(all).extracting(MdsProbe.Answer::address).isEqualTo(probe.addresses());
      for (int i = 0; i < 3; i++) {
        MdsStatus s = all.get(i).status();
        assertThat(s).as("replica %d", i).isNotNull();
        assertThat(s.replicaId()).isEqualTo("mds-" + i);
        assertThat(s.address()).isEqualTo(address(mds.get(i)));
        assertThat(s.leaderHint()).isEqualTo(leader.address());
        assertThat(s.clusterId()).isNotEmpty().isEqualTo(leader.clusterId());
        if (s.address().equals(leader.address())) {
          assertThat(s.role()).isEqualTo(MdsRole.LEADER);
          assertThat(s.epoch()).isPositive();
        } else {
          assertThat(s.role()).isEqualTo(MdsRole.STANDBY);
          assertThat(s.epoch()).isZero();
        }
      }

      MdsServer standby =
          mds.stream().filter(m -> !address(m).equals(leader.address())).findFirst().orElseThrow();
      assertThatThrownBy(
              () ->
                  raw.callSync(
                      standby.address(), RpcMethod.FAILOVER, FailoverRequest.getDefaultInstance()))
          .satisfies(
              e -> {
                assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_LEADER);
                assertThat(RemoteErrorInfo.of(e).orElseThrow().getLeaderHint())
                    .isEqualTo(leader.address());
              });
      assertThatThrownBy(() -> alice.admin().failover("", 0))
          .isInstanceOf(AccessDeniedException.class);
      assertThatThrownBy(() -> root.admin().failover("127.0.0.1:1", 0))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT))
          .hasMessageContaining("not in the election");
      assertThatThrownBy(() -> root.admin().failover(leader.address(), 0))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT))
          .hasMessageContaining("is this leader");
      assertThatThrownBy(() -> root.admin().failover("", leader.epoch() + 1))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT))
          .hasMessageContaining("moved since");
      assertThat(probe.status(leader.address()).role())
          .as("refused failovers leave the leader in place")
          .isEqualTo(MdsRole.LEADER);

      FailoverResult handed = root.admin().failover(address(standby), leader.epoch());
      assertThat(handed)
          .isEqualTo(new FailoverResult(leader.replicaId(), leader.address(), leader.epoch()));
      AtomicReference<MdsStatus> next = new AtomicReference<>();
      Await.until(
          "another replica to lead under a higher epoch",
          WITHIN,
          () -> {
            for (MdsProbe.Answer a : probe.statusOfAll()) {
              MdsStatus s = a.status();
              if (s != null && s.role() == MdsRole.LEADER && s.epoch() > leader.epoch()) {
                next.set(s);
                return true;
              }
            }
            return false;
          });
      assertThat(next.get().address()).isNotEqualTo(leader.address());
      // The old leader rejoins the election as a standby, in its own process.
      Await.until(
          "the old leader to be a standby",
          WITHIN,
          () -> {
            try {
              return probe.status(leader.address()).role() == MdsRole.STANDBY;
            } catch (IOException e) {
              return false; // its server restarts
            }
          });
      assertThat(root.stat("/before-failover").isDirectory()).isTrue();

      // With every other replica gone, the leader has nobody to hand over to.
      for (MdsServer m : mds) {
        if (!address(m).equals(next.get().address())) {
          m.close();
        }
      }
      Await.until(
          "the leader to be alone in the election",
          WITHIN,
          () -> {
            try {
              root.admin().failover("", next.get().epoch());
              throw new AssertionError("a lone leader handed over");
            } catch (IOException e) {
              if (!String.valueOf(e.getMessage()).contains("no other replica")) {
                return false; // ZooKeeper has not dropped a closed replica's latch node yet
              }
              assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT);
              return true;
            }
          });
    }
  }

  @Test
  void aLoneMdsIsSingleAndHasNoFailover() throws Exception {
    MdsServer lone =
        start(
            Map.of(
                "braid.mds.id", "alone",
                "braid.mds.address", "127.0.0.1:0",
                "braid.mds.store.dir", dir.resolve("alone").toString()));
    BraidConfig cfg = clientConfig(List.of(lone));
    try (MdsProbe probe = MdsProbe.open(cfg, "nobody");
        BraidClient root = BraidClient.builder(cfg).user("root").build()) {
      MdsStatus s = probe.status(address(lone));
      assertThat(s.role()).isEqualTo(MdsRole.SINGLE);
      assertThat(s.replicaId()).isEqualTo("alone");
      assertThat(s.address()).isEqualTo(address(lone));
      assertThat(s.epoch()).isPositive();
      assertThat(s.leaderHint()).isEmpty();
      assertThat(s.clusterId()).isEqualTo(lone.namespace().clusterId()).isNotEmpty();
      assertThat(s.journalIndex()).isEqualTo(lone.journalIndex());
      assertThatThrownBy(() -> root.admin().failover("", 0))
          .isInstanceOf(OperationUnsupportedException.class)
          .hasMessageContaining("lone MDS");
    }
    // An address where nothing listens gets an answer too: why it did not answer.
    BraidConfig withDead =
        BraidConfig.fromMap(
            Map.of(
                "braid.client.mds",
                address(lone) + ",127.0.0.1:1",
                "braid.rpc.client.call-timeout",
                "5s"));
    try (MdsProbe probe = MdsProbe.open(withDead, "nobody")) {
      List<MdsProbe.Answer> answers = probe.statusOfAll();
      assertThat(answers.get(0).answered()).isTrue();
      assertThat(answers.get(1).answered()).isFalse();
      assertThat(answers.get(1).address()).isEqualTo("127.0.0.1:1");
      assertThat(StatusExceptions.statusOf(answers.get(1).failure())).isEqualTo(Status.UNAVAILABLE);
    }
  }
}
