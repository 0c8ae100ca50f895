package io.braidfs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.client.BraidClient;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.mds.namespace.NamespaceConfigKeys;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MiniCluster's failure hooks on real servers: the MDS restarted on its store and port (data
 * servers come back, clients go on), killed and started again; a data server stopped gracefully,
 * killed abruptly and restarted on its data; faults per RPC method on the MDS and a data server,
 * set, kept across a restart and cleared; and the MDS replica count the HA issue will fill in.
 */
class MiniClusterTest {
  @TempDir Path dir;

  private MiniCluster cluster;

  @AfterEach
  void close() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** Three data servers; files have one chunk set replicated on all three. */
  private MiniCluster start() throws IOException {
    cluster =
        MiniCluster.builder(dir)
            .dataServers(3)
            .config(NamespaceConfigKeys.REPLICATION.name(), "3")
            .build();
    cluster.start();
    return cluster;
  }

  private static byte[] write(BraidClient c, String path, int size) throws IOException {
    byte[] data = new byte[size];
    new Random(path.hashCode()).nextBytes(data);
    try (OutputStream out = c.create(path)) {
      out.write(data);
    }
    return data;
  }

  private static byte[] read(BraidClient c, String path) throws IOException {
    try (InputStream in = c.open(path)) {
      return in.readAllBytes();
    }
  }

  private Set<Integer> liveAtMds() {
    return cluster.mds().namespace().registry().liveServers().stream()
        .map(io.braidfs.mds.cluster.DataServer::id)
        .collect(Collectors.toSet());
  }

  private Set<Integer> runningIds() {
    return cluster.runningDataServers().stream()
        .map(DataServer::serverId)
        .collect(Collectors.toSet());
  }

