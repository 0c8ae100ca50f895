package io.braidfs.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.internal.FrameDecoder;
import io.braidfs.common.rpc.internal.FrameHeader;
import io.braidfs.common.testing.RawFrames;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.PingRequest;
import io.braidfs.testing.Await;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connections an attacker with network access could open (issue 28): silent ones, ones that stall
 * in the middle of a frame, oversized frames before any Hello, and floods from one address. Each is
 * closed on the server's own initiative, on real sockets, while a well-behaved client carries on.
 */
class RpcHostileConnectionTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private RpcServer server;

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    Await.noBraidThreads(Duration.ofSeconds(10));
  }

  private RpcServer start(BraidConfig.Builder config) throws IOException {
    server = RpcServer.builder("srv").options(RpcOptions.from(config.build())).build();
    closeables.add(server);
    server.start();
    return server;
  }

  private RpcClient client(BraidConfig.Builder config) throws IOException {
    RpcClient c = RpcClient.builder("good").options(RpcOptions.from(config.build())).build();
    closeables.add(c);
    c.start();
    return c;
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(server.boundAddress().getAddress(), server.boundAddress().getPort());
    closeables.add(s);
    s.setSoTimeout(10_000);
    return s;
  }

  private void assertServing() throws IOException {
    RpcClient c = client(BraidConfig.builder());
    PingRequest ping = PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8("alive")).build();
    assertThat(c.callSync(server.boundAddress(), RpcMethod.PING, ping).getEcho())
        .isEqualTo(ping.getEcho());
  }

  /** Reads until the server closes; returns how long that took. */
  private static Duration awaitClosed(Socket s) throws IOException {
    long start = System.nanoTime();
    InputStream in = s.getInputStream();
    byte[] buf = new byte[4096];
    try {
      while (in.read(buf) >= 0) {
        // answers before the close are not what this waits for
      }
    } catch (SocketException e) {
      assertThat(e.getMessage()).containsIgnoringCase("reset");
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  @Test
  void aConnectionThatNeverSaysHelloIsClosedAtTheHandshakeTimeout() throws IOException {
    start(
        BraidConfig.builder().set(RpcConfigKeys.SERVER_HANDSHAKE_TIMEOUT, Duration.ofMillis(300)));
    Socket silent = connect();
    Socket halfHeader = connect();
    halfHeader.getOutputStream().write(new byte[] {(byte) 0xB7, (byte) 0xA1, 1});

    assertThat(awaitClosed(silent)).isLessThan(Duration.ofSeconds(5));
    assertThat(awaitClosed(halfHeader)).isLessThan(Duration.ofSeconds(5));
    Await.until("the server forgets both", Duration.ofSeconds(5), () -> openFromLoopback() == 0);
    assertServing();
  }

  @Test
  void aHelloInTimeKeepsTheConnectionPastTheHandshakeTimeout() throws Exception {
    start(
        BraidConfig.builder().set(RpcConfigKeys.SERVER_HANDSHAKE_TIMEOUT, Duration.ofMillis(200)));
    Socket s = connect();
    OutputStream out = s.getOutputStream();
    out.write(RawFrames.hello(1, 1));
    DataInputStream in = new DataInputStream(s.getInputStream());
    assertThat(status(in)).isEqualTo(Status.OK);
    Thread.sleep(600); // three handshake timeouts: the accepted connection must stay
    out.write(RawFrames.request(RpcMethod.PING.id(), 2, new byte[0], new byte[0]));
    assertThat(status(in)).isEqualTo(Status.OK);
  }

  @Test
  void aFrameBeforeHelloIsHeldToTheSmallLimitWhateverTheServersLimits() throws IOException {
    start(BraidConfig.builder());
    // A 16 MiB payload announced before any Hello: refused from its header, nothing buffered.
    byte[] header =
        RawFrames.headerOnly(RawFrames.MAGIC, 1, 0, RpcMethod.PING.id(), 0, 7, 0, 0, 16L << 20);
    Socket s = connect();
    s.getOutputStream().write(header);
    DataInputStream in = new DataInputStream(s.getInputStream());
    Answer a = answer(in);
    assertThat(a.status()).isEqualTo(Status.FRAME_TOO_LARGE);
    assertThat(a.message()).contains("before the Hello was accepted");
    assertThat(awaitClosed(s)).isLessThan(Duration.ofSeconds(5));

    // A message just over the limit too, even with no payload.
    byte[] big =
        RawFrames.headerOnly(
            RawFrames.MAGIC,
            1,
            0,
            RpcMethod.HELLO.id(),
            0,
            8,
            0,
            FrameDecoder.BEFORE_HELLO_MAX_MESSAGE + 1L,
            0);
    Socket t = connect();
    t.getOutputStream().write(big);
    assertThat(answer(new DataInputStream(t.getInputStream())).status())
        .isEqualTo(Status.FRAME_TOO_LARGE);
    assertServing();
  }

  @Test
  void afterHelloTheConfiguredLimitsApplyToFramesSentRightBehindIt() throws IOException {
    start(BraidConfig.builder());
    // A client pipelines its calls behind the Hello: a payload-carrying frame in the same write
    // must meet the full limits, not the ones before Hello.
    byte[] payload = new byte[256 << 10];
    Socket s = connect();
    OutputStream out = s.getOutputStream();
    ByteBuffer both = ByteBuffer.allocate(RawFrames.hello(1, 1).length + FrameHeader.LENGTH);
    both.put(RawFrames.hello(1, 1));
    both.put(
        RawFrames.headerOnly(
            RawFrames.MAGIC, 1, 0, RpcMethod.PING.id(), 0, 2, 0, 0, payload.length));
    out.write(both.array());
    out.write(payload);
    DataInputStream in = new DataInputStream(s.getInputStream());
    assertThat(status(in)).isEqualTo(Status.OK); // the Hello
    // Answered, not refused as too large: the Hello lifted the limits before this frame's header
    // was read.
    assertThat(status(in)).isEqualTo(Status.OK);
  }

  @Test
  void aConnectionStalledInTheMiddleOfAFrameIsClosedWhenIdle() throws IOException {
    start(
        BraidConfig.builder()
            .set(RpcConfigKeys.SERVER_IDLE_TIMEOUT, Duration.ofMillis(300))
            .set(RpcConfigKeys.SERVER_HANDSHAKE_TIMEOUT, Duration.ofMinutes(1)));
    Socket s = connect();
    OutputStream out = s.getOutputStream();
    out.write(RawFrames.hello(1, 1));
    // Half of a frame announcing a 512 KiB payload, then nothing.
    out.write(
        RawFrames.headerOnly(RawFrames.MAGIC, 1, 0, RpcMethod.PING.id(), 0, 2, 0, 0, 512L << 10));
    out.write(new byte[1000]);
    assertThat(awaitClosed(s)).isLessThan(Duration.ofSeconds(5));
    assertServing();
  }

  @Test
  void aRequestBeingHandledKeepsItsConnectionPastTheIdleTimeout() throws Exception {
    ExecutorService slow = Executors.newSingleThreadExecutor();
    closeables.add(slow::shutdownNow);
    server =
        RpcServer.builder("srv")
            .options(
                RpcOptions.from(
                    BraidConfig.builder()
                        .set(RpcConfigKeys.SERVER_IDLE_TIMEOUT, Duration.ofMillis(200))
                        .build()))
            .handle(
                RpcMethod.PING,
                call -> {
                  try {
                    Thread.sleep(1_000);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  call.reply(pong());
                },
                slow)
            .build();
    closeables.add(server);
    server.start();
    RpcClient c =
        client(BraidConfig.builder().set(RpcConfigKeys.CLIENT_IDLE_TIMEOUT, Duration.ZERO));
    assertThat(c.callSync(server.boundAddress(), RpcMethod.PING, PingRequest.getDefaultInstance()))
        .isNotNull();
  }

  private static io.braidfs.proto.PingResponse pong() {
    return io.braidfs.proto.PingResponse.getDefaultInstance();
  }

  @Test
  void aClientEndsItsIdleConnectionsAndTheNextCallOpensANewOne() throws IOException {
    start(BraidConfig.builder());
    RpcClient c =
        client(
            BraidConfig.builder().set(RpcConfigKeys.CLIENT_IDLE_TIMEOUT, Duration.ofMillis(200)));
    PingRequest ping = PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8("1")).build();
    c.callSync(server.boundAddress(), RpcMethod.PING, ping);
    assertThat(server.connectionCount()).isEqualTo(1);
    Await.until(
        "the client closes its idle connection",
        Duration.ofSeconds(5),
        () -> server.connectionCount() == 0);
    assertThat(c.callSync(server.boundAddress(), RpcMethod.PING, ping).getEcho())
        .isEqualTo(ping.getEcho());
  }

  @Test
  void oneAddressHoldsAtMostTheConfiguredNumberOfConnections() throws Exception {
    start(
        BraidConfig.builder()
            .set(RpcConfigKeys.SERVER_MAX_CONNECTIONS_PER_HOST, 3)
            .set(RpcConfigKeys.SERVER_HANDSHAKE_TIMEOUT, Duration.ofMinutes(1)));
    List<Socket> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(connect());
    }
    Await.until("three connections open", Duration.ofSeconds(5), () -> openFromLoopback() == 3);
    Socket fourth = connect();
    assertThat(awaitClosed(fourth)).isLessThan(Duration.ofSeconds(5));
    // The server counts the refused one down once its close completes, just after the reset.
    Await.until("back to three", Duration.ofSeconds(5), () -> openFromLoopback() == 3);

    // One closed frees a place.
    held.get(0).close();
    Await.until("two connections open", Duration.ofSeconds(5), () -> openFromLoopback() == 2);
    Socket again = connect();
    OutputStream out = again.getOutputStream();
    out.write(RawFrames.hello(1, 1));
    assertThat(status(new DataInputStream(again.getInputStream()))).isEqualTo(Status.OK);
  }

  @Test
  void aFloodOfBadConnectionsIsLoggedAtMostOnceInTenSeconds() throws Exception {
    start(BraidConfig.builder().set(RpcConfigKeys.SERVER_HANDSHAKE_TIMEOUT, Duration.ofMinutes(1)));
    for (int i = 0; i < 20; i++) {
      try (Socket s = connect()) {
        s.getOutputStream().write(new byte[FrameHeader.LENGTH]); // bad magic
        awaitClosed(s);
      }
    }
    Await.until(
        "nineteen warnings counted and not logged",
        Duration.ofSeconds(5),
        () -> server.warnings().suppressed("refused") == 19);
    TimeUnit.MILLISECONDS.sleep(1); // the limiter's clock is real: nothing resets it this soon
    assertThat(server.warnings().suppressed("refused")).isEqualTo(19);
  }

  private int openFromLoopback() {
    return server.connectionsFrom(InetAddress.getLoopbackAddress());
  }

  private record Answer(Status status, long callId, String message) {}

  private static Answer answer(DataInputStream in) throws IOException {
    byte[] header = new byte[FrameHeader.LENGTH];
    in.readFully(header);
    ByteBuffer b = ByteBuffer.wrap(header);
    Status status = Status.fromCode(b.getShort(6) & 0xFFFF);
    long callId = b.getLong(8);
    byte[] message = new byte[b.getInt(20)];
    in.readFully(message);
    in.skipNBytes(b.getInt(24));
    String text = status.isOk() ? "" : ErrorInfo.parseFrom(message).getMessage();
    return new Answer(status, callId, text);
  }

  private static Status status(DataInputStream in) throws IOException {
    return answer(in).status();
  }
}
