package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.blockCrcs;
import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.readRequest;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.DataClient.Read;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.AckLevel;
import io.braidfs.proto.ChecksumChunkRequest;
import io.braidfs.proto.ChecksumChunkResponse;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.GetChunkInfoRequest;
import io.braidfs.proto.GetChunkInfoResponse;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.ReplicaState;
import io.braidfs.proto.SyncChunkRequest;
import io.braidfs.proto.WriteChunkResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read and write paths of real data servers over loopback RPC: bytes written come back with the
 * CRCs of their 64 KiB blocks, a range read is widened to whole blocks, and a write chain puts the
 * same bytes on the next server, where sync and finalize follow it.
 */
class WriteReadTest {
  private static final int BLOCK = Checksums.BLOCK_SIZE;
  private static final long VERSION = 5;
  private static final long GENERATION = 2;

  @TempDir static Path dir;
  static TokenMint mint = new TokenMint(TokenMint.KEY_ID, 1);
  static LoopbackDataServer first;
  static LoopbackDataServer second;
  static DataClient client;

  @BeforeAll
  static void start() throws IOException {
    first = LoopbackDataServer.start("ds-a", 1, Files.createDirectory(dir.resolve("a")), mint);
    second = LoopbackDataServer.start("ds-b", 2, Files.createDirectory(dir.resolve("b")), mint);
    client = new DataClient("test-client", new ClientId(11, 12));
  }

  @AfterAll
  static void stop() {
    client.close();
    first.close();
    second.close();
  }

  private static ByteString token(long file) {
    return mint.sign(mint.token(client.id(), file, GENERATION));
  }

  @Test
  void writtenBytesReadBackWithTheirBlockCrcs() throws IOException {
    ChunkKey key = new ChunkKey(100, 0);
    byte[] data = randomBytes(1, 3 * BLOCK + 1000); // three whole blocks and a short last one
    WriteChunkResponse w =
        client.write(
            first.address(), writeRequest(key, VERSION, 0, data, token(100)).build(), data);
    assertThat(w.getChunkLength()).isEqualTo(data.length);

    Read r =
        client.read(first.address(), readRequest(key, VERSION, 0, data.length, token(100)).build());
    assertThat(r.bytes()).isEqualTo(data);
    assertThat(r.message().getFirstBlockOffset()).isZero();
    assertThat(r.message().getVersion()).isEqualTo(VERSION);
    assertThat(r.message().getChunkLength()).isEqualTo(data.length);
    assertThat(r.message().getChecksumsList()).isEqualTo(blockCrcs(data, 0, data.length));
    assertThat(r.message().getChecksumsList()).hasSize(4);

    Replica stored = first.replica(key);
    assertThat(stored.generation()).isEqualTo(GENERATION);
    assertThat(stored.state()).isEqualTo(ReplicaState.REPLICA_STATE_WRITING);
    assertThat(Files.readAllBytes(stored.dataFile())).isEqualTo(data);
  }

