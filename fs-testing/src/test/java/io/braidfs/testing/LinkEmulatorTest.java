package io.braidfs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The WAN emulator against plain servers on loopback: a ping-pong shows the configured round trip,
 * a bulk stream the configured rate (also when two connections share the link), EOF travels both
 * ways, bytes are counted, and close leaves no thread behind.
 */
class LinkEmulatorTest {
  private static final Duration DELAY = Duration.ofMillis(20);
  private static final long RATE = 40_000_000;

  private final List<AutoCloseable> closeAfter = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
    assertThat(wanThreads()).isEmpty();
  }

  @Test
  void aPingPongTakesTwiceTheDelay() throws Exception {
    LinkEmulator wan = open(new LinkEmulator(DELAY, RATE));
    TestServer echo = open(TestServer.echo());
    try (Socket s = connect(wan.route(echo.address()))) {
      roundTrip(s); // warm-up: the first exchange also pays for the proxy's connect
      long[] rtts = new long[11];
      for (int i = 0; i < rtts.length; i++) {
        rtts[i] = roundTrip(s);
      }
      Arrays.sort(rtts);
      long twice = 2 * DELAY.toNanos();
      assertThat(rtts[0]).as("fastest RTT").isGreaterThanOrEqualTo(twice);
      assertThat(rtts[rtts.length / 2])
          .as("median RTT")
          .isBetween(twice, twice + TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  @Test
  void aBulkStreamRunsAtTheRate() throws Exception {
    LinkEmulator wan = open(new LinkEmulator(Duration.ofMillis(5), RATE));
    TestServer sink = open(TestServer.sink());
    InetSocketAddress route = wan.route(sink.address()).address();
    int size = 32 << 20;
    send(route, size);
    sink.awaitBytes(size);
    double rate = sink.rate();
    assertThat(rate / RATE)
        .as("measured rate %.0f B/s as a share of %d", rate, RATE)
        .isBetween(0.90, 1.05);
    assertThat(wan.bytesUp()).isEqualTo(size);
    assertThat(wan.bytesDown()).isZero();
  }

  @Test
  void connectionsShareOneLink() throws Exception {
    LinkEmulator wan = open(new LinkEmulator(Duration.ofMillis(5), RATE));
    TestServer sink = open(TestServer.sink());
    InetSocketAddress route = wan.route(sink.address()).address();
    int each = 16 << 20;
    CompletableFuture<Void> first = CompletableFuture.runAsync(() -> sendUnchecked(route, each));
    CompletableFuture<Void> second = CompletableFuture.runAsync(() -> sendUnchecked(route, each));
    first.get(10, TimeUnit.SECONDS);
    second.get(10, TimeUnit.SECONDS);
    sink.awaitBytes(2L * each);
    double rate = sink.rate();
    assertThat(rate / RATE)
        .as("combined rate %.0f B/s as a share of %d", rate, RATE)
        .isBetween(0.90, 1.05);
  }

  @Test
  void endOfStreamTravelsBothWaysAndBytesAreCounted() throws Exception {
    LinkEmulator wan = open(new LinkEmulator(Duration.ofMillis(2), 0));
    TestServer echo = open(TestServer.echo());
    byte[] request = new byte[300_000];
    Arrays.fill(request, (byte) 7);
    try (Socket s = connect(wan.route(echo.address()))) {
      s.getOutputStream().write(request);
      s.shutdownOutput(); // the echo server answers everything, then closes on EOF
      assertThat(s.getInputStream().readAllBytes()).isEqualTo(request);
    }
    assertThat(wan.bytesUp()).isEqualTo(request.length);
    assertThat(wan.bytesDown()).isEqualTo(request.length);
    wan.resetCounters();
    assertThat(wan.bytesUp()).isZero();
    assertThat(wan.bytesDown()).isZero();
  }

  @Test
  void aLaterRouteHoldsConnectionsUntilItHasATarget() throws Exception {
    LinkEmulator wan = open(new LinkEmulator(Duration.ofMillis(1), 0));
    LinkEmulator.Route route = wan.routeLater();
    try (Socket s = connect(route)) {
      s.getOutputStream().write(42);
      s.setSoTimeout(200);
      assertThatThrownBy(() -> s.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      TestServer echo = open(TestServer.echo());
      route.target(echo.address());
      s.setSoTimeout(5_000);
      assertThat(s.getInputStream().read()).isEqualTo(42);
    }
  }

  @Test
  void aTargetThatRefusesClosesTheClient() throws Exception {
    LinkEmulator wan = open(new LinkEmulator(Duration.ofMillis(1), 0));
    InetSocketAddress nobody;
    try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nobody = (InetSocketAddress) gone.getLocalSocketAddress();
    }
    try (Socket s = connect(wan.route(nobody))) {
      s.setSoTimeout(5_000);
      int got;
      try {
        got = s.getInputStream().read();
      } catch (IOException reset) {
        got = -1;
      }
      assertThat(got).isEqualTo(-1);
    }
  }

  @Test
  void closeEndsEveryThreadAndConnection() throws Exception {
    LinkEmulator wan = new LinkEmulator(Duration.ofMillis(5), 1_000_000);
    TestServer sink = open(TestServer.sink());
    TestServer echo = open(TestServer.echo());
    Socket busy = open(connect(wan.route(sink.address())));
    Socket idle = open(connect(wan.route(echo.address())));
    Socket waiting = open(connect(wan.routeLater()));
    CompletableFuture<Void> sending =
        CompletableFuture.runAsync(
            () -> {
              try {
                busy.getOutputStream().write(new byte[64 << 20]); // 64 s at this rate
              } catch (IOException expected) {
                // the emulator closed the connection
              }
            });
    idle.getOutputStream().write(1);
    assertThat(idle.getInputStream().read()).isEqualTo(1);
    Await.until("the sink to receive bytes", Duration.ofSeconds(5), () -> sink.bytes() > 0);

    wan.close();

    assertThat(wanThreads()).isEmpty();
    sending.get(5, TimeUnit.SECONDS);
    for (Socket s : List.of(idle, waiting)) {
      s.setSoTimeout(5_000);
      int got;
      try {
        got = s.getInputStream().read();
      } catch (IOException reset) {
        got = -1;
      }
      assertThat(got).isEqualTo(-1);
    }
    wan.close(); // idempotent
  }

  private <T extends AutoCloseable> T open(T c) {
    closeAfter.add(c);
    return c;
  }

  private static Socket connect(LinkEmulator.Route route) throws IOException {
    Socket s = new Socket(route.address().getAddress(), route.address().getPort());
    s.setTcpNoDelay(true);
    return s;
  }

  /** Nanoseconds to send 8 bytes and read them back. */
  private static long roundTrip(Socket s) throws IOException {
    byte[] ping = "ping-pon".getBytes(StandardCharsets.US_ASCII);
    long start = System.nanoTime();
    s.getOutputStream().write(ping);
    assertThat(s.getInputStream().readNBytes(ping.length)).isEqualTo(ping);
    return System.nanoTime() - start;
  }

  private static void send(InetSocketAddress to, int bytes) throws IOException {
    try (Socket s = new Socket(to.getAddress(), to.getPort())) {
      OutputStream out = s.getOutputStream();
      byte[] buf = new byte[1 << 20];
      for (int sent = 0; sent < bytes; sent += buf.length) {
        out.write(buf, 0, Math.min(buf.length, bytes - sent));
      }
      s.shutdownOutput();
      // Wait for the sink to close, so that every byte went through before the socket closes.
      s.getInputStream().read();
    }
  }

  private static void sendUnchecked(InetSocketAddress to, int bytes) {
    try {
      send(to, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> wanThreads() {
    return Await.braidThreads().stream().filter(n -> n.startsWith("braid-wan-")).toList();
  }

  /** A loopback server running one handler thread per connection; close ends them all. */
  private static final class TestServer implements AutoCloseable {
    /** Serves one accepted connection; the server closes it afterwards. */
    interface Handler {
      void serve(TestServer server, Socket s) throws IOException;
    }

    private final ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final Object counted = new Object();
    // Guarded by counted.
    private long bytes;
    private long firstReadBytes;
    private long firstByteNanos;
    private long lastByteNanos;

    private TestServer(Handler handler) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      start(() -> acceptLoop(handler));
    }

    /** Writes back everything it reads and closes on EOF. */
    static TestServer echo() throws IOException {
      return new TestServer(
          (server, s) -> {
            s.setTcpNoDelay(true);
            s.getInputStream().transferTo(s.getOutputStream());
          });
    }

    /** Reads and counts everything, noting when the last byte came, and closes on EOF. */
    static TestServer sink() throws IOException {
      return new TestServer(
          (server, s) -> {
            InputStream in = s.getInputStream();
            byte[] buf = new byte[256 << 10];
            for (int n; (n = in.read(buf)) >= 0; ) {
              server.received(n);
            }
          });
    }

    InetSocketAddress address() {
      return (InetSocketAddress) server.getLocalSocketAddress();
    }

    long bytes() {
      synchronized (counted) {
        return bytes;
      }
    }

    /**
     * Bytes per second received from the end of the first read to the end of the last, so that
     * neither connecting nor the delay counts.
     */
    double rate() {
      synchronized (counted) {
        return (bytes - firstReadBytes) * 1e9 / (lastByteNanos - firstByteNanos);
      }
    }

    void awaitBytes(long n) {
      Await.until(n + " bytes at the sink", Duration.ofSeconds(10), () -> bytes() >= n);
    }

    private void received(int n) {
      synchronized (counted) {
        long now = System.nanoTime();
        if (bytes == 0) {
          firstReadBytes = n;
          firstByteNanos = now;
        }
        bytes += n;
        lastByteNanos = now;
      }
    }

    private void acceptLoop(Handler handler) {
      try {
        while (true) {
          Socket s = server.accept();
          accepted.add(s);
          start(
              () -> {
                try (s) {
                  handler.serve(this, s);
                } catch (IOException closed) {
                  // the test or the emulator closed the connection
                }
              });
        }
      } catch (IOException closed) {
        // close() closed the server socket
      }
    }

    private void start(Runnable r) {
      Thread t = new Thread(r, "test-server-" + server.getLocalPort());
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }

    @Override
    public void close() throws Exception {
      server.close();
      for (Socket s : accepted) {
        s.close();
      }
      for (Thread t : threads) {
        t.join(5_000);
      }
    }
  }
}
