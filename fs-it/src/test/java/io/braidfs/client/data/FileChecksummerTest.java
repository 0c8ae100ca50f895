package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.client.DataPathOptions;
import io.braidfs.client.internal.data.FileChecksummer;
import io.braidfs.client.internal.data.ReplicaHealth;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.OpenResponse;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FileChecksummer} against a real MiniCluster, with the MDS's open answer altered where a
 * test needs a situation the cluster would not produce on demand: an expired token, a replica that
 * is not there, a chunk with no replica left. The piece sizes it asks for are checked per layout.
 */
class FileChecksummerTest {
  static final int UNIT = 64 << 10;
  static final long CHUNK = 256 << 10;

  @TempDir static Path dir;
  static MiniCluster cluster;
  static RpcClient client;
  static int files;

  @BeforeAll
  static void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
    client = cluster.newClient("root");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /** Any window, down to one request at a time, folds the sets in the same order. */
  @ParameterizedTest(name = "{0} in flight")
  @ValueSource(ints = {1, 2, 3, 5, 64})
  void theWindowDoesNotChangeTheResult(int window) throws IOException {
    Layout layout = Layout.of(UNIT, 4, CHUNK, 2);
    byte[] data = random(window, (int) (5 * layout.chunkSetSpan() + UNIT + 3));
    String path = write(layout, data);
    assertThat(checksummer(window).crc32c(path, layout, open(path))).isEqualTo(crc(data));
  }

  @Test
  void anExpiredTokenIsReplacedOnce() throws IOException {
    Layout layout = Layout.of(UNIT, 2, CHUNK, 1);
    byte[] data = random(17, (int) (2 * CHUNK + 5));
    String path = write(layout, data);
    OpenResponse forged = open(path).toBuilder().setToken(ByteString.copyFromUtf8("stale")).build();
    assertThat(checksummer(64).crc32c(path, layout, forged)).isEqualTo(crc(data));
  }

  @Test
  void anUnreachableReplicaIsSkipped() throws IOException {
    Layout layout = Layout.of(UNIT, 2, CHUNK, 1);
    byte[] data = random(19, (int) (3 * CHUNK));
    String path = write(layout, data);
    OpenResponse opened = open(path);
    // Put a replica that refuses connections in front of every real one.
    ReplicaLocation nowhere =
        ReplicaLocation.newBuilder().setServerId(9999).setHost("127.0.0.1").setPort(1).build();
    OpenResponse.Builder b = opened.toBuilder();
    for (ChunkSetLocation.Builder set : b.getChunkSetsBuilderList()) {
      for (var chunk : set.getChunksBuilderList()) {
        chunk.addReplicas(0, nowhere);
      }
    }
    assertThat(checksummer(64).crc32c(path, layout, b.build())).isEqualTo(crc(data));
  }

  /**
   * Lost data is not a hole: a chunk with committed bytes and no replica is an error, not zeros.
   */
  @Test
  void aChunkWithDataButNoReplicaIsUnavailable() throws IOException {
    Layout layout = Layout.of(UNIT, 2, CHUNK, 1);
    String path = write(layout, random(23, (int) CHUNK));
    OpenResponse.Builder b = open(path).toBuilder();
    b.getChunkSetsBuilder(0).getChunksBuilder(1).clearReplicas();
    assertThatThrownBy(() -> checksummer(64).crc32c(path, layout, b.build()))
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.UNAVAILABLE))
        .hasMessageContaining("no replica");
  }

  @Test
  void pieceSizesAreOnesTheDataServersAccept() {
    // Width 1: chunks are contiguous in the file, so large pieces.
    assertThat(FileChecksummer.pieceSize(Layout.of(UNIT, 1, CHUNK, 1))).isEqualTo(CHUNK);
    assertThat(FileChecksummer.pieceSize(Layout.of(4096, 1, Layout.MAX_CHUNK_SIZE, 1)))
        .isEqualTo(1 << 30);
    assertThat(FileChecksummer.pieceSize(Layout.of(4096, 1, 12 << 10, 1))).isEqualTo(4096);
    assertThat(FileChecksummer.pieceSize(Layout.of(4096, 1, 68 << 10, 1))).isEqualTo(64 << 10);
    // Wider: a stripe unit per piece, whatever its size.
    assertThat(FileChecksummer.pieceSize(Layout.of(UNIT, 2, CHUNK, 1))).isEqualTo(UNIT);
    assertThat(FileChecksummer.pieceSize(Layout.of(8192, 3, CHUNK, 1))).isEqualTo(8192);
    assertThat(FileChecksummer.pieceSize(Layout.of(1 << 20, 4, 64L << 20, 1))).isEqualTo(1 << 20);
    for (int unit = Layout.MIN_STRIPE_UNIT; unit <= Layout.MAX_STRIPE_UNIT; unit <<= 1) {
      int piece = FileChecksummer.pieceSize(Layout.of(unit, 2, unit, 1));
      assertThat(piece % Checksums.BLOCK_SIZE == 0 || Checksums.BLOCK_SIZE % piece == 0).isTrue();
    }
  }

  FileChecksummer checksummer(int window) {
    return new FileChecksummer(
        client,
        cluster.chunkService(client),
        new ReplicaHealth(),
        DataPathOptions.defaults(),
        window);
  }

  static OpenResponse open(String path) throws IOException {
    return client.callSync(
        cluster.mdsAddress(),
        RpcMethod.OPEN,
        OpenRequest.newBuilder()
            .setPath(path)
            .setMaxChunkSets(FileChecksummer.OPEN_CHUNK_SETS)
            .build());
  }

  static String write(Layout layout, byte[] data) throws IOException {
    WriteTarget f = cluster.create(client, "/fc/f" + (files++), layout);
    try (StripedWriter w = cluster.writer(client, f)) {
      ByteBuf b = Unpooled.wrappedBuffer(data);
      try {
        w.write(0, b);
      } finally {
        b.release();
      }
      w.complete();
    }
    return f.path();
  }

  static byte[] random(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static int crc(byte[] data) {
    CRC32C c = new CRC32C();
    c.update(data);
    return (int) c.getValue();
  }
}
