package io.braidfs.common.rpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.testing.RawFrames;
import io.braidfs.proto.PingRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FrameCodecTest {
  private static final int MAX_MESSAGE = 1024;
  private static final int MAX_PAYLOAD = 64 * 1024;

  private final EmbeddedChannel encoder = new EmbeddedChannel(FrameEncoder.INSTANCE);
  private final EmbeddedChannel decoder =
      new EmbeddedChannel(new FrameDecoder(MAX_MESSAGE, MAX_PAYLOAD));

  @AfterEach
  void finish() {
    encoder.finishAndReleaseAll();
    decoder.finishAndReleaseAll();
  }

  private static PingRequest ping(String text) {
    return PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8(text)).build();
  }

  /** Everything the encoder wrote for one frame, as one buffer. */
  private ByteBuf encoded(OutboundFrame frame) {
    assertThat(encoder.writeOutbound(frame)).isTrue();
    ByteBuf all = Unpooled.buffer();
    ByteBuf part;
    while ((part = encoder.readOutbound()) != null) {
      all.writeBytes(part);
      part.release();
    }
    return all;
  }

  private List<Object> decode(ByteBuf... chunks) {
    for (ByteBuf chunk : chunks) {
      decoder.writeInbound(chunk);
    }
    List<Object> out = new ArrayList<>();
    Object o;
    while ((o = decoder.readInbound()) != null) {
      out.add(o);
    }
    return out;
  }

  @Test
  void requestWithPayloadRoundTrips() {
    ByteBuf payload = Unpooled.directBuffer().writeBytes(new byte[] {1, 2, 3, 4, 5});
    ByteBuf wire = encoded(OutboundFrame.request(7, 42L, 1500, ping("hello"), payload));

    assertThat(wire.getUnsignedShort(0)).isEqualTo(FrameHeader.MAGIC);
    assertThat(wire.readableBytes())
        .isEqualTo(FrameHeader.LENGTH + ping("hello").getSerializedSize() + 5);
    List<Object> out = decode(wire);

    assertThat(out).hasSize(1);
    Frame frame = (Frame) out.get(0);
    try {
      assertThat(frame.isResponse()).isFalse();
      assertThat(frame.methodId()).isEqualTo(7);
      assertThat(frame.callId()).isEqualTo(42L);
      assertThat(frame.deadlineMicros()).isEqualTo(1500);
      assertThat(frame.message().readableBytes()).isEqualTo(ping("hello").getSerializedSize());
      assertThat(ByteBufUtil.getBytes(frame.payload())).containsExactly(1, 2, 3, 4, 5);
    } finally {
      frame.release();
    }
  }

  @Test
  void responseCarriesStatusAndServerTime() {
    ByteBuf wire =
        encoded(
            OutboundFrame.response(9, Long.MAX_VALUE, Status.NOT_FOUND.code(), 77, ping(""), null));
    Frame frame = (Frame) decode(wire).get(0);
    try {
      assertThat(frame.isResponse()).isTrue();
      assertThat(frame.callId()).isEqualTo(Long.MAX_VALUE);
      assertThat(frame.statusCode()).isEqualTo(Status.NOT_FOUND.code());
      assertThat(frame.serverMicros()).isEqualTo(77);
      assertThat(frame.payload().readableBytes()).isZero();
    } finally {
      frame.release();
    }
  }

  @Test
  void headerAndPayloadLeaveAsTwoBuffersWithoutCopyingThePayload() {
    ByteBuf payload = Unpooled.directBuffer(8).writeLong(99);
    encoder.writeOutbound(OutboundFrame.request(3, 1, 0, ping("x"), payload));
    ByteBuf header = encoder.readOutbound();
    ByteBuf sent = encoder.readOutbound();
    try {
      assertThat(header.readableBytes())
          .isEqualTo(FrameHeader.LENGTH + ping("x").getSerializedSize());
      assertThat(sent).isSameAs(payload);
    } finally {
      header.release();
      sent.release();
    }
  }

  @Test
  void fileRegionPayloadIsCountedInTheHeader(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("chunk");
    Files.write(file, new byte[1000]);
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
    encoder.writeOutbound(
        OutboundFrame.response(3, 1, 0, 0, ping(""), new DefaultFileRegion(ch, 100, 300)));
    ByteBuf header = encoder.readOutbound();
    Object region = encoder.readOutbound();
    try {
      assertThat(header.getInt(FrameHeader.OFFSET_PAYLOAD_LENGTH)).isEqualTo(300);
      assertThat(region).isInstanceOf(DefaultFileRegion.class);
    } finally {
      header.release();
      ReferenceCountUtil.release(region);
    }
  }

  @Test
  void framesSplitAtEveryByteAndPackedTogetherDecode() {
    ByteBuf a =
        encoded(
            OutboundFrame.request(1, 1, 0, ping("first"), Unpooled.wrappedBuffer(new byte[300])));
    ByteBuf b = encoded(OutboundFrame.request(2, 2, 0, ping("second"), null));
    ByteBuf both = Unpooled.buffer().writeBytes(a).writeBytes(b);
    a.release();
    b.release();
    List<Object> out = new ArrayList<>();
    while (both.isReadable()) {
      out.addAll(decode(both.readRetainedSlice(1)));
    }
    both.release();
    assertThat(out).hasSize(2);
    assertThat(((Frame) out.get(0)).payload().readableBytes()).isEqualTo(300);
    assertThat(((Frame) out.get(1)).callId()).isEqualTo(2);
    out.forEach(ReferenceCountUtil::release);
  }

  @Test
  void aResponseSerializedByTheSenderGoesOutAsItsBytes() {
    byte[] message = ping("already encoded").toByteArray();
    Frame frame =
        (Frame)
            decode(encoded(OutboundFrame.encodedResponse(9, 12, Status.OK.code(), 5, message)))
                .get(0);
    try {
      assertThat(frame.isResponse()).isTrue();
      assertThat(frame.methodId()).isEqualTo(9);
      assertThat(frame.callId()).isEqualTo(12);
      assertThat(frame.serverMicros()).isEqualTo(5);
      assertThat(ByteBufUtil.getBytes(frame.message())).isEqualTo(message);
      assertThat(frame.payload().readableBytes()).isZero();
    } finally {
      frame.release();
    }
    // An empty message (an answer whose fields are all defaults) is a valid one.
    Frame empty =
        (Frame)
            decode(encoded(OutboundFrame.encodedResponse(9, 13, Status.OK.code(), 0, new byte[0])))
                .get(0);
    assertThat(empty.message().readableBytes()).isZero();
    empty.release();
  }

  @Test
  void emptyMessageAndPayloadDecode() {
    Frame frame =
        (Frame)
            decode(Unpooled.wrappedBuffer(RawFrames.request(5, 8, new byte[0], new byte[0])))
                .get(0);
    assertThat(frame.message().readableBytes()).isZero();
    assertThat(frame.payload().readableBytes()).isZero();
    frame.release();
  }

  @Test
  void badMagicIsRefusedWithoutACallIdAndTheRestIsDiscarded() {
    byte[] bad = RawFrames.frame(0x1234, 1, 0, 1, 0, 5, 0, new byte[0], new byte[0]);
    byte[] good = RawFrames.request(1, 6, new byte[0], new byte[0]);
    List<Object> out = decode(Unpooled.wrappedBuffer(bad), Unpooled.wrappedBuffer(good));
    assertThat(out).hasSize(1);
    FrameError error = (FrameError) out.get(0);
    assertThat(error.hasCallId()).isFalse();
    assertThat(error.status()).isEqualTo(Status.MALFORMED_FRAME);
    assertThat(error.reason()).contains("magic");
  }

  @Test
  void unsupportedVersionKeepsTheCallId() {
    FrameError error =
        (FrameError)
            decode(
                    Unpooled.wrappedBuffer(
                        RawFrames.frame(
                            RawFrames.MAGIC, 9, 0, 1, 0, 77, 0, new byte[0], new byte[0])))
                .get(0);
    assertThat(error.callId()).isEqualTo(77);
    assertThat(error.status()).isEqualTo(Status.UNSUPPORTED_VERSION);
  }

  @Test
  void unknownFlagsAreMalformed() {
    FrameError error =
        (FrameError)
            decode(
                    Unpooled.wrappedBuffer(
                        RawFrames.frame(
                            RawFrames.MAGIC, 1, 0x80, 1, 0, 3, 0, new byte[0], new byte[0])))
                .get(0);
    assertThat(error.status()).isEqualTo(Status.MALFORMED_FRAME);
    assertThat(error.callId()).isEqualTo(3);
  }

  @Test
  void oversizedFramesAreRefusedAsSoonAsTheHeaderArrives() {
    // Only the header is sent: the decoder must not wait for (or buffer) the claimed body.
    byte[] bigMessage = new byte[FrameHeader.LENGTH];
    RawFrames.header(RawFrames.MAGIC, 1, 0, 1, 0, 11, 0, MAX_MESSAGE + 1, 0).get(0, bigMessage);
    FrameError error = (FrameError) decode(Unpooled.wrappedBuffer(bigMessage)).get(0);
    assertThat(error.status()).isEqualTo(Status.FRAME_TOO_LARGE);
    assertThat(error.callId()).isEqualTo(11);
    assertThat(error.reason()).contains("message of " + (MAX_MESSAGE + 1));
  }

  @Test
  void payloadBeyondTheLimitAndBeyondSignedIntAreRefused() {
    for (long size : new long[] {MAX_PAYLOAD + 1L, 0xFFFF_FFFFL}) {
      EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(MAX_MESSAGE, MAX_PAYLOAD));
      byte[] header = new byte[FrameHeader.LENGTH];
      RawFrames.header(RawFrames.MAGIC, 1, 0, 1, 0, 12, 0, 0, 0).get(0, header);
      ByteBuf buf = Unpooled.wrappedBuffer(header);
      buf.setInt(FrameHeader.OFFSET_PAYLOAD_LENGTH, (int) size);
      ch.writeInbound(buf);
      FrameError error = ch.readInbound();
      assertThat(error.status()).isEqualTo(Status.FRAME_TOO_LARGE);
      assertThat(error.reason()).contains("payload of " + size);
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void aConnectionClosedMidFrameIsReportedAndNothingLeaks() {
    byte[] whole = RawFrames.request(1, 21, new byte[10], new byte[100]);
    decoder.writeInbound(Unpooled.wrappedBuffer(whole, 0, 60));
    Object nothing = decoder.readInbound();
    assertThat(nothing).isNull();
    decoder.finish();
    FrameError error = decoder.readInbound();
    assertThat(error.status()).isEqualTo(Status.MALFORMED_FRAME);
    assertThat(error.callId()).isEqualTo(21);
    assertThat(error.reason()).contains("mid-frame");
  }

  @Test
  void aConnectionClosedMidHeaderIsReported() {
    decoder.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xB7, (byte) 0xA1, 1}));
    decoder.finish();
    FrameError error = decoder.readInbound();
    assertThat(error.hasCallId()).isFalse();
  }

  @Test
  void timingIsClampedToTheUnsignedHeaderField() {
    assertThat(OutboundFrame.request(1, 1, 0, null, null).payloadLength()).isZero();
    assertThat(OutboundFrame.request(1, 1, -5, null, null).timing).isZero();
    assertThat(OutboundFrame.request(1, 1, 1L << 40, null, null).timing).isEqualTo(-1);
  }

  @Test
  void aPayloadBeyondTheUnsignedLengthFieldIsRefusedAndReleased(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("chunk");
    Files.write(file, new byte[1]);
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
    DefaultFileRegion huge = new DefaultFileRegion(ch, 0, 5L << 30); // 5 GiB claimed
    assertThatThrownBy(
            () -> encoder.writeOutbound(OutboundFrame.response(3, 1, 0, 0, ping(""), huge)))
        .hasMessageContaining("too large");
    assertThat(huge.refCnt()).isZero();
    Object nothing = encoder.readOutbound();
    assertThat(nothing).isNull();
  }
}
