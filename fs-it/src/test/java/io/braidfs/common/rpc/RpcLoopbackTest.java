package io.braidfs.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.BraidFileNotFoundException;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.HelloRequest;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import io.braidfs.testing.Await;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The RPC runtime over real loopback sockets: a real server and client, no fakes. */
class RpcLoopbackTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    Await.noBraidThreads(Duration.ofSeconds(10));
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  private RpcServer start(RpcServer.Builder builder) throws IOException {
    RpcServer server = closeLater(builder.build());
    server.start();
    return server;
  }

  private RpcClient client(RpcOptions options) {
    RpcClient client =
        closeLater(
            RpcClient.builder("test-client")
                .user("alice")
                .groups(List.of("staff", "wheel"))
                .options(options)
                .build());
    client.start();
    return client;
  }

  private RpcClient client() {
    return client(RpcOptions.defaults());
  }

  private static PingRequest ping(String s) {
    return PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8(s)).build();
  }

  private static Status statusOf(Throwable t) {
    Throwable cause = t instanceof ExecutionException ? t.getCause() : t;
    return ((StatusException) cause).status();
  }

  @ParameterizedTest
  @EnumSource(
      value = Transport.Choice.class,
      names = {"EPOLL", "NIO"})
  void pingRoundTripsOnEveryTransport(Transport.Choice transport) throws Exception {
    assumeTrue(
        transport != Transport.Choice.EPOLL || Epoll.isAvailable(),
        "the native epoll transport does not load on this machine");
    RpcOptions options =
        RpcOptions.from(BraidConfig.builder().set(RpcConfigKeys.TRANSPORT, transport).build());
    RpcServer server = start(RpcServer.builder("srv").options(options));
    RpcClient client = client(options);
    try (RpcResponse<PingResponse> r =
        client.await(client.call(server.boundAddress(), RpcMethod.PING, ping("hi")))) {
      assertThat(r.message().getEcho().toStringUtf8()).isEqualTo("hi");
      assertThat(r.latencyNanos()).isPositive();
      assertThat(r.serverMicros() * 1000).isLessThanOrEqualTo(r.latencyNanos());
    }
  }

  @Test
  void handlersSeeTheCallerFromHelloAndReportTheirHandlingTime() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    closeables.add(pool::shutdownNow);
    Queue<CallerContext> callers = new ConcurrentLinkedQueue<>();
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    call -> {
                      callers.add(call.caller());
                      long until = System.nanoTime() + 3_000_000;
                      while (System.nanoTime() < until) {
                        Thread.onSpinWait(); // measurable handling time
                      }
                      call.reply(PingResponse.getDefaultInstance());
                    },
                    pool));
    RpcClient client = client();
    try (RpcResponse<PingResponse> r =
        client.await(client.call(server.boundAddress(), RpcMethod.PING, ping("")))) {
      assertThat(r.serverMicros()).isGreaterThanOrEqualTo(3000);
    }
    CallerContext caller = callers.poll();
    assertThat(caller.user()).isEqualTo("alice");
    assertThat(caller.groups()).containsExactly("staff", "wheel");
    assertThat(caller.clientName()).isEqualTo("test-client");
    assertThat(caller.clientId()).isEqualTo(client.clientId());
  }

  @Test
  void sixteenConcurrentCallersEachGetTheirOwnAnswersOutOfOrder() throws Exception {
    ScheduledExecutorService delays = Executors.newScheduledThreadPool(2);
    closeables.add(delays::shutdownNow);
    Random random = new Random(7);
    Queue<String> answerOrder = new ConcurrentLinkedQueue<>();
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    call -> {
                      PingResponse answer =
                          PingResponse.newBuilder().setEcho(call.request().getEcho()).build();
                      delays.schedule(
                          () -> {
                            answerOrder.add(answer.getEcho().toStringUtf8());
                            call.reply(answer);
                          },
                          random.nextInt(2000),
                          TimeUnit.MICROSECONDS);
                    },
                    null));
    RpcClient client = client();
    ExecutorService callers = Executors.newFixedThreadPool(16);
    closeables.add(callers::shutdownNow);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      int caller = t;
      results.add(
          callers.submit(
              () -> {
                List<CompletableFuture<RpcResponse<PingResponse>>> calls = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                  calls.add(
                      client.call(server.boundAddress(), RpcMethod.PING, ping(caller + ":" + i)));
                }
                for (int i = 0; i < 200; i++) {
                  try (RpcResponse<PingResponse> r = client.await(calls.get(i))) {
                    assertThat(r.message().getEcho().toStringUtf8()).isEqualTo(caller + ":" + i);
                  }
                }
                return 200;
              }));
    }
    int total = 0;
    for (Future<Integer> f : results) {
      total += f.get();
    }
    assertThat(total).isEqualTo(3200);
    assertThat(server.connectionCount()).isEqualTo(1);
    // The answers really came back in another order than the calls went out.
    int[] last = new int[16];
    java.util.Arrays.fill(last, -1);
    boolean reordered = false;
    for (String echo : answerOrder) {
      int caller = Integer.parseInt(echo.substring(0, echo.indexOf(':')));
      int i = Integer.parseInt(echo.substring(echo.indexOf(':') + 1));
      reordered |= i < last[caller];
      last[caller] = Math.max(last[caller], i);
    }
    assertThat(reordered).as("some answers overtook earlier calls of the same caller").isTrue();
  }

  @Test
  void aClientDeadlineFailsTheCallWithoutAnAnswer() throws Exception {
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    call -> {
                      if (call.request().getEcho().toStringUtf8().equals("ok")) {
                        call.reply(
                            PingResponse.newBuilder().setEcho(call.request().getEcho()).build());
                      } // anything else is never answered
                    },
                    null));
    RpcClient client = client();
    long start = System.nanoTime();
    CompletableFuture<RpcResponse<PingResponse>> f =
        client.call(server.boundAddress(), RpcMethod.PING, ping(""), null, Duration.ofMillis(200));
    assertThatThrownBy(f::get)
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.DEADLINE_EXCEEDED))
        .hasMessageContaining("may or may not have been applied");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200));
    // The connection survives a timed-out call.
    assertThat(
            client
                .callSync(server.boundAddress(), RpcMethod.PING, ping("ok"))
                .getEcho()
                .toStringUtf8())
        .isEqualTo("ok");
  }

  @Test
  void theServerSkipsWorkWhoseDeadlinePassedInItsQueue() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    closeables.add(pool::shutdownNow);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger handled = new AtomicInteger();
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    call -> {
                      handled.incrementAndGet();
                      if (call.request().getEcho().toStringUtf8().equals("block")) {
                        gate.await();
                      }
                      call.reply(PingResponse.getDefaultInstance());
                    },
                    pool));
    RpcClient client = client();
    InetSocketAddress address = server.boundAddress();
    CompletableFuture<RpcResponse<PingResponse>> blocker =
        client.call(address, RpcMethod.PING, ping("block"), null, Duration.ofSeconds(30));
    Await.until("the blocking call to start", Duration.ofSeconds(10), () -> handled.get() == 1);
    long sent = System.nanoTime();
    CompletableFuture<RpcResponse<PingResponse>> late =
        client.call(address, RpcMethod.PING, ping("late"), null, Duration.ofMillis(100));
    assertThatThrownBy(late::get)
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.DEADLINE_EXCEEDED));
    // The server counts the budget from when it decoded the frame, a little after the client's
    // start: open the gate only once that budget has surely run out there too.
    Await.until(
        "twice the budget to pass",
        Duration.ofSeconds(5),
        () -> System.nanoTime() - sent > Duration.ofMillis(200).toNanos());
    gate.countDown();
    client.await(blocker).close();
    client.callSync(address, RpcMethod.PING, ping("after"));
    // "block" and "after" ran; "late" was dropped by the server because its deadline had passed.
    assertThat(handled.get()).isEqualTo(2);
  }

  @Test
  void handlerFailuresBecomeStatusesAndTheConnectionSurvives() throws Exception {
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    call -> {
                      switch (call.request().getEcho().toStringUtf8()) {
                        case "missing" ->
                            throw StatusExceptions.toIOException(
                                Status.NOT_FOUND, "getattr /a/b: no such file");
                        case "bug" -> throw new IllegalStateException("boom");
                        case "explicit" -> call.fail(Status.NOT_EMPTY, "rmdir /d: not empty");
                        default -> call.reply(PingResponse.getDefaultInstance());
                      }
                    },
                    null));
    RpcClient client = client();
    InetSocketAddress a = server.boundAddress();
    assertThatThrownBy(() -> client.callSync(a, RpcMethod.PING, ping("missing")))
        .isInstanceOf(BraidFileNotFoundException.class)
        .hasMessageContaining("getattr /a/b: no such file");
    assertThatThrownBy(() -> client.callSync(a, RpcMethod.PING, ping("bug")))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.INTERNAL))
        .hasMessageContaining("boom");
    assertThatThrownBy(() -> client.callSync(a, RpcMethod.PING, ping("explicit")))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.NOT_EMPTY));
    assertThatThrownBy(() -> client.callSync(a, RpcMethod.HELLO, HelloRequest.getDefaultInstance()))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT))
        .hasMessageContaining("second Hello");
    client.callSync(a, RpcMethod.PING, ping("still connected"));
    assertThat(server.connectionCount()).isEqualTo(1);
  }

  @Test
  void aMethodThisServerDoesNotServeIsUnsupportedNotFatal() throws Exception {
    RpcServer server = start(RpcServer.builder("srv"));
    RpcClient client = client();
    RpcMethod<?, ?> other =
        RpcMethod.all().stream()
            .filter(m -> m != RpcMethod.PING && m != RpcMethod.HELLO)
            .findFirst()
            .orElse(null);
    if (other == null) {
      return; // only Hello and Ping are registered yet
    }
    callUnserved(client, server.boundAddress(), other);
    client.callSync(server.boundAddress(), RpcMethod.PING, ping("still up"));
  }

  private static <Q extends com.google.protobuf.Message, R extends com.google.protobuf.Message>
      void callUnserved(RpcClient client, InetSocketAddress address, RpcMethod<Q, R> method) {
    assertThatThrownBy(() -> client.callSync(address, method, method.requestPrototype()))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.UNSUPPORTED))
        .hasMessageContaining("does not serve");
  }

  @Test
  void aConnectionLostMidCallFailsItsPendingCallsPromptly() throws Exception {
    AtomicInteger received = new AtomicInteger();
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(RpcMethod.PING, call -> received.incrementAndGet(), null));
    RpcClient client = client();
    List<CompletableFuture<RpcResponse<PingResponse>>> calls = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      calls.add(
          client.call(
              server.boundAddress(), RpcMethod.PING, ping("" + i), null, Duration.ofMinutes(5)));
    }
    Await.until("the server to hold 10 calls", Duration.ofSeconds(10), () -> received.get() == 10);
    RpcConnection connection = client.connection(server.boundAddress());
    assertThat(connection.outstanding()).isEqualTo(10);
    long start = System.nanoTime();
    server.close();
    for (CompletableFuture<RpcResponse<PingResponse>> f : calls) {
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
          .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.UNAVAILABLE));
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(connection.outstanding()).isZero();
    assertThat(connection.isOpen()).isFalse();
  }

  @Test
  void aLostConnectionIsReplacedOnTheNextCall() throws Exception {
    RpcServer server = start(RpcServer.builder("srv"));
    RpcClient client = client();
    InetSocketAddress a = server.boundAddress();
    client.callSync(a, RpcMethod.PING, ping(""));
    RpcConnection first = client.connection(a);
    assertThat(client.connection(a)).isSameAs(first);
    first.close("test closes it");
    Await.until("the connection to close", Duration.ofSeconds(5), () -> !first.isOpen());
    client.callSync(a, RpcMethod.PING, ping(""));
    assertThat(client.connection(a)).isNotSameAs(first);
  }

  @ParameterizedTest
  @EnumSource(
      value = Transport.Choice.class,
      names = {"EPOLL", "NIO"})
  void aRefusedConnectionFailsTheCallAsUnavailableCausedByTheRefusal(Transport.Choice transport)
      throws Exception {
    assumeTrue(
        transport != Transport.Choice.EPOLL || Epoll.isAvailable(),
        "the native epoll transport does not load on this machine");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    RpcClient client =
        client(
            RpcOptions.from(BraidConfig.builder().set(RpcConfigKeys.TRANSPORT, transport).build()));
    assertThatThrownBy(
            () ->
                client.callSync(new InetSocketAddress("127.0.0.1", port), RpcMethod.PING, ping("")))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.UNAVAILABLE))
        .hasMessageContaining("cannot connect")
        .hasCauseInstanceOf(ConnectException.class);
  }

  @ParameterizedTest
  @EnumSource(
      value = Transport.Choice.class,
      names = {"EPOLL", "NIO"})
  void onlyAnAddressInUseIsCalledSo(Transport.Choice transport) throws Exception {
    assumeTrue(
        transport != Transport.Choice.EPOLL || Epoll.isAvailable(),
        "the native epoll transport does not load on this machine");
    RpcOptions options =
        RpcOptions.from(BraidConfig.builder().set(RpcConfigKeys.TRANSPORT, transport).build());
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      InetSocketAddress busy = new InetSocketAddress("127.0.0.1", taken.getLocalPort());
      assertThatThrownBy(() -> start(RpcServer.builder("srv").bind(busy).options(options)))
          .isInstanceOf(BindException.class)
          .hasMessage(
              "srv: cannot listen on " + HostPort.of(busy) + ": another process listens there")
          .hasCauseInstanceOf(IOException.class);
    }
    // 192.0.2.1 (TEST-NET-1) is no address of this host: a BindException to NIO, but not in use.
    InetSocketAddress foreign = new InetSocketAddress("192.0.2.1", 7400);
    assertThatThrownBy(() -> start(RpcServer.builder("srv").bind(foreign).options(options)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(BindException.class)
        .hasMessageStartingWith("srv: cannot listen on 192.0.2.1:7400: ")
        .hasMessageNotContaining("another process");
  }

  @Test
  void payloadsTravelBothWaysAsRawBytes() throws Exception {
    RpcServer server = start(RpcServer.builder("srv")); // the built-in Ping echoes payloads
    RpcClient client = client();
    byte[] data = new byte[4 << 20];
    new Random(1).nextBytes(data);
    ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(data.length).writeBytes(data);
    try (RpcResponse<PingResponse> r =
        client.await(
            client.call(
                server.boundAddress(),
                RpcMethod.PING,
                ping(""),
                payload,
                Duration.ofSeconds(30)))) {
      assertThat(ByteBufUtil.getBytes(r.payload())).isEqualTo(data);
    }
  }

  @Test
  void anAnswerSerializedByTheHandlerArrivesAsTheMessageItsPartsMergeInto() throws Exception {
    byte[] first =
        PingResponse.newBuilder().setEcho(ByteString.copyFromUtf8("first")).build().toByteArray();
    byte[] second =
        PingResponse.newBuilder().setEcho(ByteString.copyFromUtf8("second")).build().toByteArray();
    byte[] both = new byte[first.length + second.length];
    System.arraycopy(first, 0, both, 0, first.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    AtomicReference<Throwable> twice = new AtomicReference<>();
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    c -> {
                      String echo = c.request().getEcho().toStringUtf8();
                      c.replyEncoded(echo.equals("one") ? first : both);
                      try {
                        c.replyEncoded(first);
                      } catch (IllegalStateException e) {
                        twice.set(e);
                      }
                    },
                    null));
    RpcClient client = client();
    assertThat(client.callSync(server.boundAddress(), RpcMethod.PING, ping("one")).getEcho())
        .isEqualTo(ByteString.copyFromUtf8("first"));
    // Concatenated parts merge as protobuf parses them: the later echo replaces the earlier.
    assertThat(client.callSync(server.boundAddress(), RpcMethod.PING, ping("two")).getEcho())
        .isEqualTo(ByteString.copyFromUtf8("second"));
    assertThat(twice.get()).hasMessageContaining("already answered");
  }

  @Test
  void outstandingCallsAreBoundedAndExtraCallersWaitThenGiveUp() throws Exception {
    Queue<ServerCall<PingRequest, PingResponse>> held = new ConcurrentLinkedQueue<>();
    RpcServer server = start(RpcServer.builder("srv").handle(RpcMethod.PING, held::add, null));
    RpcClient client =
        client(
            RpcOptions.from(
                BraidConfig.builder().set(RpcConfigKeys.CLIENT_MAX_OUTSTANDING, 8).build()));
    InetSocketAddress a = server.boundAddress();
    List<CompletableFuture<RpcResponse<PingResponse>>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(65536).writeZero(65536);
      calls.add(client.call(a, RpcMethod.PING, ping(""), payload, Duration.ofSeconds(30)));
    }
    Await.until("8 calls at the server", Duration.ofSeconds(10), () -> held.size() == 8);
    // A ninth caller waits for a slot, and gives up at its deadline without sending anything.
    ByteBuf extra = PooledByteBufAllocator.DEFAULT.directBuffer(65536).writeZero(65536);
    long start = System.nanoTime();
    CompletableFuture<RpcResponse<PingResponse>> ninth =
        client.call(a, RpcMethod.PING, ping(""), extra, Duration.ofMillis(300));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThatThrownBy(ninth::get)
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.DEADLINE_EXCEEDED))
        .hasMessageContaining("slots stayed busy");
    assertThat(extra.refCnt()).isZero(); // the unsent payload was released, not queued
    assertThat(client.connection(a).outstanding()).isEqualTo(8);
    assertThat(held).hasSize(8);
    // Answering frees the slots.
    held.forEach(c -> c.reply(PingResponse.getDefaultInstance()));
    for (CompletableFuture<RpcResponse<PingResponse>> f : calls) {
      client.await(f).close();
    }
    Await.until(
        "slots to be free", Duration.ofSeconds(5), () -> client.connection(a).outstanding() == 0);
  }

  @Test
  void theServerHandsAtMostMaxInflightRequestsOfAConnectionToHandlers() throws Exception {
    Queue<ServerCall<PingRequest, PingResponse>> held = new ConcurrentLinkedQueue<>();
    AtomicInteger inHandlers = new AtomicInteger();
    AtomicInteger maxInHandlers = new AtomicInteger();
    RpcOptions serverOptions =
        RpcOptions.from(BraidConfig.builder().set(RpcConfigKeys.SERVER_MAX_INFLIGHT, 4).build());
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .options(serverOptions)
                .handle(
                    RpcMethod.PING,
                    call -> {
                      maxInHandlers.accumulateAndGet(inHandlers.incrementAndGet(), Math::max);
                      held.add(call);
                    },
                    null));
    RpcClient client = client();
    InetSocketAddress a = server.boundAddress();
    List<CompletableFuture<RpcResponse<PingResponse>>> calls = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      calls.add(client.call(a, RpcMethod.PING, ping("" + i), null, Duration.ofSeconds(60)));
    }
    int answered = 0;
    while (answered < 100) {
      Await.until("a request to reach a handler", Duration.ofSeconds(10), () -> !held.isEmpty());
      ServerCall<PingRequest, PingResponse> call = held.poll();
      inHandlers.decrementAndGet();
      call.reply(PingResponse.newBuilder().setEcho(call.request().getEcho()).build());
      answered++;
    }
    for (int i = 0; i < 100; i++) {
      try (RpcResponse<PingResponse> r = client.await(calls.get(i))) {
        assertThat(r.message().getEcho().toStringUtf8()).isEqualTo("" + i);
      }
    }
    assertThat(maxInHandlers.get()).isEqualTo(4);
  }

  @Test
  void aCallThatCannotBeSentFailsAloneAndTheConnectionCarriesOn() throws Exception {
    RpcServer server = start(RpcServer.builder("srv"));
    RpcClient client = client();
    InetSocketAddress a = server.boundAddress();
    client.callSync(a, RpcMethod.PING, ping(""));
    ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(4).writeInt(7);
    CompletableFuture<RpcResponse<io.braidfs.proto.GetAttrResponse>> bad =
        client.call(
            a,
            RpcMethod.GET_ATTR,
            io.braidfs.proto.GetAttrRequest.getDefaultInstance(),
            payload,
            Duration.ofSeconds(5));
    assertThatThrownBy(bad::get)
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT))
        .hasMessageContaining("takes no payload");
    assertThat(payload.refCnt()).isZero();
    CompletableFuture<RpcResponse<PingResponse>> wrongType =
        client.call(a, RpcMethod.PING, ping(""), new byte[3], Duration.ofSeconds(5));
    assertThatThrownBy(wrongType::get)
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT));
    RpcConnection connection = client.connection(a);
    assertThat(client.callSync(a, RpcMethod.PING, ping("next")).getEcho().toStringUtf8())
        .isEqualTo("next");
    assertThat(client.connection(a)).isSameAs(connection);
    assertThat(connection.outstanding()).isZero();
  }

  @Test
  void aDeadlineHoldsWhileTheConnectionIsStillBeingMade() throws Exception {
    // A listener that never accepts, with its accept queue full: new connections hang in SYN.
    try (ServerSocket full = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      List<java.nio.channels.SocketChannel> fillers = new ArrayList<>();
      closeables.add(
          () -> {
            for (java.nio.channels.SocketChannel f : fillers) {
              f.close();
            }
          });
      for (int i = 0; i < 8; i++) {
        java.nio.channels.SocketChannel f = java.nio.channels.SocketChannel.open();
        f.configureBlocking(false);
        f.connect(full.getLocalSocketAddress());
        fillers.add(f);
      }
      RpcClient client = client();
      InetSocketAddress a = (InetSocketAddress) full.getLocalSocketAddress();
      long start = System.nanoTime();
      CompletableFuture<RpcResponse<PingResponse>> f =
          client.call(a, RpcMethod.PING, ping(""), null, Duration.ofMillis(300));
      assertThatThrownBy(() -> f.get(20, TimeUnit.SECONDS))
          .satisfies(
              e -> assertThat(statusOf(e)).isIn(Status.DEADLINE_EXCEEDED, Status.UNAVAILABLE));
      // Either the deadline fired while connecting, or the connection was refused at once; never
      // the 10 s connect timeout.
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void closingTheServerLetsRunningHandlersAnswer() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    closeables.add(pool::shutdownNow);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    call -> {
                      started.countDown();
                      finish.await();
                      call.reply(
                          PingResponse.newBuilder().setEcho(call.request().getEcho()).build());
                    },
                    pool));
    RpcClient client = client();
    CompletableFuture<RpcResponse<PingResponse>> f =
        client.call(
            server.boundAddress(), RpcMethod.PING, ping("done"), null, Duration.ofSeconds(30));
    started.await();
    Thread closer = new Thread(server::close, "test-closer");
    closer.start();
    Await.until(
        "the server to stop accepting", Duration.ofSeconds(5), () -> server.activeCalls() == 1);
    finish.countDown();
    try (RpcResponse<PingResponse> r = client.await(f)) {
      assertThat(r.message().getEcho().toStringUtf8()).isEqualTo("done");
    }
    closer.join(10_000);
    assertThat(closer.isAlive()).isFalse();
  }

  @Test
  void aPeerThatSendsButNeverReadsCannotMakeTheServerHoardMemory() throws Exception {
    RpcServer server =
        start(
            RpcServer.builder("srv")
                .handle(
                    RpcMethod.PING,
                    call -> call.reply(PingResponse.getDefaultInstance(), call.takePayload()),
                    null));
    java.nio.channels.SocketChannel raw =
        java.nio.channels.SocketChannel.open(server.boundAddress());
    closeables.add(raw);
    raw.configureBlocking(false);
    byte[] hello = io.braidfs.common.testing.RawFrames.hello(1, 1);
    byte[] echo =
        io.braidfs.common.testing.RawFrames.request(
            RpcMethod.PING.id(), 2, new byte[0], new byte[1 << 20]);
    long baseline = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
    long peak = baseline;
    long written = 0;
    int idle = 0;
    java.nio.ByteBuffer out = java.nio.ByteBuffer.wrap(hello);
    int frames = 0;
    // Send up to 200 MiB of echo requests without ever reading an answer, until the server's
    // backpressure stops us (no progress for half a second).
    while (idle < 500 && frames <= 200) {
      int n = raw.write(out);
      written += n;
      idle = n > 0 ? 0 : idle + 1;
      if (n == 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
      }
      if (!out.hasRemaining()) {
        out = java.nio.ByteBuffer.wrap(echo);
        frames++;
      }
      peak = Math.max(peak, PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory());
    }
    assertThat(written).as("bytes the server let in").isLessThan(100L << 20);
    assertThat(peak - baseline).as("server direct memory growth").isLessThan(48L << 20);
  }
}
