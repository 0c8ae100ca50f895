package io.braidfs.testing;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user-space TCP proxy that stands for one WAN link with a one-way delay and a rate, because
 * {@code tc netem} is missing on the benchmark machines (BENCHMARKING.md, "The WAN emulator"). Each
 * {@link Route} listens on {@code 127.0.0.1} and forwards every connection to its target through
 * the link; all routes and connections share the link.
 *
 * <pre>{@code
 * try (LinkEmulator wan = new LinkEmulator(Duration.ofMillis(20), 100_000_000)) {
 *   LinkEmulator.Route r = wan.route(server.address());
 *   connect to r.address() instead of the server: 40 ms RTT, 100 MB/s each way
 * }
 * }</pre>
 *
 * <p>Model. The link has two directions, up (client to target) and down (target to client), each
 * with ONE rate limiter shared by every connection through the emulator, since together they model
 * one link. A chunk of n bytes read from a source socket occupies its direction for n / rate (after
 * the chunks before it, from any connection) and is written to the destination when its last byte
 * would arrive: the end of that slot plus the delay. So bytes read at time t are written no earlier
 * than t + delay, delivery is paced at the rate, and a lone small message pays just the delay. End
 * of stream travels the same way: EOF from a source becomes {@code shutdownOutput()} on the
 * destination one delay later, so request/response protocols see it. A connection that fails on
 * either side (reset, a target that refuses) is closed on both.
 *
 * <p>Design. Per connection and direction a reader thread reads what the source has (at most one
 * chunk: about 1 ms at the rate, between 1 KiB and 256 KiB), reserves the chunk's slot, stamps it
 * with its due time and queues it; a writer thread takes chunks in order, waits until each is due
 * and writes it. The pacing has no burst allowance (a chunk is delivered when its last byte would
 * arrive, never sooner), so the rate holds over any interval longer than a chunk. The reader may
 * reserve at most 10 ms (or one chunk, if longer) ahead of the link, like a router's queue: when
 * the link is the bottleneck the reader then blocks and TCP pushes back on the sender, instead of
 * the proxy swallowing everything a loopback sender can produce and showing it as a huge queueing
 * delay. The 10 ms are slack for thread scheduling: with 1 ms, a reader descheduled for longer left
 * the link idle and a saturated stream lost 1-3% of the rate on a loaded machine. The queue holds
 * the bytes in flight, rate x (delay + 10 ms), so the proxy puts no window of its own on a
 * connection; it is capped at 256 MiB per connection and direction only so that an unlimited link
 * or a receiver that stops reading cannot exhaust the heap.
 *
 * <p>Socket buffers stay at the system defaults: every socket of the proxy is on loopback, where
 * the RTT is near zero and Linux autotunes the buffers to megabytes, so they never limit the rate;
 * the in-flight bytes live in the proxy's queue. Setting SO_RCVBUF or SO_SNDBUF would only switch
 * that autotuning off. TCP_NODELAY is set on both sockets of a connection, because with Nagle a
 * small write waits for the ACK of the previous one (up to 40 ms with delayed ACKs), which would
 * distort the RTT.
 *
 * <p>Not modelled: TCP's own slow start and congestion window over a long path (each end talks to
 * the proxy over loopback), loss, jitter, and the handshake: a connect completes at once, and only
 * the bytes pay the delay.
 *
 * <p>Threads, all daemons: {@code braid-wan-accept-<port>} per route and {@code
 * braid-wan-<port>-<n>-{up,down}-{read,write}} per connection. {@link #close()} ends and joins
 * them.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LinkEmulator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LinkEmulator.class);

  /** Most bytes queued in one direction of one connection. */
  private static final int MAX_QUEUED = 256 << 20;

  private static final int MIN_CHUNK = 1 << 10;
  private static final int MAX_CHUNK = 256 << 10;
  private static final long MAX_RATE = 1_000_000_000_000L;
  private static final long NANOS_PER_SECOND = 1_000_000_000L;
  private static final long MAX_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
  private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final long delayNanos;
  private final Direction up;
  private final Direction down;
  private final AtomicInteger connectionIds = new AtomicInteger();
  private final Object lock = new Object();

  // Guarded by lock.
  private boolean closed;
  private final List<Route> routes = new ArrayList<>();
  private final Set<Connection> connections = new HashSet<>();
  private final Set<Thread> threads = new HashSet<>();

  /**
   * A link with {@code oneWayDelay} in each direction and {@code bytesPerSecond} in each direction;
   * it starts no thread until a route is opened.
   *
   * @param bytesPerSecond the rate of each direction; 0 for unlimited
   * @throws IllegalArgumentException if the delay is negative or the rate is negative or above 1
   *     TB/s
   */
  public LinkEmulator(Duration oneWayDelay, long bytesPerSecond) {
    if (oneWayDelay.isNegative()) {
      throw new IllegalArgumentException("negative one-way delay: " + oneWayDelay);
    }
    if (bytesPerSecond < 0 || bytesPerSecond > MAX_RATE) {
      throw new IllegalArgumentException(
          "bytesPerSecond must be 0 (unlimited) or up to 1 TB/s: " + bytesPerSecond);
    }
    this.delayNanos = oneWayDelay.toNanos();
    this.up = new Direction(bytesPerSecond);
    this.down = new Direction(bytesPerSecond);
  }

  /**
   * Listens on {@code 127.0.0.1} at a free port and forwards every connection to {@code target}.
   *
   * @throws IOException if no port could be bound
   * @throws IllegalStateException if the emulator is closed
   */
  public Route route(InetSocketAddress target) throws IOException {
    Route r = routeLater();
    r.target(target);
    return r;
  }

  /**
   * Listens on {@code 127.0.0.1} at a free port whose target is set later with {@link
   * Route#target}, so that a server can be told the port to advertise before it starts. Connections
   * accepted before then wait (their bytes stay queued in the kernel) and go through once the
   * target is set.
   *
   * @throws IOException if no port could be bound
   * @throws IllegalStateException if the emulator is closed
   */
  public Route routeLater() throws IOException {
    ServerSocket server = new ServerSocket();
    try {
      server.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0));
      Route r = new Route(server);
      synchronized (lock) {
        if (closed) {
          throw new IllegalStateException("the link emulator is closed");
        }
        routes.add(r);
        spawn("braid-wan-accept-" + r.address.getPort(), r::acceptLoop);
      }
      return r;
    } catch (IOException | RuntimeException e) {
      closeQuietly(server);
      throw e;
    }
  }

  /** Bytes delivered from targets to clients, over all routes, since creation or the last reset. */
  public long bytesDown() {
    return down.delivered.sum();
  }

  /** Bytes delivered from clients to targets, over all routes, since creation or the last reset. */
  public long bytesUp() {
    return up.delivered.sum();
  }

  /** Sets both byte counters to zero (bytes moving meanwhile may land on either side of it). */
  public void resetCounters() {
    up.delivered.reset();
    down.delivered.reset();
  }

  /**
   * Closes every route and connection (abruptly: queued bytes are dropped) and waits for every
   * thread of the emulator to end. Idempotent.
   *
   * @throws IllegalStateException if a thread did not end within 5 s (a bug in the emulator)
   */
  @Override
  public void close() {
    List<Route> rs;
    List<Connection> cs;
    List<Thread> ts;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      rs = List.copyOf(routes);
      cs = List.copyOf(connections);
      // No thread starts after closed is set, so these are all there will be.
      ts = List.copyOf(threads);
    }
    for (Route r : rs) {
      closeQuietly(r.server);
    }
    for (Connection c : cs) {
      c.abort(null);
    }
    for (Thread t : ts) {
      t.interrupt();
    }
    long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
    List<String> stuck = new ArrayList<>();
    for (Thread t : ts) {
      try {
        TimeUnit.NANOSECONDS.timedJoin(t, Math.max(1, deadline - System.nanoTime()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t.isAlive()) {
        stuck.add(t.getName());
      }
    }
    if (!stuck.isEmpty()) {
      throw new IllegalStateException("link emulator threads did not end: " + stuck);
    }
  }

  @Override
  public String toString() {
    return "LinkEmulator[delay="
        + Duration.ofNanos(delayNanos)
        + ", rate="
        + (up.rate == 0 ? "unlimited" : up.rate + " B/s")
        + "]";
  }

  /** Starts a daemon thread unless the emulator is closed; the caller holds {@link #lock}. */
  private @Nullable Thread spawn(String name, Runnable body) {
    if (closed) {
      return null;
    }
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } finally {
                synchronized (lock) {
                  threads.remove(Thread.currentThread());
                }
              }
            },
            name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
    return t;
  }

  /** Parks until {@code System.nanoTime()} reaches {@code deadline}. */
  private static void sleepUntil(long deadline) throws InterruptedException {
    for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
      LockSupport.parkNanos(left);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // Nothing to do: the socket is gone either way.
    }
  }

  /**
   * A listening port of the emulator and where its connections go.
   *
   * <p>Thread-safety: thread-safe.
   */
  public final class Route {
    private final ServerSocket server;
    private final InetSocketAddress address;
    // Written under this (whose monitor connections wait on), read anywhere.
    private volatile @Nullable InetSocketAddress target;

    private Route(ServerSocket server) {
      this.server = server;
      this.address = (InetSocketAddress) server.getLocalSocketAddress();
    }

    /** The address clients connect to: {@code 127.0.0.1} and the port of this route. */
    public InetSocketAddress address() {
      return address;
    }

    /**
     * Sets where this route's connections go, releasing the ones waiting for a target. Setting it
     * again (say, to a restarted server's new port) affects only connections accepted afterwards.
     */
    public void target(InetSocketAddress target) {
      Objects.requireNonNull(target, "target");
      synchronized (this) {
        this.target = target;
        notifyAll();
      }
    }

    private synchronized InetSocketAddress awaitTarget() throws InterruptedException {
      InetSocketAddress t;
      while ((t = target) == null) {
        wait();
      }
      return t;
    }

    private void acceptLoop() {
      while (true) {
        Socket s;
        try {
          s = server.accept();
        } catch (IOException e) {
          // The server socket was closed: the emulator is closing.
          return;
        }
        Connection c = new Connection(this, s);
        synchronized (lock) {
          if (closed) {
            closeQuietly(s);
            return;
          }
          connections.add(c);
          c.start();
        }
      }
    }

    @Override
    public String toString() {
      return "Route[" + address + " -> " + target + "]";
    }
  }

  /** One direction of the link: its rate limiter and its delivery counter. */
  private static final class Direction {
    final long rate;
    final int chunkBytes;
    final long leadNanos;
    final LongAdder delivered = new LongAdder();

    // Guarded by this. The end of the last reserved slot; the link is idle when it is past.
    private long slotEnd = System.nanoTime();
    // Guarded by this. Remainder of the nanosecond division, so that rounding never accumulates.
    private long carry;

    Direction(long rate) {
      this.rate = rate;
      // About 1 ms of the rate per chunk keeps delivery smooth (a chunk arrives whole).
      this.chunkBytes =
          rate == 0 ? MAX_CHUNK : (int) Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, rate / 1000));
      this.leadNanos =
          rate == 0 ? 0 : Math.max(MAX_LEAD_NANOS, chunkBytes * NANOS_PER_SECOND / rate);
    }

    /**
     * Reserves the link for {@code n} bytes after everything reserved before, waits until the slot
     * ends at most the lead from now, and returns the time the slot ends.
     */
    long reserve(int n) throws InterruptedException {
      long now = System.nanoTime();
      if (rate == 0) {
        return now;
      }
      long end;
      synchronized (this) {
        long start = slotEnd - now > 0 ? slotEnd : now;
        long scaled = n * NANOS_PER_SECOND + carry;
        end = start + scaled / rate;
        carry = scaled % rate;
        slotEnd = end;
      }
      sleepUntil(end - leadNanos);
      return end;
    }
  }

  /** A run of bytes (or, with no bytes, the end of the stream) and when it is to be written. */
  private record Chunk(byte @Nullable [] bytes, long due) {}

  /** One proxied connection: the accepted client socket, the target socket, and four threads. */
  private final class Connection {
    private final Route route;
    private final Socket client;
    private final String name;

    // Guarded by this.
    private @Nullable Socket target;
    private boolean aborted;
    private int writersDone;
    private final List<Thread> own = new ArrayList<>(4);

    Connection(Route route, Socket client) {
      this.route = route;
      this.client = client;
      this.name = "braid-wan-" + route.address.getPort() + "-" + connectionIds.incrementAndGet();
    }

    /** Starts the thread that connects to the target; the caller holds {@link #lock}. */
    void start() {
      adopt(spawn(name + "-up-read", this::connectAndRun));
    }

    private synchronized void adopt(@Nullable Thread t) {
      if (t == null) {
        return;
      }
      own.add(t);
      if (aborted) {
        // Started after abort() woke the others: a writer would otherwise wait for chunks forever.
        t.interrupt();
      }
    }

    private void connectAndRun() {
      Socket t = new Socket();
      try {
        InetSocketAddress to = route.awaitTarget();
        synchronized (this) {
          if (aborted) {
            closeQuietly(t);
            return;
          }
          // Set before connecting so that abort() can close it and end a hanging connect.
          target = t;
        }
        client.setTcpNoDelay(true);
        t.setTcpNoDelay(true);
        t.connect(to, CONNECT_TIMEOUT_MILLIS);
      } catch (IOException e) {
        abort(e);
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        closeQuietly(t);
        abort(null);
        return;
      }
      Pipe upPipe = new Pipe(client, t, up);
      Pipe downPipe = new Pipe(t, client, down);
      synchronized (lock) {
        adopt(spawn(name + "-up-write", upPipe::writeLoop));
        adopt(spawn(name + "-down-read", downPipe::readLoop));
        adopt(spawn(name + "-down-write", downPipe::writeLoop));
      }
      upPipe.readLoop();
    }

    /** A writer delivered end of stream; after both, the connection is finished. */
    void writerDone() {
      synchronized (this) {
        if (++writersDone < 2) {
          return;
        }
      }
      abort(null);
    }

    /**
     * Closes both sockets and wakes this connection's threads; {@code cause} is null when the
     * connection ended normally or the emulator is closing.
     */
    void abort(@Nullable IOException cause) {
      List<Thread> threadsToWake;
      synchronized (this) {
        if (aborted) {
          return;
        }
        aborted = true;
        closeQuietly(client);
        if (target != null) {
          closeQuietly(target);
        }
        threadsToWake = List.copyOf(own);
      }
      if (cause != null) {
        LOG.debug("{}: closing after {}", name, cause.toString());
      }
      for (Thread th : threadsToWake) {
        if (th != Thread.currentThread()) {
          th.interrupt();
        }
      }
      synchronized (lock) {
        connections.remove(this);
      }
    }

    /** One direction of this connection: a reader, a queue and a writer. */
    private final class Pipe {
      private final Socket from;
      private final Socket to;
      private final Direction direction;
      private final LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
      private final Semaphore room = new Semaphore(MAX_QUEUED);

      Pipe(Socket from, Socket to, Direction direction) {
        this.from = from;
        this.to = to;
        this.direction = direction;
      }

      void readLoop() {
        byte[] buf = new byte[direction.chunkBytes];
        try {
          InputStream in = from.getInputStream();
          while (true) {
            int n = in.read(buf);
            if (n < 0) {
              queue.put(new Chunk(null, System.nanoTime() + delayNanos));
              return;
            }
            room.acquire(n);
            long end = direction.reserve(n);
            queue.put(new Chunk(Arrays.copyOf(buf, n), end + delayNanos));
          }
        } catch (IOException e) {
          abort(e);
        } catch (InterruptedException e) {
          // Only abort() and close() interrupt, and they have closed the sockets already.
          Thread.currentThread().interrupt();
          abort(null);
        }
      }

      void writeLoop() {
        try {
          OutputStream out = to.getOutputStream();
          while (true) {
            Chunk c = queue.take();
            sleepUntil(c.due());
            byte[] bytes = c.bytes();
            if (bytes == null) {
              to.shutdownOutput();
              writerDone();
              return;
            }
            out.write(bytes);
            room.release(bytes.length);
            direction.delivered.add(bytes.length);
          }
        } catch (IOException e) {
          abort(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          abort(null);
        }
      }
    }
  }
}
