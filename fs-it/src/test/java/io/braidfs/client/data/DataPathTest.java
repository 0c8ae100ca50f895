package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.internal.data.LocalReplicas;
import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.ReadView;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.ChunkState;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Files of every awkward size written through the replica chains of a real MiniCluster (MDS and
 * three data servers over loopback) and read back, for stripe widths 1-4 and replication 1-3, over
 * the network and from the replicas' files (short-circuit): contents byte for byte, and every
 * replica of every chunk identical on disk.
 */
class DataPathTest {
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

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int width = 1; width <= 4; width++) {
      for (int replication = 1; replication <= 3; replication++) {
        long set = CHUNK * width;
        long[] sizes = {0, 1, UNIT - 1, UNIT, UNIT + 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * set + 17};
        for (long size : sizes) {
          out.add(Arguments.of(width, replication, size));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "width {0}, replication {1}, {2} bytes")
  @MethodSource("cases")
  void writeAndReadBack(int width, int replication, long size) throws IOException {
    Layout layout = Layout.of(UNIT, width, CHUNK, replication);
    WriteTarget f = cluster.create(client, "/dp/f" + (files++), layout);
    byte[] data = new byte[(int) size];
    new Random(size * 31 + width * 7 + replication).nextBytes(data);
    List<ChunkState> chunks;
    try (StripedWriter w = cluster.writer(client, f)) {
      writeInOddPieces(w, data);
      assertThat(w.complete().getAttributes().getSize()).isEqualTo(size);
      chunks = w.chunkStates();
    }
    assertThat(readAll(cluster.reader(client, f), size)).isEqualTo(data);
    // And from the replicas' files (short-circuit): every byte, none over the network.
    try (LocalReplicas local = LocalReplicas.enabled(client, Duration.ofSeconds(10))) {
      assertThat(readAll(cluster.reader(client, f, local), size)).isEqualTo(data);
      assertThat(local.localBytes()).isEqualTo(size);
      assertThat(local.fallbacks()).isZero();
    }
    assertReplicasIdentical(cluster, chunks, replication);
  }

  /** Application-sized writes that never line up with stripe units. */
  static void writeInOddPieces(StripedWriter w, byte[] data) throws IOException {
    int[] sizes = {1, 4093, 70_000, 12_345, 300_001};
    int at = 0;
    for (int i = 0; at < data.length; i++) {
      int n = Math.min(sizes[i % sizes.length], data.length - at);
      ByteBuf b = Unpooled.wrappedBuffer(data, at, n);
      try {
        w.write(at, b);
      } finally {
        b.release();
      }
      at += n;
    }
  }

  static byte[] readAll(StripedReader r, long size) throws IOException {
    ByteBuf dst = Unpooled.buffer((int) size + 1);
    try {
      int n = size == 0 ? 0 : r.read(0, dst, (int) size);
      assertThat(n).isEqualTo(size == 0 ? 0 : (int) size);
      assertThat(r.read(size, dst, 1)).isEqualTo(-1);
      byte[] out = new byte[dst.readableBytes()];
      dst.getBytes(0, out);
      return out;
    } finally {
      dst.release();
    }
  }

  /** Every chunk has {@code replication} replicas at its committed version with equal bytes. */
  static void assertReplicasIdentical(MiniCluster cluster, List<ChunkState> chunks, int replication)
      throws IOException {
    for (ChunkState c : chunks) {
      ChunkKey key = ChunkKey.of(c.getId());
      List<byte[]> copies = new ArrayList<>();
      for (DataServer ds : cluster.runningDataServers()) {
        Replica r = ds.store().get(key);
        if (r != null && r.version() == c.getVersion()) {
          copies.add(contents(r));
        }
      }
      assertThat(copies).as("replicas of chunk %s", key).hasSize(replication);
      for (byte[] copy : copies) {
        assertThat(copy.length).as("length of a replica of %s", key).isEqualTo(c.getLength());
        assertThat(Arrays.equals(copy, copies.get(0))).as("replicas of %s agree", key).isTrue();
      }
    }
  }

  static byte[] contents(Replica r) throws IOException {
    try (ReadView v = r.read(0, (int) r.length())) {
      ByteBuffer b = ByteBuffer.allocate((int) v.length());
      while (b.hasRemaining() && v.channel().read(b, v.firstBlockOffset() + b.position()) >= 0) {
        // read until full
      }
      return b.array();
    }
  }
}
