package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.PathExistsException;
import io.braidfs.common.error.ServiceUnavailableException;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.MkdirResponse;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's MDS failover: an address that refuses connections is passed over, a NOT_LEADER
 * answer sends the call to the hinted leader, every attempt of a call carries the same call id, and
 * the MDS applies a call retried with the same id only once.
 */
class FailoverTest {
  @TempDir static Path dir;
  static MiniCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(1).build();
    cluster.start();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static String freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return "127.0.0.1:" + s.getLocalPort(); // closed again: connections are refused
    }
  }

  BraidClient client(String mdsList, String timeout) throws IOException {
    return BraidClient.builder(
            BraidConfig.fromMap(
                Map.of(
                    ClientConfigKeys.MDS.name(), mdsList,
                    ClientConfigKeys.FAILOVER_TIMEOUT.name(), timeout)))
        .user("root")
        .build();
  }

  @Test
  void aDeadMdsAddressIsPassedOver() throws IOException {
    String real = HostPort.of(cluster.mdsAddress()).toString();
    try (BraidClient c = client(freePort() + "," + real, "10s")) {
      c.mkdirs("/failover/dead-first", 0755);
      assertThat(c.stat("/failover/dead-first").isDirectory()).isTrue();
    }
  }

  /** A stand-in for a standby MDS: answers every Mkdir NOT_LEADER with a hint, noting call ids. */
  static RpcServer standby(String hint, List<Long> callIds) throws IOException {
    ErrorInfo notLeader = ErrorInfo.newBuilder().setMessage("standby").setLeaderHint(hint).build();
    RpcServer s =
        RpcServer.builder("standby")
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .handle(
                RpcMethod.MKDIR,
                call -> {
                  callIds.add(call.callId());
                  call.fail(Status.NOT_LEADER, notLeader);
                },
                null)
            .build();
    s.start();
    return s;
  }

  @Test
  void notLeaderAnswersAreFollowedToTheHintedLeaderWithTheSameCallId() throws IOException {
    List<Long> second = new CopyOnWriteArrayList<>();
    List<Long> first = new CopyOnWriteArrayList<>();
    String real = HostPort.of(cluster.mdsAddress()).toString();
    try (RpcServer b = standby(real, second);
        RpcServer a = standby(HostPort.of(b.boundAddress()).toString(), first);
        BraidClient c = client(real, "10s")) {
      c.metadata().moveTo(a.boundAddress()); // as if the leader had been a, then moved twice
      c.mkdir("/hinted", 0755);
      assertThat(c.stat("/hinted").isDirectory()).isTrue();
      assertThat(first).hasSize(1);
      assertThat(second).isEqualTo(first);
      assertThat(c.metadata().leader()).isEqualTo(cluster.mdsAddress());
    }
  }

  @Test
  void noLeaderWithinTheTimeoutFailsWithUnavailable() throws IOException {
    long start = System.nanoTime();
    assertThatThrownBy(() -> client(freePort() + "," + freePort(), "1s"))
        .isInstanceOf(ServiceUnavailableException.class)
        .hasMessageContaining("no MDS answered as leader");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  BraidClient failFast(String mdsList, String timeout) throws IOException {
    return BraidClient.builder(
            BraidConfig.fromMap(
                Map.of(
                    ClientConfigKeys.MDS.name(),
                    mdsList,
                    ClientConfigKeys.FAILOVER_TIMEOUT.name(),
                    timeout,
                    ClientConfigKeys.FAIL_FAST_WHEN_REFUSED.name(),
                    "true",
                    "braid.rpc.call-timeout",
                    "300ms")))
        .user("root")
        .build();
  }

  @Test
  void failFastGivesUpAtOnceOnlyWhenEveryAddressRefuses() throws IOException {
    long start = System.nanoTime();
    assertThatThrownBy(() -> failFast(freePort() + "," + freePort(), "30s"))
        .isInstanceOf(ServiceUnavailableException.class)
        .hasMessageContaining("connection refused by every MDS address");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));

    // One address refuses, the other accepts and never answers (a paused MDS): waited for.
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      String slow = "127.0.0.1:" + silent.getLocalPort();
      assertThatThrownBy(() -> failFast(freePort() + "," + slow, "2s"))
          .isInstanceOf(ServiceUnavailableException.class)
          .hasMessageContaining("no MDS answered as leader");
    }

    // A refused address before a live one: passed over, as without fail-fast.
    String real = HostPort.of(cluster.mdsAddress()).toString();
    try (BraidClient c = failFast(freePort() + "," + real, "10s")) {
      assertThat(c.stat("/").isDirectory()).isTrue();
    }
  }

  @Test
  void aCallRetriedWithTheSameIdIsAppliedOnce() throws IOException {
    RpcClient rpc = cluster.newClient("root");
    long id = rpc.newCallId();
    MkdirRequest mkdir = MkdirRequest.newBuilder().setPath("/once").setMode(0755).build();
    for (int attempt = 0; attempt < 2; attempt++) {
      try (RpcResponse<MkdirResponse> r =
          rpc.await(
              rpc.call(
                  cluster.mdsAddress(),
                  RpcMethod.MKDIR,
                  mkdir,
                  null,
                  Duration.ofSeconds(10),
                  id))) {
        assertThat(r.message().getCreated()).isTrue();
      }
    }
    assertThatThrownBy(() -> rpc.callSync(cluster.mdsAddress(), RpcMethod.MKDIR, mkdir))
        .isInstanceOf(PathExistsException.class); // a new call id is a new call
  }
}