  @Test
  void aRangeIsAnsweredAsTheWholeBlocksAroundIt() throws IOException {
    ChunkKey key = new ChunkKey(101, 3);
    byte[] data = randomBytes(2, 4 * BLOCK);
    client.write(first.address(), writeRequest(key, VERSION, 0, data, token(101)).build(), data);

    // 1,000 bytes inside block 1 come as all of block 1.
    Read inside =
        client.read(
            first.address(), readRequest(key, VERSION, BLOCK + 70, 1000, token(101)).build());
    assertThat(inside.message().getFirstBlockOffset()).isEqualTo(BLOCK);
    assertThat(inside.bytes()).isEqualTo(Arrays.copyOfRange(data, BLOCK, 2 * BLOCK));
    assertThat(inside.message().getChecksumsList()).isEqualTo(blockCrcs(data, BLOCK, 2 * BLOCK));

    // A range across a block boundary comes as both blocks.
    Read across =
        client.read(
            first.address(), readRequest(key, VERSION, 2 * BLOCK - 10, 20, token(101)).build());
    assertThat(across.message().getFirstBlockOffset()).isEqualTo(BLOCK);
    assertThat(across.bytes()).isEqualTo(Arrays.copyOfRange(data, BLOCK, 3 * BLOCK));
    assertThat(across.message().getChecksumsList()).hasSize(2);

    // A range running past the end is cut there; at the end itself the answer is empty.
    Read tail =
        client.read(
            first.address(), readRequest(key, VERSION, 3 * BLOCK + 5, BLOCK, token(101)).build());
    assertThat(tail.bytes()).isEqualTo(Arrays.copyOfRange(data, 3 * BLOCK, 4 * BLOCK));
    Read end =
        client.read(
            first.address(), readRequest(key, VERSION, data.length, 10, token(101)).build());
    assertThat(end.bytes()).isEmpty();
    assertThat(end.message().getChecksumsCount()).isZero();
    assertThat(end.message().getChunkLength()).isEqualTo(data.length);
  }

  @Test
  void anOverwriteInsideABlockChangesThatBlocksCrc() throws IOException {
    ChunkKey key = new ChunkKey(102, 0);
    byte[] data = randomBytes(3, 2 * BLOCK + 500);
    client.write(first.address(), writeRequest(key, VERSION, 0, data, token(102)).build(), data);
    byte[] patch = randomBytes(4, 300);
    long length =
        client
            .write(
                first.address(),
                writeRequest(key, VERSION, BLOCK + 100, patch, token(102)).build(),
                patch)
            .getChunkLength();
    assertThat(length).isEqualTo(data.length);
    System.arraycopy(patch, 0, data, BLOCK + 100, patch.length);

    Read r =
        client.read(first.address(), readRequest(key, VERSION, 0, data.length, token(102)).build());
    assertThat(r.bytes()).isEqualTo(data);
    assertThat(r.message().getChecksumsList()).isEqualTo(blockCrcs(data, 0, data.length));
  }

  @Test
  void aReaderOfAnOlderVersionIsServedTheNewerReplica() throws IOException {
    ChunkKey key = new ChunkKey(103, 0);
    byte[] data = randomBytes(5, 100);
    client.write(first.address(), writeRequest(key, VERSION, 0, data, token(103)).build(), data);
    Read r =
        client.read(first.address(), readRequest(key, VERSION - 1, 0, 100, token(103)).build());
    assertThat(r.bytes()).isEqualTo(data);
    assertThat(r.message().getVersion()).isEqualTo(VERSION);
  }

  @Test
  void infoAndChecksumDescribeTheReplica() throws IOException {
    ChunkKey key = new ChunkKey(104, 0);
    byte[] data = randomBytes(6, 2 * BLOCK + 7);
    client.write(
        first.address(),
        writeRequest(key, VERSION, 0, data, token(104))
            .setAckLevel(AckLevel.ACK_LEVEL_ON_DISK)
            .build(),
        data);
    GetChunkInfoResponse info =
        client.call(
            first.address(),
            RpcMethod.GET_CHUNK_INFO,
            GetChunkInfoRequest.newBuilder().setChunk(key.toProto()).setToken(token(104)).build());
    assertThat(info.getVersion()).isEqualTo(VERSION);
    assertThat(info.getLength()).isEqualTo(data.length);
    assertThat(info.getSyncedLength()).isEqualTo(data.length); // acknowledged on disk
    assertThat(info.getState()).isEqualTo(ReplicaState.REPLICA_STATE_WRITING);

    ChecksumChunkResponse sums =
        client.call(
            first.address(),
            RpcMethod.CHECKSUM_CHUNK,
            ChecksumChunkRequest.newBuilder()
                .setChunk(key.toProto())
                .setVersion(VERSION)
                .setPieceSize(BLOCK)
                .setToken(token(104))
                .build());
    assertThat(sums.getLength()).isEqualTo(data.length);
    assertThat(sums.getPieceCrcsList()).isEqualTo(blockCrcs(data, 0, data.length));
  }

