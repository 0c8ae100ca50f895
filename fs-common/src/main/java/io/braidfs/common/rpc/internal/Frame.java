package io.braidfs.common.rpc.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

/**
 * A decoded inbound frame: the fixed header's fields, the protobuf message bytes and the raw
 * payload, both retained slices of the receive buffer (no copy).
 *
 * <p>Ownership: the frame owns both slices. Releasing the frame releases them, except a payload
 * that {@link #takePayload() was taken}, which then belongs to the taker.
 *
 * <p>Thread-safety: not thread-safe; a frame is handled by one thread at a time.
 */
public final class Frame extends AbstractReferenceCounted {
  private final int flags;
  private final int methodId;
  private final int statusCode;
  private final long callId;
  private final int timing;
  private final ByteBuf message;
  private final long receivedNanos;
  private ByteBuf payload;

  Frame(
      int flags,
      int methodId,
      int statusCode,
      long callId,
      int timing,
      ByteBuf message,
      ByteBuf payload,
      long receivedNanos) {
    this.flags = flags;
    this.methodId = methodId;
    this.statusCode = statusCode;
    this.callId = callId;
    this.timing = timing;
    this.message = message;
    this.payload = payload;
    this.receivedNanos = receivedNanos;
  }

  /**
   * {@link System#nanoTime()} when the frame was decoded: deadlines and handling times count from
   * here, so time spent waiting in a backlog or an executor queue is not forgotten.
   */
  public long receivedNanos() {
    return receivedNanos;
  }

  public boolean isResponse() {
    return (flags & FrameHeader.FLAG_RESPONSE) != 0;
  }

  public int methodId() {
    return methodId;
  }

  public int statusCode() {
    return statusCode;
  }

  public long callId() {
    return callId;
  }

  /** Request: the caller's remaining deadline in microseconds (0 = none). */
  public long deadlineMicros() {
    return Integer.toUnsignedLong(timing);
  }

  /** Response: the server's handling time in microseconds. */
  public long serverMicros() {
    return Integer.toUnsignedLong(timing);
  }

  /** The protobuf message bytes; borrowed, valid until the frame is released. */
  public ByteBuf message() {
    return message;
  }

  /** The raw payload; borrowed, valid until the frame is released. Empty when absent. */
  public ByteBuf payload() {
    return payload;
  }

  /** Transfers the payload to the caller, who must release it. The frame keeps an empty one. */
  public ByteBuf takePayload() {
    ByteBuf p = payload;
    payload = Unpooled.EMPTY_BUFFER;
    return p;
  }

  @Override
  protected void deallocate() {
    message.release();
    payload.release();
  }

  @Override
  public ReferenceCounted touch(Object hint) {
    message.touch(hint);
    payload.touch(hint);
    return this;
  }

  @Override
  public String toString() {
    return (isResponse() ? "response" : "request")
        + "{method="
        + methodId
        + ", call="
        + callId
        + ", status="
        + statusCode
        + ", message="
        + message.readableBytes()
        + "B, payload="
        + payload.readableBytes()
        + "B}";
  }
}
