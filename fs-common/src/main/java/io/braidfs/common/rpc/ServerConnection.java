package io.braidfs.common.rpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.internal.Frame;
import io.braidfs.common.rpc.internal.FrameDecoder;
import io.braidfs.common.rpc.internal.FrameError;
import io.braidfs.common.rpc.internal.FrameHeader;
import io.braidfs.common.rpc.internal.OutboundFrame;
import io.braidfs.common.rpc.internal.OutboundQueue;
import io.braidfs.common.rpc.internal.TlsFailure;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.HelloRequest;
import io.braidfs.proto.HelloResponse;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server end of one connection: checks each frame, parses its request and hands it to the
 * method's handler, inline or on the handler's executor; answers go out through an {@link
 * OutboundQueue} so replies finished together share one flush.
 *
 * <p>Protocol errors (a refused frame, an unknown method, an unparsable message, a request before
 * Hello) are answered with an error when the call id is known, logged in one line, and close this
 * connection only.
 *
 * <p>Backpressure: at most {@code serverMaxInflight} requests of this connection are in handlers at
 * once, and none is started while the channel is unwritable (answers above the write-buffer high
 * water mark wait for a peer that does not read them). Frames decoded meanwhile wait in a backlog,
 * and the server stops reading from the socket until it can dispatch again, so TCP slows the client
 * down. Memory per connection stays bounded by the in-flight requests, the high water mark and one
 * read's worth of frames.
 *
 * <p>Hostile peers: a connection whose Hello is not accepted within the handshake timeout is
 * closed, and until then its frames are held to {@link FrameDecoder#BEFORE_HELLO_MAX_MESSAGE}; an
 * idle connection (nothing read or written for the idle timeout, no request in handlers) is closed,
 * which also ends one stalled in the middle of a frame. Warnings about bad connections are
 * rate-limited per kind ({@link RpcServer#warnings()}).
 *
 * <p>Thread-safety: Netty calls the handler methods on the channel's event loop; {@link #send} may
 * be called from any thread. The in-flight count is touched on the event loop only.
 */
final class ServerConnection extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);

  private final RpcServer server;
  private final Channel channel;
  private final FrameDecoder decoder;
  private final OutboundQueue<OutboundFrame> out;
  private final int maxInflight;
  private volatile @Nullable CallerContext caller;
  private final ArrayDeque<Frame> backlog = new ArrayDeque<>();
  private boolean closing;
  private boolean draining;
  private int inflight;
  private @Nullable ScheduledFuture<?> handshakeTimer;

  ServerConnection(RpcServer server, Channel channel, FrameDecoder decoder, int maxInflight) {
    this.server = server;
    this.channel = channel;
    this.decoder = decoder;
    this.maxInflight = maxInflight;
    this.out = new OutboundQueue<>(channel, this::beforeWrite, OutboundFrame::release);
  }

  /** Who is on the other end; null until its Hello was accepted. */
  @Nullable CallerContext caller() {
    return caller;
  }

  RpcServer server() {
    return server;
  }

  boolean encrypted() {
    return channel.pipeline().get("tls") != null;
  }

  /** The allocator of this connection's buffers. */
  io.netty.buffer.ByteBufAllocator alloc() {
    return channel.alloc();
  }

  /** Queues a response (taking ownership); safe from any thread. */
  void send(OutboundFrame frame) {
    out.write(frame);
  }

  private Object beforeWrite(Object frame) {
    // Every queued frame answers one dispatched request, which frees room for the backlog.
    inflight--;
    pump();
    return frame;
  }

  private boolean canDispatch() {
    return inflight < maxInflight && channel.isWritable() && !draining;
  }

  /** Dispatches what the backlog holds while there is room, and reads again once it is empty. */
  private void pump() {
    while (!backlog.isEmpty() && canDispatch()) {
      handle(backlog.poll());
    }
    boolean read = backlog.isEmpty() && canDispatch() && !closing;
    if (channel.config().isAutoRead() != read) {
      channel.config().setAutoRead(read);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    out.open();
    long timeout = server.options().serverHandshakeTimeout().toNanos();
    handshakeTimer =
        ctx.executor().schedule(this::handshakeTimedOut, timeout, TimeUnit.NANOSECONDS);
    ctx.fireChannelActive();
  }

  private void handshakeTimedOut() {
    if (caller != null || closing) {
      return;
    }
    closing = true;
    server
        .warnings()
        .warn(
            "handshake",
            server.id()
                + ": closing connection from "
                + channel.remoteAddress()
                + ": no Hello accepted within "
                + server.options().serverHandshakeTimeout().toMillis()
                + " ms");
    channel.close();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent) {
      if (inflight == 0 && backlog.isEmpty() && !closing) {
        closing = true;
        LOG.debug(
            "{}: closing connection from {}: idle for {} ms",
            server.id(),
            channel.remoteAddress(),
            server.options().serverIdleTimeout().toMillis());
        channel.close();
      }
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    pump();
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof FrameError error) {
      refuse(error.callId(), error.methodId(), error.status(), error.reason());
      return;
    }
    Frame frame = (Frame) msg;
    if (caller == null && backlog.isEmpty() && frame.methodId() == RpcMethod.HELLO.id()) {
      // At once, whatever the backlog's limits: the frames behind it are held to the limits
      // before Hello until it is accepted.
      handle(frame);
      return;
    }
    if (!backlog.isEmpty() || !canDispatch()) {
      backlog.add(frame);
      pump();
      return;
    }
    handle(frame);
  }

  /**
   * On the event loop, as the server closes: reads nothing more, and answers the requests that
   * waited in the backlog with UNAVAILABLE; they were never started.
   */
  void stopReading() {
    draining = true;
    channel.config().setAutoRead(false);
    Frame frame;
    while ((frame = backlog.poll()) != null) {
      try {
        inflight++;
        send(
            OutboundFrame.response(
                frame.methodId(),
                frame.callId(),
                Status.UNAVAILABLE.code(),
                0,
                error(server.id() + " is shutting down; the call was not started"),
                null));
      } finally {
        frame.release();
      }
    }
  }

  /** Closes once every answer queued so far has been sent. */
  void closeWhenAnswered() {
    out.closeWhenDrained();
  }

  private void handle(Frame frame) {
    try {
      if (!closing) {
        dispatch(frame);
      }
    } finally {
      frame.release();
    }
  }

  private void dispatch(Frame frame) {
    long callId = frame.callId();
    if (frame.isResponse()) {
      refuse(callId, frame.methodId(), Status.MALFORMED_FRAME, "a response sent to a server");
      return;
    }
    if (frame.statusCode() != 0) {
      refuse(callId, frame.methodId(), Status.MALFORMED_FRAME, "a request with a status");
      return;
    }
    RpcMethod<?, ?> method = RpcMethod.byId(frame.methodId());
    if (method == null) {
      refuse(
          callId, frame.methodId(), Status.UNKNOWN_METHOD, "unknown method id " + frame.methodId());
      return;
    }
    if (frame.payload().isReadable() && !method.requestPayload()) {
      refuse(callId, method.id(), Status.MALFORMED_FRAME, method + " takes no payload");
      return;
    }
    Message request;
    try {
      request = method.requestParser().parseFrom(frame.message().nioBuffer());
    } catch (InvalidProtocolBufferException e) {
      refuse(
          callId,
          method.id(),
          Status.MALFORMED_FRAME,
          "cannot parse " + method + " request: " + e.getMessage());
      return;
    }
    if (method == RpcMethod.HELLO) {
      hello(callId, (HelloRequest) request);
      return;
    }
    CallerContext who = caller;
    if (who == null) {
      refuse(callId, method.id(), Status.NOT_AUTHENTICATED, method + " before Hello");
      return;
    }
    HelloAuthenticator authenticator = server.authenticator();
    String revoked = authenticator == null ? null : authenticator.revoked(who);
    if (revoked != null) {
      refuse(callId, method.id(), Status.NOT_AUTHENTICATED, revoked);
      return;
    }
    RpcServer.Registration<?, ?> registration = server.registration(method.id());
    if (registration == null) {
      inflight++;
      send(
          OutboundFrame.response(
              method.id(),
              callId,
              Status.UNSUPPORTED.code(),
              0,
              error(server.id() + " does not serve " + method.fullName()),
              null));
      return;
    }
    start(registration, callId, request, frame);
  }

  private <Q extends Message, R extends Message> void start(
      RpcServer.Registration<Q, R> registration, long callId, Message request, Frame frame) {
    @SuppressWarnings("unchecked")
    ServerCall<Q, R> call =
        new ServerCall<>(
            this,
            registration.method(),
            callId,
            (Q) request,
            frame.takePayload(),
            frame.receivedNanos(),
            frame.deadlineMicros());
    inflight++;
    Executor executor = registration.executor();
    if (executor == null) {
      server.invoke(registration, call);
      return;
    }
    try {
      executor.execute(() -> server.invoke(registration, call));
    } catch (RejectedExecutionException e) {
      call.releasePayload();
      call.fail(Status.BUSY, server.id() + " is overloaded; " + call.method() + " was not started");
    }
  }

  private void hello(long callId, HelloRequest hello) {
    if (caller != null) {
      // Harmless: answered, and the connection keeps its first identity (docs/protocol.md).
      inflight++;
      send(
          OutboundFrame.response(
              RpcMethod.HELLO.id(),
              callId,
              Status.INVALID_ARGUMENT.code(),
              0,
              error("a second Hello on one connection; the first identity stays"),
              null));
      return;
    }
    if (hello.getProtocolVersion() < FrameHeader.VERSION) {
      refuse(
          callId,
          RpcMethod.HELLO.id(),
          Status.UNSUPPORTED_VERSION,
          "client speaks protocol "
              + hello.getProtocolVersion()
              + ", server "
              + FrameHeader.VERSION);
      return;
    }
    if (hello.getClientId().size() != RpcClient.CLIENT_ID_BYTES) {
      refuse(
          callId,
          RpcMethod.HELLO.id(),
          Status.MALFORMED_FRAME,
          "client id must be " + RpcClient.CLIENT_ID_BYTES + " bytes");
      return;
    }
    HelloAuthenticator authenticator = server.authenticator();
    HelloAuthenticator.Identity who;
    if (authenticator == null) {
      who =
          new HelloAuthenticator.Identity(
              hello.getUser(), hello.getGroupsList(), "", "", new byte[0]);
    } else {
      try {
        who = authenticator.authenticate(hello, channel.remoteAddress());
      } catch (IOException e) {
        refuse(
            callId,
            RpcMethod.HELLO.id(),
            StatusExceptions.statusOf(e),
            String.valueOf(e.getMessage()));
        return;
      }
    }
    byte[] clientId = hello.getClientId().toByteArray();
    if (!who.principal().isEmpty()) {
      // Tokens and leases are keyed by client id: an authenticated one is bound to its principal.
      clientId = CallerContext.boundClientId(clientId, who.principal(), who.user());
    }
    caller =
        new CallerContext(
            clientId,
            hello.getClientName(),
            who.user(),
            who.groups(),
            channel.remoteAddress(),
            who.principal(),
            who.realUser());
    decoder.helloAccepted();
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
      handshakeTimer = null;
    }
    inflight++;
    send(
        OutboundFrame.response(
            RpcMethod.HELLO.id(),
            callId,
            Status.OK.code(),
            0,
            HelloResponse.newBuilder()
                .setProtocolVersion(FrameHeader.VERSION) // the highest both sides speak
                .setServerId(server.id())
                .setClusterId(server.clusterId())
                .setUser(who.user())
                .setGssToken(ByteString.copyFrom(who.replyToken()))
                .build(),
            null));
  }

  /** Answers a protocol error when the call id is known, then closes this connection only. */
  private void refuse(long callId, int methodId, Status status, String reason) {
    if (closing) {
      return;
    }
    closing = true;
    server
        .warnings()
        .warn(
            "refused",
            server.id()
                + ": closing connection from "
                + channel.remoteAddress()
                + ": "
                + reason
                + " ("
                + status
                + ", call "
                + callId
                + ")");
    if (callId == FrameError.NO_CALL_ID || !channel.isActive()) {
      channel.close();
      return;
    }
    // Through the queue, behind the answers already on their way, then close.
    inflight++;
    out.writeAndClose(
        OutboundFrame.response(methodId, callId, status.code(), 0, error(reason), null));
  }

  private static ErrorInfo error(String message) {
    return ErrorInfo.newBuilder().setMessage(message).build();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
      handshakeTimer = null;
    }
    Frame f;
    while ((f = backlog.poll()) != null) {
      f.release();
    }
    out.dropAll();
    server.connectionClosed(channel);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    String tls = TlsFailure.reason(cause);
    if (!closing && tls != null) {
      closing = true;
      server
          .warnings()
          .warn("tls", server.id() + ": TLS with " + channel.remoteAddress() + " failed: " + tls);
    } else if (!closing) {
      closing = true;
      if (cause instanceof IOException) {
        LOG.debug(
            "{}: connection from {} failed: {}",
            server.id(),
            channel.remoteAddress(),
            cause.toString());
      } else {
        LOG.warn("{}: connection from {} failed", server.id(), channel.remoteAddress(), cause);
      }
    }
    channel.close();
  }
}