  @Test
  void aWriteChainPutsTheSameBytesOnTheNextServer() throws IOException {
    ChunkKey key = new ChunkKey(105, 1);
    byte[] data = randomBytes(7, 2 * BLOCK + 321);
    List<ReplicaLocation> chain = List.of(second.location());
    client.write(
        first.address(),
        writeRequest(key, VERSION, 0, data, token(105), chain)
            .setAckLevel(AckLevel.ACK_LEVEL_ON_DISK)
            .build(),
        data);

    // The second server took the bytes with the client's token, forwarded by the first.
    Read copy =
        client.read(
            second.address(), readRequest(key, VERSION, 0, data.length, token(105)).build());
    assertThat(copy.bytes()).isEqualTo(data);
    assertThat(copy.message().getChecksumsList()).isEqualTo(blockCrcs(data, 0, data.length));
    assertThat(second.replica(key).syncedLength()).isEqualTo(data.length);

    // A second write at an offset goes down the chain too, then sync and finalize.
    byte[] more = randomBytes(8, 1000);
    client.write(
        first.address(),
        writeRequest(key, VERSION, data.length, more, token(105), chain).build(),
        more);
    long synced =
        client
            .call(
                first.address(),
                RpcMethod.SYNC_CHUNK,
                SyncChunkRequest.newBuilder()
                    .setChunk(key.toProto())
                    .setVersion(VERSION)
                    .addAllDownstream(chain)
                    .setToken(token(105))
                    .build())
            .getSyncedLength();
    assertThat(synced).isEqualTo(data.length + more.length);
    long finalLength = data.length + 500; // the writer acknowledged only this much
    client.call(
        first.address(),
        RpcMethod.FINALIZE_CHUNK,
        FinalizeChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(finalLength)
            .addAllDownstream(chain)
            .setToken(token(105))
            .build());

    byte[] expected = Arrays.copyOf(data, (int) finalLength);
    System.arraycopy(more, 0, expected, data.length, 500);
    for (LoopbackDataServer s : List.of(first, second)) {
      Replica r = s.replica(key);
      assertThat(r.state()).as(s.id()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
      assertThat(r.length()).as(s.id()).isEqualTo(finalLength);
      assertThat(Files.readAllBytes(r.dataFile())).as(s.id()).isEqualTo(expected);
      Read back =
          client.read(
              s.address(), readRequest(key, VERSION, 0, (int) finalLength, token(105)).build());
      assertThat(back.bytes()).as(s.id()).isEqualTo(expected);
      assertThat(back.message().getChecksumsList())
          .as(s.id())
          .isEqualTo(blockCrcs(expected, 0, expected.length));
    }
  }

  @Test
  void aWriteChainFailureNamesTheServerThatFailed() throws IOException {
    ChunkKey key = new ChunkKey(106, 0);
    byte[] data = randomBytes(9, 100);
    // The second server already holds a newer version: it refuses, and the first names it.
    client.write(
        second.address(), writeRequest(key, VERSION + 1, 0, data, token(106)).build(), data);
    assertThatThrownBy(
            () ->
                client.write(
                    first.address(),
                    writeRequest(key, VERSION, 0, data, token(106), List.of(second.location()))
                        .build(),
                    data))
        .satisfies(
            e -> {
              assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.STALE_VERSION);
              assertThat(RemoteErrorInfo.of(e).orElseThrow().getFailedServerId()).isEqualTo(2);
            })
        .hasMessage(
            "downstream 127.0.0.1:"
                + second.address().getPort()
                + ": ds-b: write of chunk 106:0 names version 5 but the replica is at 6");
    // The first server applied its own write; the second kept its replica.
    assertThat(first.replica(key).length()).isEqualTo(100);
    assertThat(second.replica(key).version()).isEqualTo(VERSION + 1);
  }
}
