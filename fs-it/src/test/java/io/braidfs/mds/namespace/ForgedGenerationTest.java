package io.braidfs.mds.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.common.token.TokenKeys;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.AckLevel;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.WriteChunkRequest;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A token's generation is checked against the MDS's own record of the file (issue 28): a replica
 * written under a generation the MDS never issued, as with a forged token ("a write token with
 * generation 2^40" locked a file for good), is found at the data server's next report, replaced
 * from the good replicas and deleted, and the file stays readable and writable.
 */
class ForgedGenerationTest {
  private static final long FORGED = 1L << 40;

  @TempDir Path dir;

  @Test
  void aReplicaUnderANeverIssuedGenerationIsReplacedAndTheFileStaysWritable() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder(dir).dataServers(4).build()) {
      cluster.start();
      BraidClient client = cluster.newBraidClient("root");
      byte[] data = new byte[64 << 10];
      new Random(28).nextBytes(data);
      try (BraidOutputStream out = client.create("/f")) {
        out.write(data);
      }

      // The attacker: the signing key (which the MDS hands only to its authenticated data
      // servers), a token for the file under generation 2^40, and the attacker's bytes written in
      // place on one replica.
      byte[] clientId = new byte[ClientId.LENGTH];
      new Random(29).nextBytes(clientId);
      try (RpcClient raw = RpcClient.builder("attacker").user("root").clientId(clientId).build()) {
        raw.start();
        GetChunkLocationsResponse where = locations(raw, cluster, data.length);
        ChunkLocation chunk = where.getChunkSets(0).getChunks(0);
        assertThat(chunk.getReplicasCount()).isEqualTo(3);
        ReplicaLocation victim = chunk.getReplicas(0);
        ByteBuffer issued = where.getToken().asReadOnlyByteBuffer();
        issued.get(); // the token format's version
        issued.getInt(); // key id
        long epoch = issued.getLong();
        TokenKeys keys = cluster.mds().namespace().tokenKeys();
        long now = System.currentTimeMillis();
        CapabilityToken forged =
            CapabilityToken.builder()
                .keyId(keys.currentKeyId())
                .mdsEpoch(epoch)
                .clientId(ClientId.of(clientId))
                .fileId(chunk.getId().getInodeId())
                .fileGeneration(FORGED)
                .chunks(0, 0)
                .modes(CapabilityToken.READ | CapabilityToken.WRITE)
                .validity(now - 60_000, now + 600_000)
                .build();
        byte[] evil = new byte[4096];
        Arrays.fill(evil, (byte) 0x66);
        ByteBuf b = Unpooled.wrappedBuffer(evil);
        WriteChunkRequest.Builder w =
            WriteChunkRequest.newBuilder()
                .setChunk(chunk.getId())
                .setVersion(chunk.getVersion())
                .setOffset(0)
                .setLength(evil.length)
                .setAckLevel(AckLevel.ACK_LEVEL_ON_DISK)
                .setToken(ByteString.copyFrom(keys.currentSigner().sign(forged)));
        for (int crc : Checksums.pieceCrcs(b, 0)) {
          w.addChecksums(crc);
        }
        raw.await(
                raw.call(
                    HostPort.of(victim),
                    RpcMethod.WRITE_CHUNK,
                    w.build(),
                    Unpooled.wrappedBuffer(evil),
                    Duration.ofSeconds(30)))
            .close();
        ChunkKey key = ChunkKey.of(chunk.getId());
        int index = indexOf(cluster, victim.getServerId());
        Replica hit = cluster.dataServer(index).store().get(key);
        assertThat(hit).isNotNull();
        assertThat(hit.generation()).as("the attack took").isEqualTo(FORGED);

        // At its next full report (a restart here) the MDS sees a generation it never issued.
        cluster.restartDataServer(index);
        DataServer restarted = cluster.dataServer(index);
        Await.until(
            "the forged replica is deleted",
            Duration.ofSeconds(60),
            () -> {
              Replica r = restarted.store().get(key);
              return r == null || r.generation() < FORGED;
            });

        // Three good replicas again, each with the file's own bytes.
        Await.until(
            "three replicas of /f",
            Duration.ofSeconds(60),
            () ->
                locations(raw, cluster, data.length).getChunkSets(0).getChunks(0).getReplicasCount()
                    == 3);
        GetChunkLocationsResponse now2 = locations(raw, cluster, data.length);
        ChunkLocation healed = now2.getChunkSets(0).getChunks(0);
        for (ReplicaLocation r : healed.getReplicasList()) {
          ReadChunkRequest read =
              ReadChunkRequest.newBuilder()
                  .setChunk(healed.getId())
                  .setVersion(healed.getVersion())
                  .setLength(data.length)
                  .setToken(now2.getToken())
                  .build();
          try (var answer = raw.await(raw.call(HostPort.of(r), RpcMethod.READ_CHUNK, read))) {
            ByteBuf payload = answer.payload();
            byte[] got = new byte[payload.readableBytes()];
            payload.getBytes(payload.readerIndex(), got);
            assertThat(got).as("replica on ds %s", r.getServerId()).isEqualTo(data);
          }
        }
      }

      // The owner appends to the same file (the same inode and chunk: a replica still at
      // generation 2^40 would refuse it), and reads it all back.
      byte[] more = new byte[8192];
      new Random(30).nextBytes(more);
      try (BraidOutputStream out = client.append("/f")) {
        out.write(more);
      }
      byte[] whole = Arrays.copyOf(data, data.length + more.length);
      System.arraycopy(more, 0, whole, data.length, more.length);
      try (BraidInputStream in = client.open("/f")) {
        assertThat(in.readAllBytes()).isEqualTo(whole);
      }
    }
  }

  private static GetChunkLocationsResponse locations(RpcClient raw, MiniCluster c, long length) {
    try {
      return raw.callSync(
          c.mdsAddress(),
          RpcMethod.GET_CHUNK_LOCATIONS,
          GetChunkLocationsRequest.newBuilder().setPath("/f").setLength(length).build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int indexOf(MiniCluster c, int serverId) {
    for (int i = 0; ; i++) {
      if (c.dataServer(i).serverId() == serverId) {
        return i;
      }
    }
  }
}
