package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.assertFails;
import static io.braidfs.dataserver.DataClient.blockCrcs;
import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.readRequest;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.DataClient.Read;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.CopyChunkResponse;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copy path over loopback RPC: CopyChunk makes a replica on one data server by reading it from
 * others, as the MDS asks when it raises a file's replication (a WRITE token for the target, a READ
 * token for the sources). The copy's bytes and CRCs are the source's; a copy that cannot be made
 * leaves nothing behind.
 */
class CopyPathTest {
  private static final long VERSION = 9;
  private static final long GENERATION = 1;

  @TempDir static Path dir;
  static TokenMint mint = new TokenMint(TokenMint.KEY_ID, 3);
  static LoopbackDataServer source;
  static LoopbackDataServer target;
  static LoopbackDataServer empty;
  static DataClient client;

  @BeforeAll
  static void start() throws IOException {
    source = LoopbackDataServer.start("ds-src", 1, Files.createDirectory(dir.resolve("s")), mint);
    target = LoopbackDataServer.start("ds-dst", 2, Files.createDirectory(dir.resolve("t")), mint);
    empty = LoopbackDataServer.start("ds-empty", 3, Files.createDirectory(dir.resolve("e")), mint);
    client = new DataClient("test-mds", new ClientId(31, 32));
  }

  @AfterAll
  static void stop() {
    client.close();
    source.close();
    target.close();
    empty.close();
  }

  private static ByteString token(long file, int modes) {
    return mint.sign(mint.token(client.id(), file, GENERATION).modes(modes));
  }

  /** A finalized replica of {@code key} on the source server, written in 1 MiB requests. */
  private static byte[] onSource(ChunkKey key, int length) throws IOException {
    byte[] data = randomBytes((int) key.inodeId(), length);
    ByteString token = token(key.inodeId(), CapabilityToken.WRITE);
    for (int off = 0; off < length; off += 1 << 20) {
      byte[] piece = java.util.Arrays.copyOfRange(data, off, Math.min(length, off + (1 << 20)));
      client.write(source.address(), writeRequest(key, VERSION, off, piece, token).build(), piece);
    }
    client.call(
        source.address(),
        RpcMethod.FINALIZE_CHUNK,
        FinalizeChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(length)
            .setToken(token)
            .build());
    return data;
  }

  private static CopyChunkRequest.Builder copy(ChunkKey key, long length, ReplicaLocation... from) {
    return CopyChunkRequest.newBuilder()
        .setChunk(key.toProto())
        .setVersion(VERSION)
        .setLength(length)
        .addAllSources(List.of(from))
        .setSourceToken(token(key.inodeId(), CapabilityToken.READ))
        .setFinalize(true)
        .setToken(token(key.inodeId(), CapabilityToken.WRITE));
  }

  @Test
  void aCopyHoldsTheSourcesBytesAndCrcs() throws IOException {
    ChunkKey key = new ChunkKey(300, 2);
    // More than one 4 MiB piece of the copy, and a short last block.
    int length = CopyPath.PIECE + (1 << 20) + 12_345;
    byte[] data = onSource(key, length);

    CopyChunkResponse done =
        client.call(
            target.address(), RpcMethod.COPY_CHUNK, copy(key, length, source.location()).build());
    assertThat(done.getLength()).isEqualTo(length);

    Replica r = target.replica(key);
    assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
    assertThat(r.version()).isEqualTo(VERSION);
    assertThat(r.generation()).isEqualTo(GENERATION);
    assertThat(r.length()).isEqualTo(length);
    assertThat(Files.readAllBytes(r.dataFile())).isEqualTo(data);
    Read back =
        client.read(
            target.address(),
            readRequest(key, VERSION, 0, length, token(300, CapabilityToken.READ)).build());
    assertThat(back.bytes()).isEqualTo(data);
    assertThat(back.message().getChecksumsList()).isEqualTo(blockCrcs(data, 0, length));
  }

  @Test
  void aSourceWithoutTheReplicaIsSkippedForTheNext() throws IOException {
    ChunkKey key = new ChunkKey(301, 0);
    byte[] data = onSource(key, 200_000);
    client.call(
        target.address(),
        RpcMethod.COPY_CHUNK,
        copy(key, data.length, empty.location(), source.location()).build());
    assertThat(Files.readAllBytes(target.replica(key).dataFile())).isEqualTo(data);
  }

