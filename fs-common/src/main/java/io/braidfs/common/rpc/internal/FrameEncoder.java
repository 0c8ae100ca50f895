package io.braidfs.common.rpc.internal;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Encodes an {@link OutboundFrame}: the fixed header and the protobuf message are serialized
 * together into one pooled buffer (a message the sender already serialized is copied in); the
 * payload follows as a second write, never copied. Both are written before any flush, so the
 * transport sends them in one {@code writev}.
 *
 * <p>Thread-safety: stateless and {@link Sharable}; runs on the channel's event loop.
 */
@Sharable
public final class FrameEncoder extends ChannelOutboundHandlerAdapter {
  public static final FrameEncoder INSTANCE = new FrameEncoder();

  private FrameEncoder() {}

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof OutboundFrame frame)) {
      ctx.write(msg, promise);
      return;
    }
    ByteBuf header;
    try {
      header = encodeHeader(ctx, frame);
    } catch (IOException | RuntimeException e) {
      frame.release();
      promise.setFailure(e);
      return;
    }
    if (frame.payload == null) {
      ctx.write(header, promise);
    } else {
      ctx.write(header, ctx.voidPromise());
      ctx.write(frame.payload, promise);
    }
  }

  private static ByteBuf encodeHeader(ChannelHandlerContext ctx, OutboundFrame frame)
      throws IOException {
    int messageLength =
        frame.encoded != null
            ? frame.encoded.length
            : frame.message == null ? 0 : frame.message.getSerializedSize();
    long payloadLength = frame.payloadLength();
    if (payloadLength > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("payload of " + payloadLength + " bytes is too large");
    }
    ByteBuf buf = ctx.alloc().ioBuffer(FrameHeader.LENGTH + messageLength);
    try {
      buf.writeShort(FrameHeader.MAGIC)
          .writeByte(FrameHeader.VERSION)
          .writeByte(frame.flags)
          .writeShort(frame.methodId)
          .writeShort(frame.statusCode)
          .writeLong(frame.callId)
          .writeInt(frame.timing)
          .writeInt(messageLength)
          .writeInt((int) payloadLength);
      if (frame.encoded != null) {
        buf.writeBytes(frame.encoded);
      } else if (frame.message != null && messageLength > 0) {
        writeMessage(frame.message, buf, messageLength);
      }
      return buf;
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  private static void writeMessage(MessageLite message, ByteBuf buf, int length)
      throws IOException {
    int index = buf.writerIndex();
    buf.ensureWritable(length);
    if (buf.nioBufferCount() == 1) {
      ByteBuffer nio = buf.internalNioBuffer(index, length);
      CodedOutputStream out = CodedOutputStream.newInstance(nio);
      message.writeTo(out);
      out.checkNoSpaceLeft();
      buf.writerIndex(index + length);
    } else {
      buf.writeBytes(message.toByteArray());
    }
  }
}
