package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.DataPathOptions;
import io.braidfs.client.internal.data.ChunkService;
import io.braidfs.client.internal.data.LocalReplicas;
import io.braidfs.client.internal.data.ReplicaHealth;
import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.AllocateChunkSetResponse;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CommitResponse;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.ReplaceReplicaRequest;
import io.braidfs.proto.ReplaceReplicaResponse;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.proto.UpdateLengthResponse;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data path under failure, on a real MiniCluster of four data servers: a replica that dies
 * while being written is replaced and the file completes correctly; one that dies, or holds a
 * corrupt byte, while being read is passed over without an error to the reader (and the corrupt one
 * is reported to the MDS).
 */
class ReplicaFailureTest {
  static final Layout LAYOUT = Layout.of(64 << 10, 1, 1 << 20, 3);

  @TempDir Path dir;
  MiniCluster cluster;
  RpcClient client;
  Recording mds;

  @BeforeEach
  void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(4).build();
    cluster.start();
    client = cluster.newClient("root");
    mds = new Recording(cluster.chunkService(client));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Test
  void aReplicaDyingMidWriteIsReplacedAndTheFileIsComplete() throws IOException {
    WriteTarget f = cluster.create(client, "/mid-write", LAYOUT);
    byte[] data = random(1, 3 * (1 << 20) + 17);
    ChunkLocation chunk0 = f.chunkSets().get(0).getChunks(0);
    int victim = chunk0.getReplicas(1).getServerId(); // the middle of the chain
    List<ChunkState> chunks;
    try (StripedWriter w = new StripedWriter(client, mds, DataPathOptions.defaults(), f)) {
      write(w, data, 0, 300_000);
      w.flush();
      cluster.stopDataServer(cluster.indexOf(victim));
      write(w, data, 300_000, data.length);
      w.complete();
      chunks = w.chunkStates();
    }
    assertThat(chunks.get(0).getVersion()).isGreaterThan(chunk0.getVersion());
    assertThat(DataPathTest.readAll(reader(f), data.length)).isEqualTo(data);
    assertReplicas(chunks, 3);
  }

  @Test
  void aReplicaDyingMidReadIsPassedOver() throws IOException {
    WriteTarget f = cluster.create(client, "/mid-read", LAYOUT);
    byte[] data = random(2, 2 * (1 << 20) + 5);
    complete(f, data);
    StripedReader r = reader(f);
    ByteBuf dst = Unpooled.buffer(data.length);
    try {
      assertThat(r.read(0, dst, 1 << 20)).isEqualTo(1 << 20);
      cluster.stopDataServer(cluster.indexOf(nearest(f, 1 << 20).getServerId()));
      assertThat(r.read(1 << 20, dst, data.length - (1 << 20))).isEqualTo(data.length - (1 << 20));
      byte[] out = new byte[data.length];
      dst.getBytes(0, out);
      assertThat(out).isEqualTo(data);
    } finally {
      dst.release();
    }
  }

  @Test
  void aCorruptByteOnDiskIsReadFromAnotherReplicaAndReported() throws IOException {
    WriteTarget f = cluster.create(client, "/corrupt", LAYOUT);
    byte[] data = random(3, 700_000);
    complete(f, data);
    ChunkLocation chunk = locations(f).getChunkSets(0).getChunks(0);
    int bad = chunk.getReplicas(0).getServerId();
    Replica replica = cluster.dataServerById(bad).store().get(ChunkKey.of(chunk.getId()));
    flipByte(replica.dataFile(), 200_000);

    assertThat(DataPathTest.readAll(reader(f), data.length)).isEqualTo(data);
    assertThat(mds.reports)
        .singleElement()
        .satisfies(
            b -> {
              assertThat(b.getServerId()).isEqualTo(bad);
              assertThat(b.getOffset()).isEqualTo(3 * 65536);
              assertThat(b.getReason()).contains("CRC32C mismatch");
            });
  }