  private static CompletableFuture<RpcResponse<PingResponse>> ping(
      RpcClient rpc, InetSocketAddress server, Duration timeout) {
    return rpc.call(
        server,
        RpcMethod.PING,
        PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8("hi")).build(),
        null,
        timeout);
  }

  /** The status the call failed with; fails if it succeeded. */
  private static Status failure(CompletableFuture<?> call) throws Exception {
    try {
      call.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return StatusExceptions.statusOf(e.getCause());
    }
    throw new AssertionError("the call succeeded");
  }

  private static void succeeds(CompletableFuture<RpcResponse<PingResponse>> call) throws Exception {
    call.get(60, TimeUnit.SECONDS).close();
  }

  @Test
  void restartMdsKeepsItsStoreAndPortAndTheDataServersAndClientsComeBack() throws Exception {
    start();
    BraidClient c = cluster.newBraidClient("root");
    byte[] before = write(c, "/before", 300_000);
    int port = cluster.mdsAddress().getPort();
    Set<Integer> ids = runningIds();

    cluster.restartMds();

    assertThat(cluster.mdsAddress().getPort()).isEqualTo(port);
    assertThat(liveAtMds()).isEqualTo(ids);
    // The same client: its connection to the old MDS is gone, the address is not.
    assertThat(read(c, "/before")).isEqualTo(before);
    byte[] after = write(c, "/after", 300_000); // placed on the data servers that came back
    assertThat(read(c, "/after")).isEqualTo(after);
  }

  @Test
  void aKilledMdsAnswersNothingUntilStartedAgainOnItsStore() throws Exception {
    start();
    BraidClient c = cluster.newBraidClient("root");
    byte[] data = write(c, "/kept", 100_000);
    BraidClient impatient =
        cluster.newBraidClient("root", Map.of(ClientConfigKeys.FAILOVER_TIMEOUT.name(), "1s"));
    assertThat(impatient.exists("/kept")).isTrue();

    cluster.killMds();
    assertThatThrownBy(() -> impatient.lstat("/kept"))
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.UNAVAILABLE));

    cluster.startMds();
    Await.until(
        "every data server back with the MDS",
        Duration.ofSeconds(20),
        () -> liveAtMds().containsAll(runningIds()));
    assertThat(read(c, "/kept")).isEqualTo(data);
    assertThat(impatient.lstat("/kept").size()).isEqualTo(data.length);
  }

  @Test
  void aStoppedDataServerAnswersWhatItHadAndAKilledOneResetsItsConnections() throws Exception {
    start();
    RpcClient rpc = cluster.newClient("root");
    // A call each server holds, then serves: within the stop's grace of 2 s, and long after the
    // kill (a 10 s hold: the stop of the other server comes first).
    cluster.dataServerFaults(0).delay(RpcMethod.PING, Duration.ofMillis(500));
    cluster.dataServerFaults(1).delay(RpcMethod.PING, Duration.ofSeconds(10));
    CompletableFuture<RpcResponse<PingResponse>> atStop =
        ping(rpc, cluster.dataServer(0).address(), Duration.ofSeconds(30));
    CompletableFuture<RpcResponse<PingResponse>> atKill =
        ping(rpc, cluster.dataServer(1).address(), Duration.ofSeconds(30));
    Await.until(
        "both pings held",
        Duration.ofSeconds(10),
        () ->
            cluster.dataServerFaults(0).hits(RpcMethod.PING) == 1
                && cluster.dataServerFaults(1).hits(RpcMethod.PING) == 1);

    cluster.stopDataServer(0);
    succeeds(atStop); // a graceful stop sends the answers of the calls it had started
    long t0 = System.nanoTime();
    cluster.killDataServer(1);
    assertThat(failure(atKill)).isEqualTo(Status.UNAVAILABLE); // a kill sends nothing more
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aKilledDataServerIsDeclaredDeadAndRestartsOnItsData() throws Exception {
    start();
    BraidClient c = cluster.newBraidClient("root");
    byte[] data = write(c, "/f", 200_000);
    assertThat(cluster.replicasOf(c, "/f")).hasSize(3);
    int id = cluster.dataServer(0).serverId();
    InetSocketAddress old = cluster.dataServer(0).address();

    cluster.killDataServer(0);

    assertThat(cluster.runningDataServers()).hasSize(2);
    assertThat(failure(ping(cluster.newClient("root"), old, Duration.ofSeconds(10))))
        .as("a connection to the killed server")
        .isEqualTo(Status.UNAVAILABLE);
    Await.until(
        "the MDS to declare data server " + id + " dead",
        Duration.ofSeconds(20),
        () -> !liveAtMds().contains(id));
    assertThat(read(c, "/f")).isEqualTo(data); // from the two replicas left

    cluster.restartDataServer(0);

    assertThat(cluster.dataServer(0).serverId()).isEqualTo(id);
    assertThat(liveAtMds()).contains(id);
    List<Replica> replicas = cluster.replicasOf(c, "/f");
    assertThat(replicas).hasSize(3); // its replica survived the kill on disk
    assertThat(read(c, "/f")).isEqualTo(data);
  }

  @Test
  void mdsFaultsDropDelayAndFailOneMethodUntilCleared() throws Exception {
    start();
    BraidClient c = cluster.newBraidClient("root");
    c.mkdirs("/d", 0755);
    RpcClient rpc = cluster.newClient("root");
    RpcFaults faults = cluster.mdsFaults();

    faults.fail(RpcMethod.GET_ATTR, Status.PERMISSION_DENIED);
    assertThatThrownBy(() -> c.lstat("/d"))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
    assertThat(c.list("/")).isNotEmpty(); // other methods are served
    faults.clear(RpcMethod.GET_ATTR);
    assertThat(c.lstat("/d").isDirectory()).isTrue();

    faults.drop(RpcMethod.GET_ATTR);
    CompletableFuture<?> dropped =
        rpc.call(
            cluster.mdsAddress(),
            RpcMethod.GET_ATTR,
            GetAttrRequest.newBuilder().setPath("/d").build(),
            null,
            Duration.ofMillis(500));
    assertThat(failure(dropped)).isEqualTo(Status.DEADLINE_EXCEEDED);
    assertThat(faults.hits(RpcMethod.GET_ATTR)).isEqualTo(2);
    faults.clearAll();

    faults.delay(RpcMethod.MKDIR, Duration.ofMillis(300));
    long t0 = System.nanoTime();
    c.mkdirs("/d/slow", 0755);
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(faults.hits(RpcMethod.MKDIR)).isPositive();
    faults.clearAll();

    faults.fail(RpcMethod.GET_ATTR, Status.NOT_FOUND);
    cluster.restartMds();
    assertThatThrownBy(() -> c.lstat("/d")).as("a fault kept across a restart").isNotNull();
    faults.clearAll();
    assertThat(c.lstat("/d/slow").isDirectory()).isTrue();
  }

  @Test
  void dataServerFaultsHitOnlyTheirServerAndSurviveItsRestart() throws Exception {
    start();
    RpcClient rpc = cluster.newClient("root");
    cluster.dataServerFaults(0).fail(RpcMethod.PING, Status.BUSY);

    assertThat(failure(ping(rpc, cluster.dataServer(0).address(), Duration.ofSeconds(10))))
        .isEqualTo(Status.BUSY);
    succeeds(ping(rpc, cluster.dataServer(1).address(), Duration.ofSeconds(10)));

    cluster.restartDataServer(0);
    assertThat(failure(ping(rpc, cluster.dataServer(0).address(), Duration.ofSeconds(10))))
        .isEqualTo(Status.BUSY);
    assertThat(cluster.dataServerFaults(0).hits(RpcMethod.PING)).isEqualTo(2);

    cluster.dataServerFaults(0).clearAll();
    succeeds(ping(rpc, cluster.dataServer(0).address(), Duration.ofSeconds(10)));
  }

  @Test
  void severalMdsReplicasNeedHighAvailability() {
    assertThatThrownBy(() -> MiniCluster.builder(dir).mdsReplicas(3).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("MDS replicas need MDS high availability")
        .hasMessageContaining("issue 27");
    assertThatThrownBy(() -> MiniCluster.builder(dir).mdsReplicas(0).build())
        .isInstanceOf(IllegalArgumentException.class);
    MiniCluster.builder(dir).mdsReplicas(1).build().close(); // one MDS is what exists
  }
}
