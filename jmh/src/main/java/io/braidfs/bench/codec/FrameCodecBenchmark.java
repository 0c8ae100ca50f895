package io.braidfs.bench.codec;

import com.google.protobuf.ByteString;
import io.braidfs.bench.AbstractBenchmark;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.internal.Frame;
import io.braidfs.common.rpc.internal.FrameDecoder;
import io.braidfs.common.rpc.internal.FrameEncoder;
import io.braidfs.common.rpc.internal.OutboundFrame;
import io.braidfs.proto.ChunkId;
import io.braidfs.proto.ReadChunkRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Frame encode and decode on {@link EmbeddedChannel}s (no sockets): a typical data request header,
 * with no payload or with a pooled payload of {@code payloadBytes} that must pass through without a
 * copy.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar FrameCodecBenchmark -rf json}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
public class FrameCodecBenchmark extends AbstractBenchmark {
  @Param({"0", "65536"})
  public int payloadBytes;

  private EmbeddedChannel encoder;
  private EmbeddedChannel decoder;
  private ReadChunkRequest request;
  private ByteBuf payload;
  private ByteBuf wire;

  @Setup(Level.Trial)
  public void setUp() {
    encoder = new EmbeddedChannel(FrameEncoder.INSTANCE);
    decoder = new EmbeddedChannel(new FrameDecoder(4 << 20, 16 << 20));
    request =
        ReadChunkRequest.newBuilder()
            .setChunk(ChunkId.newBuilder().setInodeId(123_456_789L).setChunkIndex(42))
            .setVersion(7)
            .setOffset(1 << 20)
            .setLength(1 << 20)
            .setToken(ByteString.copyFrom(new byte[96]))
            .build();
    payload = PooledByteBufAllocator.DEFAULT.directBuffer(payloadBytes).writeZero(payloadBytes);
    wire = encodeOnce();
  }

  private ByteBuf encodeOnce() {
    encoder.writeOutbound(
        OutboundFrame.request(
            RpcMethod.READ_CHUNK.id(),
            1,
            30_000_000,
            request,
            payloadBytes == 0 ? null : payload.retainedDuplicate()));
    CompositeByteBuf all = PooledByteBufAllocator.DEFAULT.compositeDirectBuffer();
    ByteBuf part;
    while ((part = encoder.readOutbound()) != null) {
      all.addComponent(true, part);
    }
    return all;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    payload.release();
    wire.release();
    encoder.finishAndReleaseAll();
    decoder.finishAndReleaseAll();
  }

  @Benchmark
  public int encode() {
    encoder.writeOutbound(
        OutboundFrame.request(
            RpcMethod.READ_CHUNK.id(),
            1,
            30_000_000,
            request,
            payloadBytes == 0 ? null : payload.retainedDuplicate()));
    int bytes = 0;
    ByteBuf part;
    while ((part = encoder.readOutbound()) != null) {
      bytes += part.readableBytes();
      part.release();
    }
    return bytes;
  }

  @Benchmark
  public long decode() throws Exception {
    decoder.writeInbound(wire.retainedDuplicate());
    Frame frame = decoder.readInbound();
    try {
      return RpcMethod.READ_CHUNK.requestParser().parseFrom(frame.message().nioBuffer()).getOffset()
          + frame.payload().readableBytes();
    } finally {
      frame.release();
    }
  }
}
