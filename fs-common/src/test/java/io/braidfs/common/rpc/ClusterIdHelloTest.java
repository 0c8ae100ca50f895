package io.braidfs.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.InvalidArgumentException;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hello's cluster id over real loopback sockets: a server answers with the cluster its supplier
 * names, a client that expects a cluster refuses a server naming another one before sending it
 * anything (the calls queued behind the Hello fail unsent, payloads released), and a pinning client
 * keeps to the first cluster it meets.
 */
class ClusterIdHelloTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final AtomicInteger handled = new AtomicInteger();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** A server on port 0 naming {@code clusterId} in Hello, counting the Pings it serves. */
  private RpcServer server(String clusterId) throws IOException {
    AtomicReference<String> id = new AtomicReference<>(clusterId);
    RpcServer s =
        RpcServer.builder("server-" + (clusterId.isEmpty() ? "none" : clusterId))
            .clusterId(id::get)
            .handle(
                RpcMethod.PING,
                call -> {
                  handled.incrementAndGet();
                  call.reply(
                      PingResponse.newBuilder().setEcho(call.request().getEcho()).build(),
                      call.takePayload());
                },
                null)
            .build();
    closeables.add(s);
    s.start();
    return s;
  }

  private RpcClient client(@Nullable ExpectedCluster expected) {
    RpcClient.Builder b = RpcClient.builder("cluster-test").user("alice");
    if (expected != null) {
      b.expectedCluster(expected);
    }
    RpcClient c = b.build();
    closeables.add(c);
    c.start();
    return c;
  }

  private static PingRequest ping(String s) {
    return PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8(s)).build();
  }

  private static void pingOk(RpcClient client, RpcServer server) throws IOException {
    assertThat(client.callSync(server.boundAddress(), RpcMethod.PING, ping("x")).getEcho())
        .isEqualTo(ByteString.copyFromUtf8("x"));
  }

  @Test
  void helloNamesTheClusterOfTheServersSupplierAndNothingWithoutOne() throws IOException {
    RpcServer named = server("cluster-a");
    RpcServer unnamed = server("");
    RpcClient client = client(null);

    pingOk(client, named);
    pingOk(client, unnamed);

    assertThat(client.connection(named.boundAddress()).peerClusterId()).isEqualTo("cluster-a");
    assertThat(client.connection(unnamed.boundAddress()).peerClusterId()).isEmpty();
    assertThat(named.clusterId()).isEqualTo("cluster-a");
  }

  @Test
  void aServerOfAnotherClusterIsRefusedAndGetsNoCall() throws Exception {
    RpcServer other = server("cluster-b");
    RpcClient client = client(ExpectedCluster.pinFirst("cluster-a"));
    InetSocketAddress address = other.boundAddress();

    // Issued together, before the Hello is answered: without the wait for the check they would
    // follow the Hello onto the wire and be served.
    List<CompletableFuture<RpcResponse<PingResponse>>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(
          client.call(
              address,
              RpcMethod.PING,
              ping("p" + i),
              Unpooled.copiedBuffer("payload " + i, StandardCharsets.UTF_8),
              Duration.ofSeconds(10)));
    }
    for (CompletableFuture<RpcResponse<PingResponse>> call : calls) {
      Throwable failure = failureOf(call);
      assertThat(failure).isInstanceOf(InvalidArgumentException.class);
      assertThat(StatusExceptions.statusOf(failure)).isEqualTo(Status.INVALID_ARGUMENT);
      assertThat(failure.getMessage())
          .contains("'cluster-b'")
          .contains("'cluster-a'")
          .contains(HostPort.of(address).toString())
          .contains("server-cluster-b")
          .contains("refusing it");
      ClusterMismatch mismatch = ClusterMismatch.of(failure).orElseThrow();
      assertThat(mismatch.serverCluster()).isEqualTo("cluster-b");
      assertThat(mismatch.expectedCluster()).isEqualTo("cluster-a");
      assertThat(mismatch.address()).isEqualTo(address);
      assertThat(RemoteErrorInfo.of(failure)).isEmpty(); // refused here, not answered there
    }
    assertThatThrownBy(() -> client.callSync(address, RpcMethod.PING, ping("again")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("belongs to cluster 'cluster-b', not 'cluster-a'");
    assertThat(handled).hasValue(0);
  }

  @Test
  void aClientExpectingAClusterUsesItsServersAndThoseNamingNone() throws IOException {
    RpcServer own = server("cluster-a");
    RpcServer unnamed = server("");
    RpcClient client = client(ExpectedCluster.pinFirst("cluster-a"));

    pingOk(client, own);
    pingOk(client, unnamed);
    assertThat(handled).hasValue(2);
  }

  @Test
  void aPinningClientKeepsToTheFirstClusterItMeets() throws IOException {
    RpcServer first = server("cluster-a");
    RpcServer second = server("cluster-b");
    ExpectedCluster expected = ExpectedCluster.pinFirst("");
    RpcClient client = client(expected);
    assertThat(expected.clusterId()).isEmpty();

    pingOk(client, first);
    assertThat(expected.clusterId()).isEqualTo("cluster-a");
    assertThatThrownBy(() -> client.callSync(second.boundAddress(), RpcMethod.PING, ping("x")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("belongs to cluster 'cluster-b', not 'cluster-a'");
    pingOk(client, first);
    assertThat(handled).hasValue(2);
  }

  @Test
  void aFollowingClientChecksAgainstWhatItsSourceNamesAtEachHandshake() throws IOException {
    RpcServer server = server("cluster-b");
    AtomicReference<String> own = new AtomicReference<>("");
    RpcClient client = client(ExpectedCluster.following(own::get));

    pingOk(client, server); // no cluster of its own yet: anything goes
    client.connection(server.boundAddress()).close("test").awaitUninterruptibly();
    own.set("cluster-a");
    assertThatThrownBy(() -> client.callSync(server.boundAddress(), RpcMethod.PING, ping("x")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("belongs to cluster 'cluster-b', not 'cluster-a'");
    assertThat(handled).hasValue(1);
  }

  private static Throwable failureOf(CompletableFuture<?> f) throws Exception {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call succeeded");
  }
}
