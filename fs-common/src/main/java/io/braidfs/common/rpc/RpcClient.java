package io.braidfs.common.rpc;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of Braid RPC: one connection per server address, made lazily on the first call
 * and reused by every caller; a dropped connection is replaced on the next call.
 *
 * <p>Every connection opens with a Hello carrying this client's id (16 random bytes, chosen once),
 * name, user and groups. Call ids are unique across all connections of this client, so a call
 * retried on another connection (or another server after a failover) keeps its identity. A client
 * built with an {@link ExpectedCluster} waits for each Hello's answer and refuses a server of
 * another cluster before sending it anything else.
 *
 * <pre>{@code
 * try (RpcClient client = RpcClient.builder("fuse").user("alice").build()) {
 *   client.start();
 *   PingResponse pong = client.callSync(address, RpcMethod.PING, PingRequest.getDefaultInstance());
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RpcClient implements Service {
  /** The length of a client id in bytes. */
  public static final int CLIENT_ID_BYTES = 16;

  private static final Logger LOG = LoggerFactory.getLogger(RpcClient.class);

  private final String name;
  private final String user;
  private final List<String> groups;
  private final byte[] clientId;
  private final RpcOptions options;
  private final @Nullable ExpectedCluster expectedCluster;
  private final @Nullable HelloCredentials credentials;
  private final @Nullable ChannelTls tls;
  private final LifeCycle lifeCycle;
  private final AtomicLong callIds = new AtomicLong();

  /** Callers blocked in {@link #await} now, spinning or parked. */
  private final AtomicInteger waiting = new AtomicInteger();

  /** The most callers that spin at once: half the cores, at least one; see {@link #await}. */
  private final int maxSpinning = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

  private final ConcurrentHashMap<InetSocketAddress, RpcConnection> connections =
      new ConcurrentHashMap<>();

  // Set by start().
  private @Nullable EventLoopGroup group;
  private @Nullable Bootstrap bootstrap;

  private RpcClient(Builder b) {
    this.name = b.name;
    this.user = b.user;
    this.groups = List.copyOf(b.groups);
    this.clientId = b.clientId.clone();
    this.options = b.options;
    this.expectedCluster = b.expectedCluster;
    this.credentials = b.credentials;
    this.tls = b.tls;
    this.lifeCycle = new LifeCycle(name);
  }

  /**
   * A builder for a client with this name, used in logs, thread names and the Hello.
   *
   * @throws IllegalArgumentException if the name is empty
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  @Override
  public void start() {
    lifeCycle.startTransition();
    Transport transport = Transport.select(options.transport());
    group = transport.newGroup(options.effectiveClientIoThreads(), name + "-io");
    bootstrap = new Bootstrap().channel(transport.socketChannel());
    lifeCycle.running();
  }

  public String name() {
    return name;
  }

  public String user() {
    return user;
  }

  public List<String> groups() {
    return groups;
  }

  /** A copy of this client's 16-byte id. */
  public byte[] clientId() {
    return clientId.clone();
  }

  public RpcOptions options() {
    return options;
  }

  /**
   * What this client proves its identity with in its Hellos; null: nothing, the user is claimed.
   */
  public @Nullable HelloCredentials credentials() {
    return credentials;
  }

  /** How this client's connections are encrypted; null: plaintext. */
  public @Nullable ChannelTls tls() {
    return tls;
  }

  /** The cluster this client's servers must belong to, or null if they are not checked. */
  public @Nullable ExpectedCluster expectedCluster() {
    return expectedCluster;
  }

  /**
   * A fresh call id for {@link #call(InetSocketAddress, RpcMethod, Message, Object, Duration,
   * long)}: a caller that retries a mutation (on another MDS after a failover, say) sends every
   * attempt with the same id so that the server's retry cache applies it at most once.
   */
  public long newCallId() {
    return callIds.incrementAndGet();
  }

  /**
   * The connection to this address, made now if there is none or the last one was lost.
   *
   * @throws IllegalStateException if the client is not running
   */
  public RpcConnection connection(InetSocketAddress address) {
    lifeCycle.assertRunning();
    // Both set by start(), before the client ran.
    EventLoopGroup g = requireNonNull(group);
    Bootstrap b = requireNonNull(bootstrap);
    RpcConnection c = connections.get(address);
    if (c != null && c.isOpen()) {
      return c;
    }
    // The handshake is begun out here: it may wait for the KDC, which must not hold the map.
    RpcConnection.Auth auth = RpcConnection.Auth.begin(credentials, address);
    return connections.compute(
        address,
        (a, existing) ->
            existing != null && existing.isOpen()
                ? existing
                : new RpcConnection(this, a, g.next(), b, auth));
  }

  void connectionClosed(RpcConnection connection) {
    connections.remove(connection.address(), connection);
  }

  /**
   * Calls {@code method} on the server at {@code address} with the default timeout.
   *
   * @return a future completed on an event loop (callbacks must not block); see {@link
   *     RpcConnection#call}
   */
  public <Q extends Message, R extends Message> CompletableFuture<RpcResponse<R>> call(
      InetSocketAddress address, RpcMethod<Q, R> method, Q request) {
    return call(address, method, request, null, options.callTimeout());
  }

  /**
   * Calls {@code method} with a raw payload (which the call takes ownership of) and a timeout. A
   * call that cannot start (the client is closed) fails its future; it never throws.
   */
  public <Q extends Message, R extends Message> CompletableFuture<RpcResponse<R>> call(
      InetSocketAddress address,
      RpcMethod<Q, R> method,
      Q request,
      @Nullable Object payload,
      Duration timeout) {
    return call(address, method, request, payload, timeout, newCallId());
  }

  /**
   * {@link #call(InetSocketAddress, RpcMethod, Message, Object, Duration)} with a call id from
   * {@link #newCallId()}, reused by every retry of one logical call.
   */
  public <Q extends Message, R extends Message> CompletableFuture<RpcResponse<R>> call(
      InetSocketAddress address,
      RpcMethod<Q, R> method,
      Q request,
      @Nullable Object payload,
      Duration timeout,
      long callId) {
    RpcConnection c;
    try {
      c = connection(address);
    } catch (IllegalStateException e) {
      io.netty.util.ReferenceCountUtil.release(payload);
      return CompletableFuture.failedFuture(
          StatusExceptions.toIOException(Status.UNAVAILABLE, name + ": " + e.getMessage()));
    }
    return c.call(method, request, payload, timeout.toNanos(), callId);
  }

  /**
   * Calls {@code method} and waits for its response message.
   *
   * @throws IOException carrying the call's {@link Status}; after a timeout or a lost connection
   *     the call may or may not have been applied
   */
  public <Q extends Message, R extends Message> R callSync(
      InetSocketAddress address, RpcMethod<Q, R> method, Q request) throws IOException {
    try (RpcResponse<R> response = await(call(address, method, request))) {
      return response.message();
    }
  }

  /**
   * Waits for a call's future and unwraps its failure. The caller first spins for up to {@code
   * braid.rpc.client.spin-wait}: an answer that arrives meanwhile is seen at once, where waking a
   * parked thread costs tens of microseconds on virtual machines (more than a loopback round trip).
   *
   * <p>It spins only while at most half the cores' worth of callers (at least one) are waiting in
   * this client, and stops spinning as soon as more are: each spinner holds a core, and with more
   * waiters than that the spinners would take the CPU the event loops (and, on one machine, the
   * server) need to produce the answers. One caller on two cores spins; sixteen park at once
   * (docs/benchmarks.md, "Metadata server").
   *
   * @throws IOException the call's failure
   * @throws InterruptedIOException if this thread is interrupted while waiting (the call goes on)
   */
  public <R extends Message> RpcResponse<R> await(CompletableFuture<RpcResponse<R>> future)
      throws IOException {
    if (Thread.currentThread() instanceof FastThreadLocalThread) {
      // The answer would arrive on an event loop; waiting on one could wait for itself.
      throw new IllegalStateException(name + ": a blocking RPC wait on an event-loop thread");
    }
    if (future.isDone()) {
      return answer(future);
    }
    // Counted until the answer is in, parked or not: a parked caller is woken by the same event
    // loop the spinners compete with.
    int waiters = waiting.incrementAndGet();
    try {
      long spin = options.spinWait().toNanos();
      if (spin > 0 && waiters <= maxSpinning) {
        long end = System.nanoTime() + spin;
        while (!future.isDone() && System.nanoTime() - end < 0 && waiting.get() <= maxSpinning) {
          Thread.onSpinWait();
        }
      }
      return answer(future);
    } finally {
      waiting.decrementAndGet();
    }
  }

  private static <R extends Message> RpcResponse<R> answer(CompletableFuture<RpcResponse<R>> future)
      throws IOException {
    try {
      // No bound needed: the connection fails every call at its deadline (sweep or timer).
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for an RPC answer");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(cause);
    }
  }

  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    long grace = options.shutdownGrace().toMillis();
    List<io.netty.channel.ChannelFuture> closing = new ArrayList<>();
    for (RpcConnection c : new ArrayList<>(connections.values())) {
      closing.add(c.close(name + " closed"));
    }
    connections.clear();
    // Wait for the channels to close before the loops stop: closing fails the calls still pending
    // (their futures complete) and releases what the decoders hold; a loop shut down first can
    // drop those tasks.
    boolean onLoop = Thread.currentThread() instanceof FastThreadLocalThread; // cannot wait there
    for (io.netty.channel.ChannelFuture f :
        onLoop ? List.<io.netty.channel.ChannelFuture>of() : closing) {
      if (!f.awaitUninterruptibly(grace + 1000)) {
        LOG.warn("{}: a connection did not close within {} ms", name, grace + 1000);
      }
    }
    if (group != null) {
      Future<?> f = group.shutdownGracefully(0, grace, TimeUnit.MILLISECONDS);
      if (!f.awaitUninterruptibly(grace + 1000)) {
        LOG.warn("{}: event loops did not stop within {} ms", name, grace + 1000);
      }
    }
    lifeCycle.closed();
  }

  /**
   * Builds an {@link RpcClient}.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final String name;
    private String user = System.getProperty("user.name", "nobody");
    private boolean userSet;
    private List<String> groups = List.of();
    private byte[] clientId;
    private RpcOptions options = RpcOptions.defaults();
    private @Nullable ExpectedCluster expectedCluster;
    private @Nullable HelloCredentials credentials;
    private @Nullable ChannelTls tls;

    private Builder(String name) {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("client name must not be empty");
      }
      this.name = name;
      this.clientId = new byte[CLIENT_ID_BYTES];
      new SecureRandom().nextBytes(clientId);
    }

    public Builder user(String user) {
      this.user = user;
      this.userSet = true;
      return this;
    }

    public Builder groups(List<String> groups) {
      this.groups = List.copyOf(groups);
      return this;
    }

    /**
     * Sets the client id (normally random).
     *
     * @throws IllegalArgumentException if it is not {@value #CLIENT_ID_BYTES} bytes
     */
    public Builder clientId(byte[] id) {
      if (id.length != CLIENT_ID_BYTES) {
        throw new IllegalArgumentException(
            "client id must be " + CLIENT_ID_BYTES + " bytes, not " + id.length);
      }
      this.clientId = id.clone();
      return this;
    }

    public Builder options(RpcOptions options) {
      this.options = options;
      return this;
    }

    /**
     * Checks every server's cluster: each connection waits for its Hello's answer (one round trip
     * more per connection, none per call) and a server naming another cluster than {@code expected}
     * is refused; the calls queued on it fail with {@code INVALID_ARGUMENT} caused by a {@link
     * ClusterMismatch}, unsent. Unset (the default), calls follow the Hello unchecked.
     */
    public Builder expectedCluster(ExpectedCluster expected) {
      this.expectedCluster = expected;
      return this;
    }

    /**
     * Proves this client's identity in every Hello with {@code credentials} (Kerberos, see {@code
     * io.braidfs.common.security}); each connection then waits for its Hello's answer, which must
     * prove the server's identity, before it sends calls. Null (the default): the user is claimed.
     */
    public Builder credentials(@Nullable HelloCredentials credentials) {
      this.credentials = credentials;
      return this;
    }

    /** Encrypts every connection with {@code tls}; null (the default): plaintext. */
    public Builder tls(@Nullable ChannelTls tls) {
      this.tls = tls;
      return this;
    }

    public RpcClient build() {
      if (credentials != null && !userSet) {
        user = ""; // whoever the credentials prove: the operating system's user is no claim
      }
      return new RpcClient(this);
    }
  }
}
