package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.assertFails;
import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.readRequest;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.ChecksumChunkRequest;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.GetChunkInfoRequest;
import io.braidfs.proto.OpenLocalReplicaRequest;
import io.braidfs.proto.SyncChunkRequest;
import io.braidfs.proto.TruncateChunkRequest;
import io.braidfs.proto.WriteChunkRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests a real data server must refuse, over loopback RPC, each with its precise status and
 * without changing the replica: a replica that is not there, offsets and lengths out of range,
 * lengths and checksums that disagree with the data, versions that do not match.
 */
class BadRequestTest {
  private static final long VERSION = 4;
  private static final long GENERATION = 1;

  @TempDir static Path dir;
  static TokenMint mint = new TokenMint(TokenMint.KEY_ID, 4);
  static LoopbackDataServer server;
  static DataClient client;

  @BeforeAll
  static void start() throws IOException {
    server = LoopbackDataServer.start("ds-bad", 1, Files.createDirectory(dir.resolve("ds")), mint);
    client = new DataClient("test-client", new ClientId(41, 42));
  }

  @AfterAll
  static void stop() {
    client.close();
    server.close();
  }

  private static ByteString token(long file) {
    return mint.sign(mint.token(client.id(), file, GENERATION));
  }

  /** A replica of {@code key} holding {@code length} bytes, still open for writing. */
  private static byte[] replica(ChunkKey key, int length) throws IOException {
    byte[] data = randomBytes((int) key.inodeId(), length);
    client.write(
        server.address(), writeRequest(key, VERSION, 0, data, token(key.inodeId())).build(), data);
    return data;
  }

  private static void assertUnchanged(ChunkKey key, byte[] data) throws IOException {
    Replica r = server.replica(key);
    assertThat(r.version()).isEqualTo(VERSION);
    assertThat(Files.readAllBytes(r.dataFile())).isEqualTo(data);
  }

