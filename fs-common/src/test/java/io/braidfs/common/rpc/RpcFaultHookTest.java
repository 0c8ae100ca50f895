package io.braidfs.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server-side fault hook over real loopback sockets: drop, delay and fail per request, set and
 * cleared while the server runs, for inline handlers and handlers on an executor; and the abrupt
 * kill of a server's network side. Leaks of request payloads fail the class (LeakGate).
 */
class RpcFaultHookTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final AtomicInteger handled = new AtomicInteger();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  /** A server whose Ping handler counts its calls and echoes, inline or on its own thread. */
  private RpcServer server(boolean onExecutor, Duration shutdownGrace) throws IOException {
    ExecutorService pool = null;
    if (onExecutor) {
      ExecutorService p = Executors.newSingleThreadExecutor();
      closeables.add(p::shutdownNow);
      pool = p;
    }
    RpcOptions options =
        RpcOptions.from(
            BraidConfig.builder().set(RpcConfigKeys.SERVER_SHUTDOWN_GRACE, shutdownGrace).build());
    RpcServer server =
        closeLater(
            RpcServer.builder("faulty")
                .options(options)
                .handle(
                    RpcMethod.PING,
                    call -> {
                      handled.incrementAndGet();
                      call.reply(
                          PingResponse.newBuilder().setEcho(call.request().getEcho()).build(),
                          call.takePayload());
                    },
                    pool)
                .build());
    server.start();
    return server;
  }

  private RpcServer server(boolean onExecutor) throws IOException {
    return server(onExecutor, Duration.ofSeconds(2));
  }

  private RpcClient client() {
    RpcClient c = closeLater(RpcClient.builder("fault-test").user("alice").build());
    c.start();
    return c;
  }

  private static PingRequest ping(String s) {
    return PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8(s)).build();
  }

  /** A Ping carrying {@code payload} as its raw payload, with {@code timeout}. */
  private static CompletableFuture<RpcResponse<PingResponse>> call(
      RpcClient client, RpcServer server, String payload, Duration timeout) {
    return client.call(
        server.boundAddress(),
        RpcMethod.PING,
        ping(payload),
        Unpooled.copiedBuffer(payload, StandardCharsets.UTF_8),
        timeout);
  }

  private static Status statusOf(CompletableFuture<?> f) {
    try {
      f.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return StatusExceptions.statusOf(e.getCause());
    } catch (Exception e) {
      throw new AssertionError("the call did not end with a failure", e);
    }
    throw new AssertionError("the call succeeded");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void failAnswersTheGivenStatusAndRunsNoHandler(boolean onExecutor) throws Exception {
    RpcServer server = server(onExecutor);
    RpcClient client = client();
    RpcServerHooks.setFaultHook(
        server.boundAddress(),
        call -> call.method() == RpcMethod.PING ? Fault.fail(Status.NO_SPACE, "injected") : null);

    CompletableFuture<RpcResponse<PingResponse>> f =
        call(client, server, "payload", Duration.ofSeconds(10));
    assertThat(statusOf(f)).isEqualTo(Status.NO_SPACE);
    assertThatThrownBy(f::join).hasMessageContaining("injected");
    assertThat(handled).hasValue(0);
    assertThat(server.activeCalls()).isZero();
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void delayServesTheCallOnlyAfterTheDelay(boolean onExecutor) throws Exception {
    RpcServer server = server(onExecutor);
    RpcClient client = client();
    Duration delay = Duration.ofMillis(300);
    RpcServerHooks.setFaultHook(server.boundAddress(), call -> Fault.delay(delay));

    long t0 = System.nanoTime();
    try (RpcResponse<PingResponse> r =
        client.await(call(client, server, "late", Duration.ofSeconds(10)))) {
      assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(delay.toNanos());
      assertThat(r.message().getEcho().toStringUtf8()).isEqualTo("late");
      assertThat(ByteBufUtil.getBytes(r.payload()))
          .isEqualTo("late".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(handled).hasValue(1);
  }

  @Test
  void dropNeverAnswersAndAClosingServerDoesNotWaitForTheDroppedCall() throws Exception {
    // A grace far above the close time asserted below: a close that waited for the dropped call
    // would take all of it.
    RpcServer server = server(true, Duration.ofSeconds(20));
    RpcClient client = client();
    RpcServerHooks.setFaultHook(server.boundAddress(), call -> Fault.drop());

    assertThat(statusOf(call(client, server, "lost", Duration.ofMillis(500))))
        .isEqualTo(Status.DEADLINE_EXCEEDED);
    assertThat(handled).hasValue(0);
    assertThat(server.activeCalls()).isZero();

    long t0 = System.nanoTime();
    server.close();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aHookDecidesPerCallAndClearingItRestoresService() throws Exception {
    RpcServer server = server(false);
    RpcClient client = client();
    InetSocketAddress address = server.boundAddress();
    RpcServerHooks.setFaultHook(
        address,
        call ->
            call.request() instanceof PingRequest p && p.getEcho().toStringUtf8().equals("bad")
                ? Fault.fail(Status.CHECKSUM_MISMATCH, "bad one")
                : null);

    assertThat(statusOf(call(client, server, "bad", Duration.ofSeconds(10))))
        .isEqualTo(Status.CHECKSUM_MISMATCH);
    try (RpcResponse<PingResponse> r =
        client.await(call(client, server, "good", Duration.ofSeconds(10)))) {
      assertThat(r.message().getEcho().toStringUtf8()).isEqualTo("good");
    }

    RpcServerHooks.setFaultHook(address, null);
    try (RpcResponse<PingResponse> r =
        client.await(call(client, server, "bad", Duration.ofSeconds(10)))) {
      assertThat(r.message().getEcho().toStringUtf8()).isEqualTo("bad");
    }
    assertThat(handled).hasValue(2);
  }

  @Test
  void aCallDelayedPastTheServersCloseIsReleasedAndFailed() throws Exception {
    RpcServer server = server(false, Duration.ZERO);
    RpcClient client = client();
    CountDownLatch reached = new CountDownLatch(1);
    RpcServerHooks.setFaultHook(
        server.boundAddress(),
        call -> {
          reached.countDown();
          return Fault.delay(Duration.ofMillis(500));
        });

    CompletableFuture<RpcResponse<PingResponse>> f =
        call(client, server, "never served", Duration.ofSeconds(10));
    assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();
    server.close();
    assertThat(statusOf(f)).isEqualTo(Status.UNAVAILABLE);
    // The delayed task finds the event loops gone: it releases the payload (or LeakGate fails the
    // class) and answers, which ends the call's count.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.activeCalls() != 0 && System.nanoTime() - deadline < 0) {
      Thread.onSpinWait();
    }
    assertThat(server.activeCalls()).isZero();
    assertThat(handled).hasValue(0);
  }

  @Test
  void abortResetsEveryConnectionAndSendsNothingMore() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    closeables.add(pool::shutdownNow);
    RpcServer server =
        closeLater(
            RpcServer.builder("victim")
                .handle(
                    RpcMethod.PING,
                    call -> {
                      entered.countDown();
                      release.await();
                      call.reply(PingResponse.getDefaultInstance());
                    },
                    pool)
                .build());
    server.start();
    InetSocketAddress address = server.boundAddress();
    RpcClient client = client();

    CompletableFuture<RpcResponse<PingResponse>> inFlight =
        client.call(address, RpcMethod.PING, ping("x"), null, Duration.ofSeconds(60));
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    RpcServerHooks.abort(address);

    // Failed by the reset, long before its 60 s timeout.
    assertThat(statusOf(inFlight)).isEqualTo(Status.UNAVAILABLE);
    assertThat(server.connectionCount()).isZero();
    assertThat(
            statusOf(client.call(address, RpcMethod.PING, ping("y"), null, Duration.ofSeconds(10))))
        .as("a new connection to a killed server")
        .isEqualTo(Status.UNAVAILABLE);
    assertThatThrownBy(() -> RpcServerHooks.setFaultHook(address, call -> null))
        .isInstanceOf(IllegalStateException.class);

    release.countDown(); // the handler's late answer goes nowhere
    server.close();
  }

  @Test
  void anAddressNoServerListensOnIsRefused() {
    assertThatThrownBy(
            () -> RpcServerHooks.setFaultHook(new InetSocketAddress("127.0.0.1", 1), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("127.0.0.1");
  }
}
