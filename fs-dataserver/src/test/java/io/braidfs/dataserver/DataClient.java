package io.braidfs.dataserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.AckLevel;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.ReadChunkResponse;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.WriteChunkRequest;
import io.braidfs.proto.WriteChunkResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.assertj.core.api.ThrowableAssertAlternative;

/**
 * A client of the DataService as the Braid client speaks it: fs-common's {@link RpcClient} with a
 * fixed client id (tokens name it), requests built with the CRCs a writer sends, and answers copied
 * out of their frames (so no test can leak a buffer).
 *
 * <p>Thread-safety: thread-safe.
 */
final class DataClient implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final RpcClient rpc;
  private final ClientId id;

  /** A started client named {@code name} (the Hello name; "braid-ds-" makes it a peer). */
  DataClient(String name, ClientId id) {
    this.id = id;
    this.rpc = RpcClient.builder(name).clientId(id.toBytes()).build();
    rpc.start();
  }

  ClientId id() {
    return id;
  }

  /** What a ReadChunk answered: the message and the bytes of its payload. */
  record Read(ReadChunkResponse message, byte[] bytes) {}

  /** WriteChunk of {@code bytes}, carrying the piece CRCs a writer computes. */
  WriteChunkResponse write(InetSocketAddress to, WriteChunkRequest request, byte[] bytes)
      throws IOException {
    try (RpcResponse<WriteChunkResponse> r =
        rpc.await(
            rpc.call(to, RpcMethod.WRITE_CHUNK, request, Unpooled.wrappedBuffer(bytes), TIMEOUT))) {
      return r.message();
    }
  }

  Read read(InetSocketAddress to, ReadChunkRequest request) throws IOException {
    try (RpcResponse<ReadChunkResponse> r =
        rpc.await(rpc.call(to, RpcMethod.READ_CHUNK, request, null, TIMEOUT))) {
      return new Read(r.message(), ByteBufUtil.getBytes(r.payload()));
    }
  }

  /** A call without payloads. */
  <Q extends Message, R extends Message> R call(InetSocketAddress to, RpcMethod<Q, R> method, Q q)
      throws IOException {
    return rpc.callSync(to, method, q);
  }

  @Override
  public void close() {
    rpc.close();
  }

  // ---- requests ---------------------------------------------------------------------------------

  /** A WriteChunk of {@code bytes} at {@code offset}, acknowledged in memory, with its CRCs. */
  static WriteChunkRequest.Builder writeRequest(
      ChunkKey key, long version, long offset, byte[] bytes, ByteString token) {
    ByteBuf b = Unpooled.wrappedBuffer(bytes);
    int[] crcs;
    try {
      crcs = Checksums.pieceCrcs(b, offset);
    } finally {
      b.release();
    }
    WriteChunkRequest.Builder r =
        WriteChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(version)
            .setOffset(offset)
            .setLength(bytes.length)
            .setAckLevel(AckLevel.ACK_LEVEL_IN_MEMORY)
            .setToken(token);
    for (int c : crcs) {
      r.addChecksums(c);
    }
    return r;
  }

  /** As {@link #writeRequest}, forwarded down {@code chain}. */
  static WriteChunkRequest.Builder writeRequest(
      ChunkKey key,
      long version,
      long offset,
      byte[] bytes,
      ByteString token,
      List<ReplicaLocation> chain) {
    return writeRequest(key, version, offset, bytes, token).addAllDownstream(chain);
  }

  static ReadChunkRequest.Builder readRequest(
      ChunkKey key, long version, long offset, int length, ByteString token) {
    return ReadChunkRequest.newBuilder()
        .setChunk(key.toProto())
        .setVersion(version)
        .setOffset(offset)
        .setLength(length)
        .setToken(token);
  }

  // ---- checks -----------------------------------------------------------------------------------

  /**
   * Asserts that {@code call} fails with exactly {@code status}, and returns the assertion on the
   * failure for its message.
   */
  static ThrowableAssertAlternative<IOException> assertFails(Status status, ThrowingCallable call) {
    return org.assertj.core.api.Assertions.assertThatExceptionOfType(IOException.class)
        .isThrownBy(call)
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).as(e.toString()).isEqualTo(status));
  }

  static byte[] randomBytes(int seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** The stored CRC of each 64 KiB block of {@code bytes}, as a read answer carries them. */
  static List<Integer> blockCrcs(byte[] bytes, int from, int to) {
    ByteBuf b = Unpooled.wrappedBuffer(bytes, from, to - from);
    try {
      return java.util.Arrays.stream(Checksums.blockCrcs(b)).boxed().toList();
    } finally {
      b.release();
    }
  }
}