  @Test
  void everyOperationOnAReplicaThatIsNotHereIsNotFound() {
    ChunkKey key = new ChunkKey(400, 0);
    ByteString t = token(400);
    String notHere = "ds-bad: no replica of chunk 400:0 here";
    assertFails(
            Status.NOT_FOUND,
            () -> client.read(server.address(), readRequest(key, VERSION, 0, 10, t).build()))
        .withMessage(notHere);
    assertFails(
            Status.NOT_FOUND,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.GET_CHUNK_INFO,
                    GetChunkInfoRequest.newBuilder().setChunk(key.toProto()).setToken(t).build()))
        .withMessage(notHere);
    assertFails(
            Status.NOT_FOUND,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.CHECKSUM_CHUNK,
                    ChecksumChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setPieceSize(65536)
                        .setToken(t)
                        .build()))
        .withMessage(notHere);
    assertFails(
            Status.NOT_FOUND,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.OPEN_LOCAL_REPLICA,
                    OpenLocalReplicaRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setLength(65536)
                        .setToken(t)
                        .build()))
        .withMessage(notHere);
    assertFails(
            Status.NOT_FOUND,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.SYNC_CHUNK,
                    SyncChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setToken(t)
                        .build()))
        .withMessage(notHere);
    assertFails(
            Status.NOT_FOUND,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.FINALIZE_CHUNK,
                    FinalizeChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setLength(10)
                        .setToken(t)
                        .build()))
        .withMessage(notHere);
    assertFails(
            Status.NOT_FOUND,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.TRUNCATE_CHUNK,
                    TruncateChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setNewVersion(VERSION + 1)
                        .setLength(0)
                        .setToken(t)
                        .build()))
        .withMessage(notHere);
    assertThat(server.replica(key)).isNull();
  }

  @Test
  void aWriteEndingPastTheLargestChunkIsOutOfRange() {
    ChunkKey key = new ChunkKey(401, 0);
    byte[] data = new byte[10];
    assertFails(
            Status.OUT_OF_RANGE,
            () ->
                client.write(
                    server.address(),
                    writeRequest(key, VERSION, Layout.MAX_CHUNK_SIZE - 5, data, token(401)).build(),
                    data))
        .withMessage(
            "ds-bad: write to chunk 401:0 at offset "
                + (Layout.MAX_CHUNK_SIZE - 5)
                + " ends past the largest chunk size");
    assertThat(server.replica(key)).isNull();
  }

  @Test
  void aWriteWhoseLengthOrChecksumsDisagreeWithItsDataIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(402, 0);
    byte[] data = replica(key, 1000);
    byte[] other = randomBytes(9, 100);
    WriteChunkRequest good = writeRequest(key, VERSION, 0, other, token(402)).build();

    assertFails(
            Status.INVALID_ARGUMENT,
            () -> client.write(server.address(), good.toBuilder().setLength(101).build(), other))
        .withMessage("ds-bad: write to chunk 402:0 says 101 bytes but carries 100");
    assertFails(
            Status.INVALID_ARGUMENT,
            () -> client.write(server.address(), good.toBuilder().addChecksums(0).build(), other))
        .withMessage("ds-bad: write to chunk 402:0 carries 2 checksums for 1 pieces");
    assertFails(
            Status.INVALID_ARGUMENT,
            () -> client.write(server.address(), good.toBuilder().clearAckLevel().build(), other))
        .withMessage("ds-bad: write to chunk 402:0 has no acknowledgement level");
    assertFails(
            Status.CHECKSUM_MISMATCH,
            () ->
                client.write(
                    server.address(),
                    good.toBuilder().setChecksums(0, good.getChecksums(0) ^ 1).build(),
                    other))
        .withMessageStartingWith("ds-bad: write to chunk 402:0 arrived corrupt: ");
    assertUnchanged(key, data);
  }

  @Test
  void aWriteOfAnotherVersionIsStale() throws IOException {
    ChunkKey key = new ChunkKey(403, 0);
    byte[] data = replica(key, 1000);
    byte[] other = randomBytes(9, 100);
    assertFails(
            Status.STALE_VERSION,
            () ->
                client.write(
                    server.address(),
                    writeRequest(key, VERSION - 1, 0, other, token(403)).build(),
                    other))
        .withMessage("ds-bad: write of chunk 403:0 names version 3 but the replica is at 4");
    assertFails(
            Status.STALE_VERSION,
            () ->
                client.write(
                    server.address(),
                    writeRequest(key, VERSION + 1, 0, other, token(403)).build(),
                    other))
        .withMessage("ds-bad: write of chunk 403:0 names version 5 but the replica is at 4");
    assertUnchanged(key, data);
  }

  @Test
  void aReadPastTheEndOrLargerThanOneAnswerIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(404, 0);
    byte[] data = replica(key, 1000);
    assertFails(
            Status.OUT_OF_RANGE,
            () ->
                client.read(
                    server.address(), readRequest(key, VERSION, 1001, 10, token(404)).build()))
        .withMessage("read chunk 404:0: offset 1001 is past the end 1000");
    assertFails(
            Status.INVALID_ARGUMENT,
            () ->
                client.read(
                    server.address(),
                    readRequest(key, VERSION, 0, Integer.MAX_VALUE, token(404)).build()))
        .withMessageStartingWith(
            "ds-bad: read of 2147483647 bytes of chunk 404:0 exceeds the most one answer carries, ");
    // The wire's length is unsigned: 2^32 - 1 is refused by the same size check, not by accident.
    assertFails(
            Status.INVALID_ARGUMENT,
            () ->
                client.read(server.address(), readRequest(key, VERSION, 0, -1, token(404)).build()))
        .withMessageStartingWith(
            "ds-bad: read of 4294967295 bytes of chunk 404:0 exceeds the most one answer carries, ");
    assertUnchanged(key, data);
  }

  @Test
  void aReadOfANewerVersionThanTheReplicaIsStale() throws IOException {
    ChunkKey key = new ChunkKey(405, 0);
    replica(key, 1000);
    assertFails(
            Status.STALE_VERSION,
            () ->
                client.read(
                    server.address(), readRequest(key, VERSION + 1, 0, 10, token(405)).build()))
        .withMessage("ds-bad: read of chunk 405:0 wants version 5 but the replica is at 4");
  }

  @Test
  void finalizeTruncateAndChecksumOutsideTheReplicaAreRefused() throws IOException {
    ChunkKey key = new ChunkKey(406, 0);
    byte[] data = replica(key, 1000);
    ByteString t = token(406);
    assertFails(
            Status.OUT_OF_RANGE,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.FINALIZE_CHUNK,
                    FinalizeChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setLength(1001)
                        .setToken(t)
                        .build()))
        .withMessageContaining("length 1001 is past the end 1000");
    assertFails(
            Status.INVALID_ARGUMENT,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.TRUNCATE_CHUNK,
                    TruncateChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setNewVersion(VERSION - 1)
                        .setLength(10)
                        .setToken(t)
                        .build()))
        .withMessage("ds-bad: truncate of chunk 406:0 to an older version");
    assertFails(
            Status.INVALID_ARGUMENT,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.CHECKSUM_CHUNK,
                    ChecksumChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setPieceSize(1000)
                        .setToken(t)
                        .build()))
        .withMessage(
            "ds-bad: checksum piece size must be a positive multiple or divisor of 64 KiB: 1000");
    assertFails(
            Status.OUT_OF_RANGE,
            () ->
                client.call(
                    server.address(),
                    RpcMethod.CHECKSUM_CHUNK,
                    ChecksumChunkRequest.newBuilder()
                        .setChunk(key.toProto())
                        .setVersion(VERSION)
                        .setLength(1001)
                        .setPieceSize(65536)
                        .setToken(t)
                        .build()))
        .withMessage("piece CRCs chunk 406:0: length 1001 is past the end 1000");
    assertUnchanged(key, data);
    assertThat(server.replica(key).state())
        .isEqualTo(io.braidfs.proto.ReplicaState.REPLICA_STATE_WRITING);
  }
}
