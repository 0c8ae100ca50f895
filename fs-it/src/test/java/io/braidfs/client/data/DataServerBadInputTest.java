package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.testing.RawFrames;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.AckLevel;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.WriteChunkRequest;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad requests to a real data server get a precise status and change nothing: out-of-range offsets,
 * stale versions, bad tokens, lying lengths and checksums, oversized frames. And a full disk
 * reaches the writer as NO_SPACE with nothing committed.
 */
class DataServerBadInputTest {
  static final Layout LAYOUT = Layout.of(64 << 10, 1, 1 << 20, 1);

  @TempDir static Path dir;
  static MiniCluster cluster;
  static RpcClient client;
  static WriteTarget file;
  static ChunkLocation chunk;
  static DataServer holder;

  @BeforeAll
  static void start() throws IOException {
    // Each data directory may hold 1 MiB of replicas: a full 1 MiB chunk plus its CRCs does not
    // fit.
    cluster =
        MiniCluster.builder(dir)
            .dataServers(1)
            .config("braid.dataserver.capacity", "1MiB")
            .config("braid.mds.cluster.min-free", "0")
            .build();
    cluster.start();
    client = cluster.newClient("root");
    file = cluster.create(client, "/target", LAYOUT);
    chunk = file.chunkSets().get(0).getChunks(0);
    holder = cluster.dataServerById(chunk.getReplicas(0).getServerId());
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void anOffsetPastTheLargestChunkIsOutOfRange() {
    assertStatus(write(request(Layout.MAX_CHUNK_SIZE, 10), new byte[10]), Status.OUT_OF_RANGE);
    assertNothingWritten();
  }

  @Test
  void aStaleVersionIsRefused() throws IOException {
    byte[] data = new byte[100];
    writeOk(request(0, 100), data); // creates the replica at the chunk's version
    long before = replicaLength();
    assertStatus(
        write(request(0, 100).toBuilder().setVersion(chunk.getVersion() - 1).build(), data),
        Status.STALE_VERSION);
    assertStatus(
        write(request(200, 100).toBuilder().setVersion(chunk.getVersion() + 1).build(), data),
        Status.STALE_VERSION);
    assertThat(replicaLength()).isEqualTo(before);
  }

  @Test
  void aTamperedOrMissingTokenIsRefused() {
    byte[] token = file.token().toByteArray();
    token[40] ^= 1;
    assertStatus(
        write(
            request(5000, 10).toBuilder().setToken(ByteString.copyFrom(token)).build(),
            new byte[10]),
        Status.INVALID_TOKEN);
    assertStatus(
        write(request(5000, 10).toBuilder().clearToken().build(), new byte[10]),
        Status.INVALID_TOKEN);
    assertStatus(
        call(
            RpcMethod.READ_CHUNK,
            ReadChunkRequest.newBuilder()
                .setChunk(chunk.getId())
                .setVersion(chunk.getVersion())
                .setLength(10)
                .build()),
        Status.INVALID_TOKEN);
  }

  @Test
  void lyingLengthsAndChecksumsAreRefused() {
    assertStatus(write(request(0, 50), new byte[40]), Status.INVALID_ARGUMENT);
    WriteChunkRequest wrongCrc = request(0, 10).toBuilder().setChecksums(0, 12345).build();
    assertStatus(write(wrongCrc, new byte[10]), Status.CHECKSUM_MISMATCH);
    assertStatus(
        write(request(0, 10).toBuilder().clearAckLevel().build(), new byte[10]),
        Status.INVALID_ARGUMENT);
  }

  @Test
  void anOversizedFrameClosesOnlyThatConnection() throws IOException {
    InetSocketAddress a = holder.address();
    try (Socket s = new Socket(a.getAddress(), a.getPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(RawFrames.hello(1, 1));
      out.write(RawFrames.header(RawFrames.MAGIC, 1, 0, 300, 0, 2, 0, 10, 1L << 30).array(), 0, 28);
      out.flush();
      InputStream in = s.getInputStream();
      byte[] sink = new byte[4096];
      while (in.read(sink) >= 0) {
        // the Hello answer, then end of stream when the server closes the connection
      }
    }
    assertNothingWrittenPast(1 << 20);
    assertThat(holder.store().dirs()).allSatisfy(d -> assertThat(d.failed()).isFalse());
  }

  @Test
  void aFullDiskReachesTheWriterAndNothingIsCommitted() throws IOException {
    WriteTarget f = cluster.create(client, "/full", LAYOUT);
    byte[] data = ReplicaFailureTest.random(9, 1 << 20);
    StripedWriter w = cluster.writer(client, f);
    assertThatThrownBy(
            () -> {
              ReplicaFailureTest.write(w, data, 0, data.length);
              w.complete();
            })
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NO_SPACE))
        .hasMessageContaining("bytes available");
    w.close();
    long size =
        client
            .callSync(
                cluster.mdsAddress(),
                RpcMethod.GET_ATTR,
                GetAttrRequest.newBuilder().setPath("/full").build())
            .getAttributes()
            .getSize();
    assertThat(size).isZero();
  }

  private static WriteChunkRequest request(long offset, int length) {
    byte[] zeros = new byte[length];
    ByteBuf b = Unpooled.wrappedBuffer(zeros);
    int[] crcs;
    try {
      crcs = Checksums.pieceCrcs(b, offset);
    } finally {
      b.release();
    }
    WriteChunkRequest.Builder r =
        WriteChunkRequest.newBuilder()
            .setChunk(chunk.getId())
            .setVersion(chunk.getVersion())
            .setOffset(offset)
            .setLength(length)
            .setAckLevel(AckLevel.ACK_LEVEL_IN_MEMORY)
            .setToken(file.token());
    for (int c : crcs) {
      r.addChecksums(c);
    }
    return r.build();
  }

  private static Throwable write(WriteChunkRequest req, byte[] payload) {
    return failure(
        client.call(
            holder.address(),
            RpcMethod.WRITE_CHUNK,
            req,
            Unpooled.wrappedBuffer(payload),
            Duration.ofSeconds(30)));
  }

  private static void writeOk(WriteChunkRequest req, byte[] payload) throws IOException {
    client
        .await(
            client.call(
                holder.address(),
                RpcMethod.WRITE_CHUNK,
                req,
                Unpooled.wrappedBuffer(payload),
                Duration.ofSeconds(30)))
        .close();
  }

  private static <Q extends com.google.protobuf.Message> Throwable call(
      RpcMethod<Q, ?> method, Q req) {
    return failure(client.call(holder.address(), method, req));
  }

  private static Throwable failure(
      java.util.concurrent.CompletableFuture<? extends AutoCloseable> f) {
    try {
      f.join().close();
      throw new AssertionError("the call succeeded");
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void assertStatus(Throwable failure, Status status) {
    assertThat(StatusExceptions.statusOf(failure)).as(String.valueOf(failure)).isEqualTo(status);
  }

  private static long replicaLength() {
    return holder.store().get(ChunkKey.of(chunk.getId())).length();
  }

  private static void assertNothingWritten() {
    var r = holder.store().get(ChunkKey.of(chunk.getId()));
    assertThat(r == null || r.length() <= 300).isTrue();
  }

  private static void assertNothingWrittenPast(long offset) {
    var r = holder.store().get(ChunkKey.of(chunk.getId()));
    assertThat(r == null || r.length() < offset).isTrue();
  }
}
