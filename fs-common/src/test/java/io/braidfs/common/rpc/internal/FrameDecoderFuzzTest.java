package io.braidfs.common.rpc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.braidfs.common.rpc.RpcMethod;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing of the frame decoder and request parsing (Jazzer). In a normal test run
 * it replays the stored inputs; the build's {@code fuzz} execution (JAZZER_FUZZ=1) fuzzes it for
 * {@code maxDuration}.
 *
 * <p>Whatever the bytes and however they are split into reads, the decoder must never throw, never
 * emit a frame over its limits, emit nothing after a refusal, and leak nothing; every message it
 * passes on either parses as its method's request or fails with a protobuf exception.
 */
class FrameDecoderFuzzTest {
  private static final int MAX_MESSAGE = 4096;
  private static final int MAX_PAYLOAD = 65536;

  @FuzzTest(maxDuration = "45s")
  void decoderSurvivesAnyInput(FuzzedDataProvider data) {
    EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(MAX_MESSAGE, MAX_PAYLOAD));
    List<Object> out = new ArrayList<>();
    try {
      boolean seedWithValidHeader = data.consumeBoolean();
      if (seedWithValidHeader) {
        // Start with a plausible header so the fuzzer reaches the body states quickly.
        channel.writeInbound(
            Unpooled.buffer(4).writeShort(FrameHeader.MAGIC).writeByte(1).writeByte(0));
      }
      while (data.remainingBytes() > 0) {
        int n = data.consumeInt(1, 512);
        channel.writeInbound(Unpooled.wrappedBuffer(data.consumeBytes(n)));
        drain(channel, out);
      }
      channel.finish();
      drain(channel, out);
      check(out);
    } finally {
      for (Object o : out) {
        if (o instanceof Frame f) {
          f.release();
        }
      }
      channel.finishAndReleaseAll();
    }
  }

  private static void drain(EmbeddedChannel channel, List<Object> out) {
    Object o;
    while ((o = channel.readInbound()) != null) {
      out.add(o);
    }
  }

  private static void check(List<Object> out) {
    boolean refused = false;
    for (Object o : out) {
      assertThat(refused).as("nothing may follow a refusal").isFalse();
      if (o instanceof FrameError e) {
        refused = true;
        assertThat(e.reason()).isNotEmpty();
        continue;
      }
      Frame f = (Frame) o;
      assertThat(f.message().readableBytes()).isLessThanOrEqualTo(MAX_MESSAGE);
      assertThat(f.payload().readableBytes()).isLessThanOrEqualTo(MAX_PAYLOAD);
      RpcMethod<?, ?> method = RpcMethod.byId(f.methodId());
      if (method != null) {
        try {
          method.requestParser().parseFrom(f.message().nioBuffer());
        } catch (InvalidProtocolBufferException expected) {
          // Unparsable messages are the server's MALFORMED_FRAME case.
        }
      }
    }
  }
}
