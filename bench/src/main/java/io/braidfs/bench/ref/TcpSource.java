package io.braidfs.bench.ref;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Raw TCP, the network's limit (BENCHMARKING.md's "what iperf would show"): a server on 127.0.0.1
 * that answers each request on a connection, an 8-byte big-endian count n, with n bytes. The same
 * connection serves requests until the client closes it, so n = 1 in a loop is a ping-pong (one
 * round trip each) and one large n is a bulk stream.
 *
 * <p>Threads, daemons: {@code braid-tcp-source-accept} and one {@code braid-tcp-source-<n>} per
 * connection; {@link #close()} ends them.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class TcpSource implements AutoCloseable {
  private static final int BUFFER = 256 << 10;

  private final ServerSocket server;
  private final Thread acceptor;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Set<Socket> sockets = new HashSet<>();

  @GuardedBy("lock")
  private final List<Thread> threads = new ArrayList<>();

  @GuardedBy("lock")
  private boolean closed;

  private TcpSource(ServerSocket server) {
    this.server = server;
    this.acceptor = new Thread(this::acceptLoop, "braid-tcp-source-accept");
    acceptor.setDaemon(true);
  }

  /** Listens on a free port of 127.0.0.1. */
  public static TcpSource start() throws IOException {
    ServerSocket s = new ServerSocket();
    s.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0));
    TcpSource t = new TcpSource(s);
    t.acceptor.start();
    return t;
  }

  /** Where the server listens. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /**
   * A client connection to {@code via} (this server, or a route to it); ask it for bytes with
   * {@link Client#request}.
   */
  public static Client connect(InetSocketAddress via) throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(via, 10_000);
      return new Client(s);
    } catch (IOException e) {
      s.close();
      throw new IOException("raw TCP connect to " + via + " failed", e);
    }
  }

  private void acceptLoop() {
    int n = 0;
    while (true) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      synchronized (lock) {
        if (closed) {
          closeQuietly(s);
          return;
        }
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "braid-tcp-source-" + ++n);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }
  }

  private void serve(Socket s) {
    byte[] zeros = new byte[BUFFER];
    try {
      s.setTcpNoDelay(true);
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        long n;
        try {
          n = in.readLong();
        } catch (EOFException e) {
          return; // the client is done
        }
        for (long left = n; left > 0; ) {
          int k = (int) Math.min(left, zeros.length);
          out.write(zeros, 0, k);
          left -= k;
        }
        out.flush();
      }
    } catch (IOException e) {
      // The client went away or close() closed the socket: nothing left to serve.
    } finally {
      closeQuietly(s);
      synchronized (lock) {
        sockets.remove(s);
      }
    }
  }

  /** Closes the listener and every connection and waits up to 5 s for the threads. Idempotent. */
  @Override
  public void close() throws InterruptedException {
    List<Thread> ts;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      closeQuietly(server);
      for (Socket s : sockets) {
        closeQuietly(s);
      }
      ts = new ArrayList<>(threads);
    }
    ts.add(acceptor);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Thread t : ts) {
      TimeUnit.NANOSECONDS.timedJoin(t, Math.max(1, deadline - System.nanoTime()));
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // Closing anyway.
    }
  }

  /**
   * One connection to a {@link TcpSource}.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Client implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final InputStream in;
    private long pending;

    private Client(Socket socket) throws IOException {
      this.socket = socket;
      this.out = new DataOutputStream(socket.getOutputStream());
      this.in = socket.getInputStream();
    }

    /** Asks for {@code n} more bytes, to be read with {@link #read}. */
    public void request(long n) throws IOException {
      out.writeLong(n);
      out.flush();
      pending += n;
    }

    /**
     * Reads up to {@code len} of the requested bytes; -1 when every requested byte has been read.
     *
     * @throws EOFException if the server closed before sending them all
     */
    public int read(byte[] b, int off, int len) throws IOException {
      if (pending == 0) {
        return -1;
      }
      int k = in.read(b, off, (int) Math.min(len, pending));
      if (k < 0) {
        throw new EOFException("raw TCP source closed with " + pending + " bytes still due");
      }
      pending -= k;
      return k;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
