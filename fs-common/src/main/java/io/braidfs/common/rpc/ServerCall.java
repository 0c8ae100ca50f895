package io.braidfs.common.rpc;

import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.internal.OutboundFrame;
import io.braidfs.proto.ErrorInfo;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One request being served: the parsed request, its raw payload, who sent it, and the means to
 * answer exactly once.
 *
 * <p>Ownership: the request payload is borrowed by the handler and released when {@link
 * RpcHandler#handle} returns, unless the handler {@link #takePayload() takes} it (to keep it past
 * that, e.g. to forward it down a replication chain). A payload given to {@link #reply(Message,
 * Object)} belongs to the call from then on.
 *
 * <p>Thread-safety: {@link #reply}, {@link #replyEncoded} and {@link #fail} may be called from any
 * thread; only the first answer counts.
 */
public final class ServerCall<Q extends Message, R extends Message> {
  private final ServerConnection connection;
  private final RpcMethod<Q, R> method;
  private final long callId;
  private final Q request;
  private final long receivedNanos;
  private final long deadlineNanos;
  private final AtomicBoolean answered = new AtomicBoolean();
  private ByteBuf payload;

  ServerCall(
      ServerConnection connection,
      RpcMethod<Q, R> method,
      long callId,
      Q request,
      ByteBuf payload,
      long receivedNanos,
      long deadlineMicros) {
    this.connection = connection;
    this.method = method;
    this.callId = callId;
    this.request = request;
    this.payload = payload;
    this.receivedNanos = receivedNanos;
    this.deadlineNanos = deadlineMicros == 0 ? 0 : receivedNanos + deadlineMicros * 1000;
    connection.server().callStarted();
  }

  public RpcMethod<Q, R> method() {
    return method;
  }

  public long callId() {
    return callId;
  }

  public Q request() {
    return request;
  }

  /** The request's raw payload (empty when none); borrowed, see the class comment. */
  public ByteBuf payload() {
    return payload;
  }

  /** Takes ownership of the request payload; the caller must release it. */
  public ByteBuf takePayload() {
    ByteBuf p = payload;
    payload = Unpooled.EMPTY_BUFFER;
    return p;
  }

  /**
   * Whether the connection is encrypted (TLS): a payload must then be a {@code ByteBuf}, as a
   * zero-copy {@code FileRegion} would bypass the encryption.
   */
  public boolean encrypted() {
    return connection.encrypted();
  }

  /** The allocator for a payload of this call's answer. */
  public ByteBufAllocator alloc() {
    return connection.alloc();
  }

  /** Who sent the request, as established by the connection's Hello. */
  public CallerContext caller() {
    // A connection starts calls only after its Hello set the caller.
    return Objects.requireNonNull(connection.caller());
  }

  /** True once the caller's deadline has passed: the caller has given up on this answer. */
  public boolean deadlinePassed() {
    return deadlineNanos != 0 && System.nanoTime() - deadlineNanos > 0;
  }

  public boolean isAnswered() {
    return answered.get();
  }

  /** Answers OK with this response and no payload. */
  public void reply(R response) {
    reply(response, null);
  }

  /**
   * Answers OK with this response and a raw payload.
   *
   * @param data a {@link ByteBuf} or {@link FileRegion} this call takes ownership of, or null
   * @throws IllegalStateException if the call was already answered (the payload is released)
   * @throws IllegalArgumentException if the method's responses carry no payload (released too)
   */
  public void reply(R response, @Nullable Object data) {
    if (data != null && !method.responsePayload()) {
      ReferenceCountUtil.release(data);
      throw new IllegalArgumentException(method + " responses carry no payload");
    }
    if (!answered.compareAndSet(false, true)) {
      ReferenceCountUtil.release(data);
      throw new IllegalStateException(method + " call " + callId + " was already answered");
    }
    long elapsed = elapsedNanos();
    send(
        OutboundFrame.response(
            method.id(), callId, Status.OK.code(), elapsed / 1000, response, data),
        Status.OK,
        elapsed);
  }

  /**
   * Answers OK with a response the handler already serialized, sent as is: no encoding on the event
   * loop. For answers whose bytes exist anyway (a retry-cache entry keeps them). {@code encoded}
   * must be a serialized {@code R}, or several serialized parts of one concatenated, and must not
   * change afterwards. Protobuf merges concatenated parts as it parses: a later part's singular
   * scalar fields replace the earlier's, its repeated fields append and its message fields merge,
   * so a part should set only fields the parts before it leave unset.
   *
   * @throws IllegalStateException if the call was already answered
   */
  public void replyEncoded(byte[] encoded) {
    Objects.requireNonNull(encoded, "encoded");
    if (!answered.compareAndSet(false, true)) {
      throw new IllegalStateException(method + " call " + callId + " was already answered");
    }
    long elapsed = elapsedNanos();
    send(
        OutboundFrame.encodedResponse(
            method.id(), callId, Status.OK.code(), elapsed / 1000, encoded),
        Status.OK,
        elapsed);
  }

  /**
   * Answers with a non-OK status.
   *
   * @throws IllegalArgumentException if the status is OK
   */
  public void fail(Status status, String message) {
    fail(status, ErrorInfo.newBuilder().setMessage(message).build());
  }

  /** Answers with a non-OK status and full error details (e.g. a leader hint). */
  public void fail(Status status, ErrorInfo error) {
    if (status.isOk()) {
      throw new IllegalArgumentException("fail() needs a non-OK status");
    }
    if (answered.compareAndSet(false, true)) {
      long elapsed = elapsedNanos();
      send(
          OutboundFrame.response(method.id(), callId, status.code(), elapsed / 1000, error, null),
          status,
          elapsed);
    }
  }

  /**
   * Sends the one answer this call was claimed for. The observer is told the time the frame
   * reports, read once: one clock read per answer, and the two figures agree.
   */
  private void send(OutboundFrame answer, Status status, long elapsedNanos) {
    connection.send(answer);
    connection.server().callAnswered(method, status, elapsedNanos);
  }

  private long elapsedNanos() {
    return System.nanoTime() - receivedNanos;
  }

  /** Releases the request payload if the handler did not take it. */
  void releasePayload() {
    payload.release();
    payload = Unpooled.EMPTY_BUFFER;
  }

  @Override
  public String toString() {
    return method + " call " + callId + " from " + connection.caller();
  }
}