  @Test
  void aReadFailsWithChecksumMismatchWhenEveryReplicaIsCorrupt() throws IOException {
    WriteTarget f = cluster.create(client, "/all-corrupt", LAYOUT);
    byte[] data = random(4, 700_000);
    complete(f, data);
    ChunkLocation chunk = locations(f).getChunkSets(0).getChunks(0);
    for (var r : chunk.getReplicasList()) {
      flipByte(
          cluster
              .dataServerById(r.getServerId())
              .store()
              .get(ChunkKey.of(chunk.getId()))
              .dataFile(),
          300_000);
    }

    ByteBuf dst = Unpooled.buffer(data.length);
    try {
      assertThatThrownBy(() -> reader(f).read(0, dst, data.length))
          .isInstanceOf(IOException.class)
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.CHECKSUM_MISMATCH))
          .hasMessageContaining("failed on all 3 replicas")
          .hasMessageContaining("CRC32C mismatch");
      assertThat(dst.writerIndex()).isZero();
    } finally {
      dst.release();
    }
    assertThat(mds.reports)
        .extracting(BadReplica::getServerId)
        .containsExactlyInAnyOrderElementsOf(
            chunk.getReplicasList().stream().map(r -> r.getServerId()).toList());
  }

  private io.braidfs.proto.ReplicaLocation nearest(WriteTarget f, long offset) throws IOException {
    GetChunkLocationsResponse r =
        mds.locations(
            GetChunkLocationsRequest.newBuilder()
                .setInodeId(f.inodeId())
                .setPath(f.path())
                .setOffset(offset)
                .setLength(1)
                .build());
    return r.getChunkSets(0).getChunks(0).getReplicas(0);
  }

  private GetChunkLocationsResponse locations(WriteTarget f) throws IOException {
    return mds.locations(
        GetChunkLocationsRequest.newBuilder().setInodeId(f.inodeId()).setPath(f.path()).build());
  }

  private StripedReader reader(WriteTarget f) {
    return new StripedReader(
        client,
        mds,
        new ReplicaHealth(),
        DataPathOptions.defaults(),
        LocalReplicas.disabled(), // the network path's failures are what this test is about
        f.inodeId(),
        f.path(),
        f.layout());
  }

  private void complete(WriteTarget f, byte[] data) throws IOException {
    try (StripedWriter w = new StripedWriter(client, mds, DataPathOptions.defaults(), f)) {
      write(w, data, 0, data.length);
      w.complete();
    }
  }

  private void assertReplicas(List<ChunkState> chunks, int replication) throws IOException {
    DataPathTest.assertReplicasIdentical(cluster, chunks, replication);
  }

  static void write(StripedWriter w, byte[] data, int from, int to) throws IOException {
    ByteBuf b = Unpooled.wrappedBuffer(data, from, to - from);
    try {
      w.write(from, b);
    } finally {
      b.release();
    }
  }

  static byte[] random(long seed, int size) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  static void flipByte(Path file, long offset) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, offset);
      one.put(0, (byte) (one.get(0) ^ 0x40)).rewind();
      ch.write(one, offset);
    }
  }

  /** The real MDS calls, with the bad-replica reports kept for the test to look at. */
  static final class Recording implements ChunkService {
    final ChunkService real;
    final List<BadReplica> reports = new CopyOnWriteArrayList<>();

    Recording(ChunkService real) {
      this.real = real;
    }

    @Override
    public GetChunkLocationsResponse locations(GetChunkLocationsRequest request)
        throws IOException {
      return real.locations(request);
    }

    @Override
    public AllocateChunkSetResponse allocate(AllocateChunkSetRequest request) throws IOException {
      return real.allocate(request);
    }

    @Override
    public ReplaceReplicaResponse replaceReplica(ReplaceReplicaRequest request) throws IOException {
      return real.replaceReplica(request);
    }

    @Override
    public UpdateLengthResponse updateLength(UpdateLengthRequest request) throws IOException {
      return real.updateLength(request);
    }

    @Override
    public CommitResponse commit(CommitRequest request) throws IOException {
      return real.commit(request);
    }

    @Override
    public void reportBadReplicas(List<BadReplica> replicas) {
      reports.addAll(replicas);
      real.reportBadReplicas(replicas);
    }
  }
}
