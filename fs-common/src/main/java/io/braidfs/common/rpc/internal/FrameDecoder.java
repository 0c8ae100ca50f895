package io.braidfs.common.rpc.internal;

import io.braidfs.common.error.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decodes frames (see {@link FrameHeader}) into {@link Frame}s whose message and payload are
 * retained slices of the receive buffer.
 *
 * <p>Limits are checked as soon as the fixed header arrives, before anything is buffered, so an
 * oversized frame costs 28 bytes of memory. A refused frame becomes one {@link FrameError}, after
 * which every further byte from the connection is discarded: the handler replies (when the call id
 * could be read) and closes. A connection that ends mid-frame yields a {@link FrameError} too, for
 * the log.
 *
 * <p>Thread-safety: not thread-safe; one instance per channel, used on its event loop.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private enum State {
    HEADER,
    BODY,
    FAILED
  }

  private final int maxMessage;
  private final int maxPayload;

  /**
   * The largest message a server accepts before the connection's Hello is accepted (a Hello needs a
   * few hundred bytes); frames before then carry no payload. So a connection that has not said who
   * it is can make the server buffer at most this much (a peer sending partial 16 MiB frames before
   * any Hello once filled a data server's direct memory).
   */
  public static final int BEFORE_HELLO_MAX_MESSAGE = 64 << 10;

  private boolean helloAccepted;
  private State state = State.HEADER;
  private int flags;
  private int methodId;
  private int statusCode;
  private long callId;
  private int timing;
  private int messageLength;
  private int payloadLength;

  /**
   * A decoder with these limits from the first frame on (a client's: its server has no Hello to
   * send).
   *
   * @param maxMessage the largest protobuf message accepted, in bytes
   * @param maxPayload the largest raw payload accepted, in bytes
   * @throws IllegalArgumentException if a limit is negative
   */
  public FrameDecoder(int maxMessage, int maxPayload) {
    this(maxMessage, maxPayload, true);
  }

  /**
   * A server's decoder: until {@link #helloAccepted()}, frames are held to {@link
   * #BEFORE_HELLO_MAX_MESSAGE} and no payload; then to these limits.
   */
  public static FrameDecoder forServer(int maxMessage, int maxPayload) {
    return new FrameDecoder(maxMessage, maxPayload, false);
  }

  /** Lifts the limits of a connection that has not said who it is. On the event loop. */
  public void helloAccepted() {
    helloAccepted = true;
  }

  private FrameDecoder(int maxMessage, int maxPayload, boolean helloAccepted) {
    this.helloAccepted = helloAccepted;
    if (maxMessage < 0 || maxPayload < 0) {
      throw new IllegalArgumentException(
          "frame limits must be >= 0: message=" + maxMessage + ", payload=" + maxPayload);
    }
    this.maxMessage = maxMessage;
    this.maxPayload = maxPayload;
    setCumulator(BY_SIZE);
  }

  /** From this many buffered bytes on, received buffers are chained instead of copied. */
  static final int COMPOSE_AT = 64 << 10;

  /**
   * Copies small reads together (a metadata frame ends up in one contiguous buffer, cheap to parse)
   * but chains the reads of a large frame as components: a megabyte of file data arriving in socket
   * reads is never copied into a growing buffer, which cost more than the rest of the read path.
   */
  private static final Cumulator BY_SIZE =
      (alloc, cumulation, in) ->
          cumulation instanceof CompositeByteBuf
                  || cumulation.readableBytes() + in.readableBytes() >= COMPOSE_AT
              ? COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in)
              : MERGE_CUMULATOR.cumulate(alloc, cumulation, in);

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    switch (state) {
      case HEADER -> {
        if (in.readableBytes() < FrameHeader.LENGTH) {
          return;
        }
        FrameError error = readHeader(in);
        if (error != null) {
          fail(in, out, error);
          return;
        }
        in.skipBytes(FrameHeader.LENGTH);
        state = State.BODY;
        readBody(in, out);
      }
      case BODY -> readBody(in, out);
      case FAILED -> in.skipBytes(in.readableBytes());
    }
  }

  /** Reads and validates the fixed header without consuming it; null when it is acceptable. */
  private @Nullable FrameError readHeader(ByteBuf in) {
    int base = in.readerIndex();
    int magic = in.getUnsignedShort(base);
    if (magic != FrameHeader.MAGIC) {
      return new FrameError(
          FrameError.NO_CALL_ID,
          0,
          Status.MALFORMED_FRAME,
          "bad magic 0x" + Integer.toHexString(magic) + ", not a Braid frame");
    }
    int version = in.getUnsignedByte(base + FrameHeader.OFFSET_VERSION);
    flags = in.getUnsignedByte(base + FrameHeader.OFFSET_FLAGS);
    methodId = in.getUnsignedShort(base + FrameHeader.OFFSET_METHOD);
    statusCode = in.getUnsignedShort(base + FrameHeader.OFFSET_STATUS);
    callId = in.getLong(base + FrameHeader.OFFSET_CALL_ID);
    timing = in.getInt(base + FrameHeader.OFFSET_TIMING);
    long message = in.getUnsignedInt(base + FrameHeader.OFFSET_MESSAGE_LENGTH);
    long payload = in.getUnsignedInt(base + FrameHeader.OFFSET_PAYLOAD_LENGTH);
    if (version != FrameHeader.VERSION) {
      return new FrameError(
          callId,
          methodId,
          Status.UNSUPPORTED_VERSION,
          "protocol version " + version + " (this side speaks " + FrameHeader.VERSION + ")");
    }
    if ((flags & ~FrameHeader.KNOWN_FLAGS) != 0) {
      return new FrameError(
          callId,
          methodId,
          Status.MALFORMED_FRAME,
          "unknown flags 0x" + Integer.toHexString(flags));
    }
    if (!helloAccepted && (message > BEFORE_HELLO_MAX_MESSAGE || payload > 0)) {
      return new FrameError(
          callId,
          methodId,
          Status.FRAME_TOO_LARGE,
          "a frame of "
              + message
              + " + "
              + payload
              + " bytes before the Hello was accepted (at most "
              + BEFORE_HELLO_MAX_MESSAGE
              + " + 0)");
    }
    if (message > maxMessage) {
      return new FrameError(
          callId,
          methodId,
          Status.FRAME_TOO_LARGE,
          "message of " + message + " bytes exceeds the limit of " + maxMessage);
    }
    if (payload > maxPayload) {
      return new FrameError(
          callId,
          methodId,
          Status.FRAME_TOO_LARGE,
          "payload of " + payload + " bytes exceeds the limit of " + maxPayload);
    }
    messageLength = (int) message;
    payloadLength = (int) payload;
    return null;
  }

  private void readBody(ByteBuf in, List<Object> out) {
    if (in.readableBytes() < (long) messageLength + payloadLength) {
      return;
    }
    ByteBuf message =
        messageLength == 0 ? Unpooled.EMPTY_BUFFER : in.readRetainedSlice(messageLength);
    ByteBuf payload =
        payloadLength == 0 ? Unpooled.EMPTY_BUFFER : in.readRetainedSlice(payloadLength);
    out.add(
        new Frame(
            flags, methodId, statusCode, callId, timing, message, payload, System.nanoTime()));
    state = State.HEADER;
  }

  private void fail(ByteBuf in, List<Object> out, FrameError error) {
    state = State.FAILED;
    in.skipBytes(in.readableBytes());
    out.add(error);
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    decode(ctx, in, out);
    if (state == State.BODY || (state == State.HEADER && in.isReadable())) {
      long id = state == State.BODY ? callId : FrameError.NO_CALL_ID;
      int method = state == State.BODY ? methodId : 0;
      int have = in.readableBytes();
      in.skipBytes(have);
      state = State.FAILED;
      out.add(
          new FrameError(
              id,
              method,
              Status.MALFORMED_FRAME,
              "connection closed mid-frame after " + have + " bytes"));
    }
  }
}
