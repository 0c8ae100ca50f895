package io.braidfs.common.rpc.internal;

import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A frame to send: header fields, a protobuf message (serialized by {@link FrameEncoder} on the
 * event loop straight into the outbound buffer, or already serialized by the sender) and an
 * optional payload that goes out as is, either a {@link ByteBuf} or a {@link FileRegion} (zero-copy
 * from a file).
 *
 * <p>Ownership: the frame owns its payload until it is written; the encoder passes it on to the
 * transport, which releases it once sent. {@link #release()} frees it when the frame is dropped.
 *
 * <p>Thread-safety: immutable once built; handed from the caller's thread to the event loop.
 */
public final class OutboundFrame {
  final int flags;
  final int methodId;
  final int statusCode;
  final long callId;
  final int timing;

  /** The message to encode; null when {@link #encoded} holds it already serialized. */
  final @Nullable MessageLite message;

  /** The message already serialized, sent as is; null when {@link #message} is to be encoded. */
  final byte @Nullable [] encoded;

  final @Nullable Object payload;

  private OutboundFrame(
      int flags,
      int methodId,
      int statusCode,
      long callId,
      int timing,
      @Nullable MessageLite message,
      byte @Nullable [] encoded,
      @Nullable Object payload) {
    this.flags = flags;
    this.methodId = methodId;
    this.statusCode = statusCode;
    this.callId = callId;
    this.timing = timing;
    this.message = message;
    this.encoded = encoded;
    this.payload = payload;
  }

  /**
   * A request frame.
   *
   * @param deadlineMicros the caller's remaining deadline, clamped to the unsigned 32-bit range
   * @param payload a ByteBuf or FileRegion this frame takes ownership of, or null
   */
  public static OutboundFrame request(
      int methodId,
      long callId,
      long deadlineMicros,
      MessageLite message,
      @Nullable Object payload) {
    return new OutboundFrame(
        0, methodId, 0, callId, clampMicros(deadlineMicros), message, null, checkPayload(payload));
  }

  /**
   * A response frame.
   *
   * @param serverMicros the server's handling time
   * @param payload a ByteBuf or FileRegion this frame takes ownership of, or null
   */
  public static OutboundFrame response(
      int methodId,
      long callId,
      int statusCode,
      long serverMicros,
      MessageLite message,
      @Nullable Object payload) {
    return new OutboundFrame(
        FrameHeader.FLAG_RESPONSE,
        methodId,
        statusCode,
        callId,
        clampMicros(serverMicros),
        message,
        null,
        checkPayload(payload));
  }

  /**
   * A response frame without payload whose message is already serialized: {@code encoded} is sent
   * as the message bytes, unchanged, and must not change afterwards.
   *
   * @param serverMicros the server's handling time
   */
  public static OutboundFrame encodedResponse(
      int methodId, long callId, int statusCode, long serverMicros, byte[] encoded) {
    return new OutboundFrame(
        FrameHeader.FLAG_RESPONSE,
        methodId,
        statusCode,
        callId,
        clampMicros(serverMicros),
        null,
        Objects.requireNonNull(encoded, "encoded"),
        null);
  }

  private static @Nullable Object checkPayload(@Nullable Object payload) {
    if (payload != null && lengthOf(payload) < 0) {
      ReferenceCountUtil.release(payload);
      throw new IllegalArgumentException("payload must be a ByteBuf or FileRegion: " + payload);
    }
    return payload;
  }

  /** Clamps to [1, 2^32-1] so that a positive budget never reads as "no deadline" (0). */
  private static int clampMicros(long micros) {
    if (micros <= 0) {
      return 0;
    }
    return (int) Math.min(micros, 0xFFFF_FFFFL);
  }

  /** The payload's length in bytes; 0 when there is none. */
  long payloadLength() {
    return payload == null ? 0 : lengthOf(payload);
  }

  /**
   * The bytes a payload will send, or -1 if it is neither a {@link ByteBuf} nor a {@link
   * FileRegion}. The one place payload types are told apart.
   */
  public static long lengthOf(Object payload) {
    if (payload instanceof ByteBuf b) {
      return b.readableBytes();
    }
    if (payload instanceof FileRegion r) {
      return r.count() - r.transferred();
    }
    return -1;
  }

  public long callId() {
    return callId;
  }

  /** Releases the payload of a frame that will not be written. */
  public void release() {
    if (payload != null) {
      ReferenceCountUtil.release(payload);
    }
  }
}