  @Test
  void aRetriedCopyThatAlreadyCompletedAnswersAtOnce() throws IOException {
    ChunkKey key = new ChunkKey(302, 0);
    byte[] data = onSource(key, 70_000);
    CopyChunkRequest request = copy(key, data.length, source.location()).build();
    client.call(target.address(), RpcMethod.COPY_CHUNK, request);
    // Now no source could serve it; the replica already there answers.
    CopyChunkResponse again =
        client.call(
            target.address(),
            RpcMethod.COPY_CHUNK,
            request.toBuilder().clearSources().addSources(empty.location()).build());
    assertThat(again.getLength()).isEqualTo(data.length);
    assertThat(Files.readAllBytes(target.replica(key).dataFile())).isEqualTo(data);
  }

  @Test
  void aCopyNoSourceCanServeFailsAndLeavesNothing() {
    ChunkKey key = new ChunkKey(303, 0);
    assertFails(
            Status.NOT_FOUND,
            () ->
                client.call(
                    target.address(),
                    RpcMethod.COPY_CHUNK,
                    copy(key, 1000, empty.location()).build()))
        .withMessage("ds-empty: no replica of chunk 303:0 here");
    assertThat(target.replica(key)).isNull();
  }

  @Test
  void aCopyOfMoreThanTheSourceHoldsFailsAndLeavesNothing() throws IOException {
    ChunkKey key = new ChunkKey(304, 0);
    byte[] data = onSource(key, 100_000);
    assertFails(
            Status.OUT_OF_RANGE,
            () ->
                client.call(
                    target.address(),
                    RpcMethod.COPY_CHUNK,
                    copy(key, data.length + 1, source.location()).build()))
        .withMessage("source holds 100000 bytes");
    assertThat(target.replica(key)).isNull();
  }

  @Test
  void aCopyNamingNoSourceIsRefused() {
    ChunkKey key = new ChunkKey(305, 0);
    assertFails(
            Status.INVALID_ARGUMENT,
            () -> client.call(target.address(), RpcMethod.COPY_CHUNK, copy(key, 1000).build()))
        .withMessage("ds-dst: copy of chunk 305:0 names no source");
    assertThat(target.replica(key)).isNull();
  }

  @Test
  void aCopyNeedsAWriteTokenForTheTargetAndAReadTokenForTheSource() throws IOException {
    ChunkKey key = new ChunkKey(306, 0);
    byte[] data = onSource(key, 1000);
    assertFails(
            Status.INVALID_TOKEN,
            () ->
                client.call(
                    target.address(),
                    RpcMethod.COPY_CHUNK,
                    copy(key, data.length, source.location())
                        .setToken(token(306, CapabilityToken.READ))
                        .build()))
        .withMessageStartingWith("ds-dst: token refused for chunk 306:0 (MODE_DENIED) from ");
    assertThat(target.replica(key)).isNull();

    // The source checks the token the target reads with.
    assertFails(
            Status.INVALID_TOKEN,
            () ->
                client.call(
                    target.address(),
                    RpcMethod.COPY_CHUNK,
                    copy(key, data.length, source.location())
                        .setSourceToken(token(306, CapabilityToken.WRITE))
                        .build()))
        .withMessageStartingWith("ds-src: token refused for chunk 306:0 (MODE_DENIED) from ");
    assertThat(target.replica(key)).isNull();
  }

  @Test
  void aCopyOverANewerReplicaIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(307, 0);
    byte[] data = onSource(key, 1000);
    byte[] newer = randomBytes(7, 500);
    client.write(
        target.address(),
        writeRequest(key, VERSION + 1, 0, newer, token(307, CapabilityToken.WRITE)).build(),
        newer);
    assertFails(
            Status.STALE_VERSION,
            () ->
                client.call(
                    target.address(),
                    RpcMethod.COPY_CHUNK,
                    copy(key, data.length, source.location()).build()))
        .withMessage("ds-dst: copy of chunk 307:0 names version 9 but the replica is at 10");
    assertThat(Files.readAllBytes(target.replica(key).dataFile())).isEqualTo(newer);
  }
}
