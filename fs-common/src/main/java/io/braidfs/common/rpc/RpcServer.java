package io.braidfs.common.rpc;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.internal.FrameDecoder;
import io.braidfs.common.rpc.internal.FrameEncoder;
import io.braidfs.common.rpc.internal.WarningLimiter;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.unix.Errors;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Braid RPC server: accepts connections, decodes frames and dispatches each request to the
 * handler registered for its method.
 *
 * <p>Handlers registered with an executor run there (RocksDB, disk and ZooKeeper work belong on
 * such executors); handlers registered inline run on the event loop and must not block. Every
 * server answers {@code Hello} and {@code Ping} itself. See {@link ServerConnection} for protocol
 * errors and backpressure.
 *
 * <pre>{@code
 * RpcServer server = RpcServer.builder("mds-1")
 *     .handle(RpcMethod.GETATTR, namespace::getAttr, namespaceExecutor)
 *     .build();
 * server.start();
 * InetSocketAddress address = server.boundAddress();
 * }</pre>
 *
 * <p>Thread-safety: thread-safe. The registrations are fixed at build time.
 */
public final class RpcServer implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
  private static final TimeUnit NANOS = TimeUnit.NANOSECONDS;

  /**
   * EADDRINUSE on Linux, the one system epoll runs on; Netty names no constant for it. (Alpha,
   * MIPS, PA-RISC and SPARC number it otherwise, but Braid ships epoll for x86-64 and AArch64
   * only.)
   */
  private static final int EADDRINUSE = 98;

  private final String id;
  private final CallObserver observer;
  private final InetSocketAddress bindAddress;
  private final RpcOptions options;
  private final Supplier<String> clusterId;
  private final @Nullable HelloAuthenticator authenticator;
  private final @Nullable ChannelTls tls;
  private final Map<Integer, Registration<?, ?>> registrations;
  private final LifeCycle lifeCycle;

  /**
   * Answers above this many queued bytes make a connection unwritable: the server then starts no
   * more of its requests until the peer has read them down to the low mark.
   */
  static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(1 << 20, 4 << 20);

  private final Map<Channel, ServerConnection> connections = new ConcurrentHashMap<>();

  /** Open connections per peer address, for {@code braid.rpc.server.max-connections-per-host}. */
  private final ConcurrentHashMap<InetAddress, Integer> perHost = new ConcurrentHashMap<>();

  private final WarningLimiter warnings =
      new WarningLimiter(LOG, TimeUnit.SECONDS.toNanos(10), System::nanoTime);
  private final AtomicInteger activeCalls = new AtomicInteger();
  // Set by start().
  private @Nullable EventLoopGroup acceptGroup;
  private @Nullable EventLoopGroup ioGroup;
  private @Nullable Channel serverChannel;
  private volatile @Nullable InetSocketAddress listening;

  /** A test bench's hook (see {@link FaultHook}); null in production, costing one read per call. */
  private volatile @Nullable FaultHook faultHook;

  /** Set by {@link #abort()}: connections accepted from then on are reset at once. */
  private volatile boolean aborted;

  /** A method's handler and where it runs; a null executor means inline on the event loop. */
  record Registration<Q extends Message, R extends Message>(
      RpcMethod<Q, R> method, RpcHandler<Q, R> handler, @Nullable Executor executor) {}

  private RpcServer(Builder builder) {
    this.id = builder.id;
    this.bindAddress = builder.bindAddress;
    this.options = builder.options;
    this.clusterId = builder.clusterId;
    this.authenticator = builder.authenticator;
    this.tls = builder.tls;
    this.observer = builder.observer;
    this.registrations = Map.copyOf(builder.registrations);
    this.lifeCycle = new LifeCycle(id);
  }

  /**
   * A builder for a server with this id, used in logs and thread names.
   *
   * @throws IllegalArgumentException if the id is empty
   */
  public static Builder builder(String id) {
    return new Builder(id);
  }

  /** The server's id, as given to the builder. */
  public String id() {
    return id;
  }

  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    Transport transport = Transport.select(options.transport());
    acceptGroup = transport.newGroup(1, id + "-accept");
    ioGroup = transport.newGroup(options.effectiveServerIoThreads(), id + "-io");
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(acceptGroup, ioGroup)
            .channel(transport.serverChannel())
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.SO_KEEPALIVE, true)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (aborted) {
                      reset(ch);
                      return;
                    }
                    if (!admit(ch)) {
                      return;
                    }
                    FrameDecoder decoder =
                        FrameDecoder.forServer(
                            options.maxMessageBytes(), options.maxPayloadBytes());
                    ServerConnection connection =
                        new ServerConnection(
                            RpcServer.this, ch, decoder, options.serverMaxInflight());
                    connections.put(ch, connection);
                    ChannelTls t = tls;
                    if (t != null) {
                      ch.pipeline().addLast("tls", t.serverHandler(ch.alloc()));
                    }
                    long idle = options.serverIdleTimeout().toNanos();
                    if (idle > 0) {
                      ch.pipeline().addLast("idle", new IdleStateHandler(0, 0, idle, NANOS));
                    }
                    ch.pipeline()
                        .addLast("decoder", decoder)
                        .addLast("encoder", FrameEncoder.INSTANCE)
                        .addLast("connection", connection);
                  }
                });
    try {
      serverChannel = bootstrap.bind(bindAddress).syncUninterruptibly().channel();
    } catch (Exception e) { // Netty rethrows the bind's IOException unchecked
      lifeCycle.failed();
      close();
      String where = HostPort.of(bindAddress).toString();
      if (addressInUse(e, bindAddress)) {
        BindException b =
            new BindException(
                id + ": cannot listen on " + where + ": another process listens there");
        b.initCause(e);
        throw b;
      }
      throw new IOException(id + ": cannot listen on " + where + ": " + e.getMessage(), e);
    }
    lifeCycle.running();
    InetSocketAddress bound = boundAddress();
    listening = bound;
    RpcServerHooks.listening(bound, this);
    LOG.info("{}: listening on {} ({} transport)", id, bound, transport);
  }

  /**
   * Whether a failed bind found its address taken. The exception's words are the OS's, perhaps
   * translated, so its type decides: epoll's {@code NativeIoException} carries the errno, while
   * NIO's {@link BindException} also stands for EADDRNOTAVAIL and EACCES, so an address not of this
   * host or a port below 1024 is not called in use (the cause still names it).
   */
  static boolean addressInUse(Throwable e, InetSocketAddress address) {
    if (e instanceof Errors.NativeIoException n) {
      return n.expectedErr() == -EADDRINUSE;
    }
    InetAddress a = address.getAddress();
    return e instanceof BindException && address.getPort() >= 1024 && a != null && ofThisHost(a);
  }

  private static boolean ofThisHost(InetAddress a) {
    if (a.isAnyLocalAddress() || a.isLoopbackAddress()) {
      return true;
    }
    try {
      return NetworkInterface.getByInetAddress(a) != null;
    } catch (SocketException e) {
      return false;
    }
  }

  /**
   * The address the server listens on; with port 0 at build time, the port the system chose.
   *
   * @throws IllegalStateException if the server is not running
   */
  public InetSocketAddress boundAddress() {
    Channel ch = serverChannel;
    if (ch == null) {
      throw new IllegalStateException(id + " is not listening");
    }
    return (InetSocketAddress) ch.localAddress();
  }

  /** The cluster id Hello answers with now; empty if this server has none or does not say. */
  public String clusterId() {
    String c = clusterId.get();
    return c == null ? "" : c;
  }

  /** The number of open client connections. */
  public int connectionCount() {
    return connections.size();
  }

  @Nullable Registration<?, ?> registration(int methodId) {
    return registrations.get(methodId);
  }

  void connectionClosed(Channel channel) {
    connections.remove(channel);
  }

  /**
   * Counts a new connection against its peer's limit; one over it is closed at once (with a
   * rate-limited warning) and never gets a handler.
   */
  private boolean admit(SocketChannel ch) {
    InetAddress peer = ch.remoteAddress().getAddress();
    int now = perHost.merge(peer, 1, Integer::sum);
    ch.closeFuture()
        .addListener(f -> perHost.computeIfPresent(peer, (p, n) -> n > 1 ? n - 1 : null));
    int limit = options.serverMaxConnectionsPerHost();
    if (limit > 0 && now > limit) {
      warnings.warn(
          "per-host",
          id
              + ": refusing a connection from "
              + peer.getHostAddress()
              + ": it has "
              + limit
              + " open (braid.rpc.server.max-connections-per-host)");
      reset(ch);
      return false;
    }
    return true;
  }

  /** The number of open connections from {@code peer}. */
  int connectionsFrom(InetAddress peer) {
    return perHost.getOrDefault(peer, 0);
  }

  RpcOptions options() {
    return options;
  }

  /** How Hellos are authenticated; null: as claimed. */
  @Nullable HelloAuthenticator authenticator() {
    return authenticator;
  }

  /** Where warnings about bad connections go: at most one of a kind every 10 s. */
  WarningLimiter warnings() {
    return warnings;
  }

  void callStarted() {
    activeCalls.incrementAndGet();
  }

  void callAnswered(RpcMethod<?, ?> method, Status status, long nanos) {
    activeCalls.decrementAndGet();
    observer.answered(id, method, status, nanos);
  }

  /** A call that will never be answered (a fault drops it). */
  void callDropped() {
    activeCalls.decrementAndGet();
  }

  /** The number of requests started by handlers and not yet answered, over all connections. */
  public int activeCalls() {
    return activeCalls.get();
  }

  /** Serves a request, unless a {@link FaultHook} has it dropped, delayed or failed. */
  <Q extends Message, R extends Message> void invoke(
      Registration<Q, R> registration, ServerCall<Q, R> call) {
    FaultHook hook = faultHook;
    Fault fault = hook == null ? null : hook.faultFor(call);
    if (fault != null) {
      // A call arrives only on a started server, whose ioGroup is set.
      FaultInjection.apply(fault, this, registration, call, requireNonNull(ioGroup).next());
      return;
    }
    serve(registration, call);
  }

  /** Runs a handler and turns what it throws into an answer. */
  <Q extends Message, R extends Message> void serve(
      Registration<Q, R> registration, ServerCall<Q, R> call) {
    try {
      if (call.deadlinePassed()) {
        call.fail(Status.DEADLINE_EXCEEDED, call.method() + ": deadline passed before handling");
        return;
      }
      registration.handler().handle(call);
    } catch (Exception e) {
      if (e instanceof StatusException se) {
        call.fail(se.status(), String.valueOf(e.getMessage()));
      } else {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        LOG.warn("{}: {} failed", id, call, e);
        call.fail(Status.INTERNAL, call.method() + " failed on " + id + ": " + e);
      }
    } finally {
      call.releasePayload();
    }
  }

  /**
   * Stops the server gracefully: accepts no connection and reads no request any more, lets the
   * handlers still running answer (for up to {@code braid.rpc.server.shutdown-grace}), sends those
   * answers, then closes every connection and stops the event loops. Requests that were read but
   * never started are answered UNAVAILABLE.
   */
  /** The built-in Ping: echoes the message's bytes and the payload, on the event loop. */
  private static void echo(ServerCall<PingRequest, PingResponse> call) {
    call.reply(
        PingResponse.newBuilder().setEcho(call.request().getEcho()).build(), call.takePayload());
  }

  void faultHook(@Nullable FaultHook hook) {
    faultHook = hook;
  }

  /**
   * Kills the network side at once (see {@link RpcServerHooks#abort}): every request read from now
   * on is dropped, the listening socket closes, and every connection is reset.
   */
  void abort() {
    aborted = true;
    faultHook = call -> Fault.drop();
    unlisted();
    Channel sc = serverChannel;
    if (sc != null) {
      sc.close().awaitUninterruptibly();
    }
    for (Channel ch : connections.keySet()) {
      reset(ch);
    }
  }

  /** Closes with a TCP reset rather than a FIN, as the kernel does for a killed process. */
  private static void reset(Channel ch) {
    try {
      ch.config().setOption(ChannelOption.SO_LINGER, 0);
    } catch (RuntimeException e) {
      LOG.debug("cannot set SO_LINGER on {}: {}", ch, e.toString());
    }
    ch.close();
  }

  private void unlisted() {
    InetSocketAddress a = listening;
    if (a != null) {
      RpcServerHooks.stopped(a, this);
    }
  }

  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    unlisted();
    long grace = options.shutdownGrace().toNanos();
    long deadline = System.nanoTime() + grace;
    if (serverChannel != null) {
      serverChannel.close().awaitUninterruptibly(options.shutdownGrace().toMillis());
    }
    for (Map.Entry<Channel, ServerConnection> e : connections.entrySet()) {
      e.getKey().eventLoop().execute(e.getValue()::stopReading);
    }
    // After an abort no answer can reach anyone: nothing to wait for.
    while (!aborted && activeCalls.get() > 0 && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(1_000_000L); // bounded wait for handlers to answer
    }
    if (!aborted && activeCalls.get() > 0) {
      LOG.warn("{}: closing with {} calls still unanswered", id, activeCalls.get());
    }
    for (ServerConnection c : connections.values()) {
      c.closeWhenAnswered();
    }
    for (Channel ch : connections.keySet()) {
      long left = Math.max(0, deadline - System.nanoTime()) / 1_000_000 + 100;
      if (!ch.closeFuture().awaitUninterruptibly(left)) {
        ch.close();
      }
    }
    shutdown(acceptGroup);
    shutdown(ioGroup);
    lifeCycle.closed();
    LOG.info("{}: closed", id);
  }

  private void shutdown(@Nullable EventLoopGroup group) {
    if (group == null) {
      return;
    }
    long grace = options.shutdownGrace().toMillis();
    Future<?> f = group.shutdownGracefully(0, grace, TimeUnit.MILLISECONDS);
    if (!f.awaitUninterruptibly(grace + 1000)) {
      LOG.warn("{}: event loops did not stop within {} ms", id, grace + 1000);
    }
  }

  /**
   * Builds an {@link RpcServer}. Every server answers Hello and Ping without registration.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final String id;
    private InetSocketAddress bindAddress = new InetSocketAddress("127.0.0.1", 0);
    private RpcOptions options = RpcOptions.defaults();
    private Supplier<String> clusterId = () -> "";
    private @Nullable HelloAuthenticator authenticator;
    private @Nullable ChannelTls tls;
    private CallObserver observer = CallObserver.NONE;
    private final Map<Integer, Registration<?, ?>> registrations = new HashMap<>();

    private Builder(String id) {
      if (id == null || id.isEmpty()) {
        throw new IllegalArgumentException("server id must not be empty");
      }
      this.id = id;
    }

    /** Where to listen; defaults to 127.0.0.1 with a port the system picks. */
    public Builder bind(InetSocketAddress address) {
      this.bindAddress = address;
      return this;
    }

    public Builder options(RpcOptions options) {
      this.options = options;
      return this;
    }

    /**
     * Where Hello's {@code cluster_id} comes from, asked at every Hello (a server may learn its
     * cluster after it starts: a data server at its first registration); empty, the default, names
     * no cluster. Clients that know their cluster refuse a server naming another one.
     */
    public Builder clusterId(Supplier<String> clusterId) {
      this.clusterId = clusterId;
      return this;
    }

    /**
     * Authenticates every Hello with {@code authenticator}; null (the default) takes the Hello's
     * user and groups as claimed.
     */
    public Builder authenticator(@Nullable HelloAuthenticator authenticator) {
      this.authenticator = authenticator;
      return this;
    }

    /** Encrypts every connection with {@code tls}; null (the default): plaintext. */
    public Builder tls(@Nullable ChannelTls tls) {
      this.tls = tls;
      return this;
    }

    /** Tells {@code observer} of every answered call (default: nobody). */
    public Builder observer(CallObserver observer) {
      this.observer = requireNonNull(observer, "observer");
      return this;
    }

    /**
     * Serves {@code method} with {@code handler} on {@code executor}, or inline on the event loop
     * when the executor is null (only for handlers that never block).
     *
     * @throws IllegalArgumentException if the method is Hello or already has a handler
     */
    public <Q extends Message, R extends Message> Builder handle(
        RpcMethod<Q, R> method, RpcHandler<Q, R> handler, @Nullable Executor executor) {
      if (method == RpcMethod.HELLO) {
        throw new IllegalArgumentException("Hello is served by the RPC runtime itself");
      }
      if (registrations.containsKey(method.id())) {
        throw new IllegalArgumentException(method + " already has a handler");
      }
      registrations.put(method.id(), new Registration<>(method, handler, executor));
      return this;
    }

    /** The server; Ping echoes its message and payload unless a handler was registered for it. */
    public RpcServer build() {
      registrations.putIfAbsent(
          RpcMethod.PING.id(), new Registration<>(RpcMethod.PING, RpcServer::echo, null));
      return new RpcServer(this);
    }
  }
}
