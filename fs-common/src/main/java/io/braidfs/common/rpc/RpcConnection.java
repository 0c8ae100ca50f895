package io.braidfs.common.rpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.internal.Frame;
import io.braidfs.common.rpc.internal.FrameDecoder;
import io.braidfs.common.rpc.internal.FrameEncoder;
import io.braidfs.common.rpc.internal.FrameError;
import io.braidfs.common.rpc.internal.FrameHeader;
import io.braidfs.common.rpc.internal.OutboundFrame;
import io.braidfs.common.rpc.internal.OutboundQueue;
import io.braidfs.common.rpc.internal.TlsFailure;
import io.braidfs.proto.HelloRequest;
import io.braidfs.proto.HelloResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection to one server, shared by every caller of that server.
 *
 * <p>It connects when created (the client creates it lazily, on the first call to its address),
 * sends Hello first and pipelines calls right behind it without waiting. Any number of callers
 * issue calls concurrently; calls are correlated by call id. At most {@code maxOutstanding} calls
 * are in flight: further callers wait for a slot until their deadline (on an event-loop thread,
 * where waiting is forbidden, they fail at once with {@code BUSY}). Deadlines of calls in flight
 * are checked by one sweep every {@value #SWEEP_MILLIS} ms while any call is in flight, which costs
 * far less than a timer per call; a call still waiting for the connection to be made has its own
 * timer. When the connection is lost, every call in flight fails at once with {@code UNAVAILABLE}.
 *
 * <p>If the client expects a cluster ({@link RpcClient.Builder#expectedCluster}), calls wait
 * instead until the Hello is answered and its {@code cluster_id} checked: a server of another
 * cluster is refused and closed, and the calls waiting fail with {@code INVALID_ARGUMENT} caused by
 * a {@link ClusterMismatch}, never sent.
 *
 * <p>Thread-safety: {@link #call} is thread-safe. The table of calls in flight is confined to the
 * connection's event loop.
 */
public final class RpcConnection {
  private static final Logger LOG = LoggerFactory.getLogger(RpcConnection.class);

  private static final Runnable NO_OP = () -> {};
  static final long SWEEP_MILLIS = 10;

  private final RpcClient client;
  private final InetSocketAddress address;
  private final EventLoop loop;
  private final Semaphore slots;
  private final LongObjectHashMap<PendingCall<?, ?>> inflight = new LongObjectHashMap<>();
  private final Channel channel;
  private final OutboundQueue<PendingCall<?, ?>> out;
  private volatile @Nullable String closeReason;
  private volatile Status closeStatus = Status.UNAVAILABLE;
  private volatile @Nullable Throwable closeCause;

  /** Set when the server refused the Hello: the calls behind it were not run. */
  private volatile boolean helloRefused;

  /** Whether calls are written: from the connect on, or once the Hello passed the cluster check. */
  private volatile boolean ready;

  private volatile @Nullable HelloResponse hello;

  /** This connection's authentication, if the client has credentials; set before connecting. */
  private final HelloCredentials.@Nullable Handshake handshake;

  private @Nullable ScheduledFuture<?> sweeper; // event loop only
  private final Runnable releaseSlot;

  /** A connection's Kerberos handshake, begun before the connection is made, or its failure. */
  record Auth(HelloCredentials.@Nullable Handshake handshake, @Nullable IOException failure) {
    static final Auth NONE = new Auth(null, null);

    /** Begins the handshake with {@code address}, on the calling thread. */
    static Auth begin(@Nullable HelloCredentials credentials, InetSocketAddress address) {
      if (credentials == null) {
        return NONE;
      }
      try {
        return new Auth(credentials.begin(address), null);
      } catch (IOException e) {
        return new Auth(null, e);
      }
    }
  }

  RpcConnection(
      RpcClient client, InetSocketAddress address, EventLoop loop, Bootstrap template, Auth auth) {
    this.client = client;
    this.address = address;
    this.loop = loop;
    this.slots = new Semaphore(client.options().maxOutstanding());
    this.releaseSlot = slots::release;
    IOException authFailure = auth.failure();
    if (authFailure != null) {
      closeStatus = Status.NOT_AUTHENTICATED;
      closeCause = authFailure;
      closeReason = "cannot authenticate to " + address + ": " + authFailure.getMessage();
    }
    this.handshake = auth.handshake();
    Bootstrap bootstrap =
        template
            .clone(loop)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_KEEPALIVE, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, client.options().connectTimeout().toMillis()))
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ChannelTls tls = client.tls();
                    if (tls != null) {
                      ch.pipeline()
                          .addLast(
                              "tls",
                              tls.clientHandler(
                                  ch.alloc(), address.getHostString(), address.getPort()));
                    }
                    long idle = client.options().clientIdleTimeout().toNanos();
                    if (idle > 0) {
                      ch.pipeline()
                          .addLast("idle", new IdleStateHandler(0, 0, idle, TimeUnit.NANOSECONDS));
                    }
                    ch.pipeline()
                        .addLast(
                            "decoder",
                            new FrameDecoder(
                                client.options().maxMessageBytes(),
                                client.options().maxPayloadBytes()))
                        .addLast("encoder", FrameEncoder.INSTANCE)
                        .addLast("connection", new Handler());
                  }
                });
    ChannelFuture connect = bootstrap.connect(address);
    this.channel = connect.channel();
    this.out = new OutboundQueue<>(channel, this::beforeWrite, this::drop);
    connect.addListener(
        f -> {
          if (f.isSuccess() && closeReason != null) {
            channel.close(); // no credential for this server: nothing is sent
          } else if (f.isSuccess()) {
            connected();
          } else {
            // The cause travels with the calls: callers tell a refusal by its type, not its words
            // (which are the OS's, and may be translated). Set before the reason callers test.
            closeCause = f.cause();
            closeReason = "cannot connect to " + address + ": " + f.cause().getMessage();
            LOG.debug("{}: {}", client.name(), closeReason);
            channel.close();
            closed();
          }
        });
  }

  public InetSocketAddress address() {
    return address;
  }

  /**
   * The cluster id the server's Hello answer named (empty if it named none), or null while the
   * Hello is unanswered.
   */
  public @Nullable String peerClusterId() {
    HelloResponse h = hello;
    return h == null ? null : h.getClusterId();
  }

  /** False once the connection is lost or closed; the client then makes a new one. */
  public boolean isOpen() {
    return closeReason == null;
  }

  /**
   * Issues a call.
   *
   * @param payload raw bytes sent after the request, or null; the call takes ownership
   * @param timeoutNanos the deadline, from now, in nanoseconds
   * @return a future completed on the connection's event loop: callbacks attached to it must not
   *     block. It fails with an {@link IOException} carrying the {@link Status}; a {@code
   *     DEADLINE_EXCEEDED} or {@code UNAVAILABLE} call may or may not have been applied
   */
  public <Q extends Message, R extends Message> CompletableFuture<RpcResponse<R>> call(
      RpcMethod<Q, R> method, Q request, @Nullable Object payload, long timeoutNanos) {
    return call(method, request, payload, timeoutNanos, client.newCallId());
  }

  /**
   * {@link #call(RpcMethod, Message, Object, long)} with the given call id (from {@link
   * RpcClient#newCallId()}), so that a retry is recognised by the server's retry cache.
   */
  public <Q extends Message, R extends Message> CompletableFuture<RpcResponse<R>> call(
      RpcMethod<Q, R> method, Q request, @Nullable Object payload, long timeoutNanos, long callId) {
    long deadline = System.nanoTime() + timeoutNanos;
    String invalid = validate(method, request, payload);
    if (invalid != null) {
      // One caller's mistake fails its own call, not the connection every caller shares.
      PendingCall<Q, R> call = new PendingCall<>(method, callId, request, payload, deadline, NO_OP);
      call.fail(Status.INVALID_ARGUMENT, invalid + "; the call was not sent");
      return call.future;
    }
    boolean slot = acquireSlot(deadline);
    PendingCall<Q, R> call =
        new PendingCall<>(method, callId, request, payload, deadline, slot ? releaseSlot : NO_OP);
    if (!slot) {
      boolean onLoop = Thread.currentThread() instanceof FastThreadLocalThread;
      call.fail(
          onLoop ? Status.BUSY : Status.DEADLINE_EXCEEDED,
          method
              + " to "
              + address
              + ": all "
              + client.options().maxOutstanding()
              + " call slots stayed busy; the call was not sent");
      return call.future;
    }
    String reason = closeReason;
    if (reason != null) {
      call.fail(closeStatus, reason + "; the call was not sent", closeCause);
      return call.future;
    }
    if (!ready) {
      // Still connecting (or checking the Hello): the deadline must hold even if the connection
      // never comes up.
      call.timer = loop.schedule(() -> timedOut(call), timeoutNanos, TimeUnit.NANOSECONDS);
    }
    out.write(call);
    return call.future;
  }

  /** Why this call must not be sent, or null. Checked on the caller's thread. */
  private @Nullable String validate(
      RpcMethod<?, ?> method, Message request, @Nullable Object payload) {
    RpcOptions options = client.options();
    if (request.getSerializedSize() > options.maxMessageBytes()) {
      return method
          + " request of "
          + request.getSerializedSize()
          + " bytes exceeds the limit of "
          + options.maxMessageBytes();
    }
    if (payload == null) {
      return null;
    }
    if (!method.requestPayload()) {
      return method + " takes no payload";
    }
    long length = OutboundFrame.lengthOf(payload);
    if (length < 0) {
      return method
          + " payload must be a ByteBuf or FileRegion, not "
          + payload.getClass().getName();
    }
    if (length > options.maxPayloadBytes()) {
      return method
          + " payload of "
          + length
          + " bytes exceeds the limit of "
          + options.maxPayloadBytes();
    }
    return null;
  }

  private boolean acquireSlot(long deadlineNanos) {
    if (slots.tryAcquire()) {
      return true;
    }
    if (Thread.currentThread() instanceof FastThreadLocalThread) {
      return false; // never block an event loop
    }
    try {
      return slots.tryAcquire(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The number of calls holding a slot: queued, in flight, or being completed. */
  public int outstanding() {
    return client.options().maxOutstanding() - slots.availablePermits();
  }

  private void connected() {
    HelloRequest.Builder hb =
        HelloRequest.newBuilder()
            .setProtocolVersion(FrameHeader.VERSION)
            .setClientId(ByteString.copyFrom(client.clientId()))
            .setClientName(client.name())
            .setUser(client.user())
            .addAllGroups(client.groups());
    if (handshake != null) {
      handshake.fill(hb);
    }
    HelloRequest request = hb.build();
    long deadline = System.nanoTime() + client.options().callTimeout().toNanos();
    PendingCall<HelloRequest, HelloResponse> call =
        new PendingCall<>(RpcMethod.HELLO, client.newCallId(), request, null, deadline, NO_OP);
    ExpectedCluster expected = client.expectedCluster();
    call.future.whenComplete(
        (response, error) -> {
          if (error != null) {
            Throwable cause =
                error instanceof java.util.concurrent.CompletionException
                        && error.getCause() != null
                    ? error.getCause()
                    : error;
            closeStatus = StatusExceptions.statusOf(cause);
            // The calls pipelined behind a Hello the server refused were not run: they fail with
            // its status. A Hello that timed out or lost its connection proves nothing of them.
            helloRefused = RemoteErrorInfo.of(cause).isPresent();
            close("hello to " + address + " failed: " + error.getMessage());
            return;
          }
          HelloResponse answer = response.message();
          if (handshake != null) {
            try {
              handshake.verify(answer.getGssToken().toByteArray());
            } catch (IOException e) {
              closeStatus = Status.NOT_AUTHENTICATED;
              close(address + " did not prove its identity: " + e.getMessage());
              return;
            }
          }
          hello = answer;
          ClusterMismatch refused =
              expected == null
                  ? null
                  : expected.check(
                      client.name(), answer.getServerId(), address, answer.getClusterId());
          if (refused != null) {
            LOG.debug("{}: {}", client.name(), refused.message());
            closeStatus = Status.INVALID_ARGUMENT;
            closeCause = refused;
            close(refused.message());
            return;
          }
          LOG.debug("{}: connected to {}", client.name(), answer.getServerId());
          if (expected != null || handshake != null) {
            ready = true;
            out.open();
          }
        });
    channel.writeAndFlush(beforeWrite(call), channel.voidPromise());
    if (expected == null && handshake == null) {
      // No check: the calls follow the Hello without waiting for its answer.
      ready = true;
      out.open();
    }
  }

  /** On the event loop: registers the call in flight, where the deadline sweep will see it. */
  private @Nullable Object beforeWrite(Object item) {
    PendingCall<?, ?> call = (PendingCall<?, ?>) item;
    if (call.isFinished()) {
      return null; // timed out while it waited for the connection
    }
    long now = System.nanoTime();
    long remaining = call.deadlineNanos - now;
    if (remaining <= 0) {
      call.fail(
          Status.DEADLINE_EXCEEDED,
          call.method + " to " + address + ": deadline passed before it was sent");
      return null;
    }
    inflight.put(call.callId, call);
    if (sweeper == null) {
      sweeper =
          loop.scheduleAtFixedRate(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }
    return call.toFrame(now);
  }

  /** On the event loop: fails the calls in flight whose deadline has passed. */
  private void sweep() {
    long now = System.nanoTime();
    ArrayList<PendingCall<?, ?>> expired = null;
    for (PendingCall<?, ?> call : inflight.values()) {
      if (now - call.deadlineNanos >= 0) {
        if (expired == null) {
          expired = new ArrayList<>();
        }
        expired.add(call);
      }
    }
    if (expired != null) {
      for (PendingCall<?, ?> call : expired) {
        timedOut(call);
      }
    }
    if (inflight.isEmpty() && sweeper != null) {
      sweeper.cancel(false);
      sweeper = null;
    }
  }

  private void timedOut(PendingCall<?, ?> call) {
    if (inflight.remove(call.callId) == call) {
      call.fail(
          Status.DEADLINE_EXCEEDED,
          call.method + " call " + call.callId + " to " + address + " timed out");
    } else if (!call.isFinished()) {
      call.fail(
          Status.DEADLINE_EXCEEDED,
          call.method + " to " + address + ": deadline passed before it was sent (connecting)");
    }
  }

  private void drop(PendingCall<?, ?> call) {
    String reason = closeReason;
    call.fail(
        closeStatus, reason != null ? reason : "connection to " + address + " closed", closeCause);
  }

  /** Closes the connection; every call in flight fails with UNAVAILABLE and this reason. */
  /** Closes the connection; the returned future completes once every pending call has failed. */
  ChannelFuture close(String reason) {
    if (closeReason == null) {
      closeReason = reason;
    }
    return channel.close();
  }

  /** On the event loop once the channel is closed: fails everything still pending. */
  private void closed() {
    if (closeReason == null) {
      closeReason = "connection to " + address + " lost";
    }
    client.connectionClosed(this);
    ArrayList<PendingCall<?, ?>> calls = new ArrayList<>(inflight.values());
    inflight.clear();
    if (sweeper != null) {
      sweeper.cancel(false);
      sweeper = null;
    }
    for (PendingCall<?, ?> call : calls) {
      if (helloRefused) {
        // A server runs nothing behind a refused Hello (docs/protocol.md section 2).
        call.fail(closeStatus, closeReason + "; " + call.method + " was not run", closeCause);
      } else {
        call.fail(
            Status.UNAVAILABLE,
            closeReason + "; " + call.method + " may or may not have been applied");
      }
    }
    out.dropAll();
  }

  /** The pipeline end of the connection: matches answers to calls. */
  private final class Handler extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof FrameError error) {
        LOG.warn("{}: closing connection to {}: {}", client.name(), address, error.reason());
        close("bad frame from " + address + ": " + error.reason());
        return;
      }
      Frame frame = (Frame) msg;
      try {
        if (!frame.isResponse()) {
          LOG.warn("{}: closing connection to {}: it sent a request", client.name(), address);
          close("protocol error: " + address + " sent a request to a client");
          return;
        }
        PendingCall<?, ?> call = inflight.remove(frame.callId());
        if (call == null) {
          LOG.debug("{}: late answer for call {} from {}", client.name(), frame.callId(), address);
          return;
        }
        String bad = call.complete(frame, address.toString());
        if (bad != null) {
          LOG.warn("{}: closing connection to {}: {}", client.name(), address, bad);
          close("bad answer from " + address + ": " + bad);
        }
      } finally {
        frame.release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closed();
      ctx.fireChannelInactive();
    }

    /**
     * Ends a connection idle for {@code braid.rpc.client.idle-timeout} with nothing in flight,
     * before the server's longer idle timeout could end it under a call being sent.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof IdleStateEvent) {
        if (inflight.isEmpty() && outstanding() == 0 && isOpen()) {
          LOG.debug("{}: closing idle connection to {}", client.name(), address);
          close("connection to " + address + " closed after it was idle");
        }
        return;
      }
      ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      String tls = TlsFailure.reason(cause);
      if (tls != null && hello == null) {
        // Before any answer: the server could not be authenticated or refused this client, so
        // nothing was decrypted, nothing run, and trying again will not help. (Later, a TLS error
        // is a lost connection like any other.)
        LOG.warn("{}: TLS with {} failed: {}", client.name(), address, tls);
        closeStatus = Status.NOT_AUTHENTICATED;
        helloRefused = true;
        close("TLS with " + address + " failed: " + tls);
        return;
      }
      if (cause instanceof IOException) {
        LOG.debug("{}: connection to {} failed: {}", client.name(), address, cause.toString());
      } else {
        LOG.warn("{}: connection to {} failed", client.name(), address, cause);
      }
      close("connection to " + address + " failed: " + cause.getMessage());
    }
  }
}
