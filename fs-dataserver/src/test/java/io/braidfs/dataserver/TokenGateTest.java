package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.assertFails;
import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.readRequest;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.GetChunkInfoRequest;
import io.braidfs.proto.ReplicaState;
import io.braidfs.proto.SyncChunkRequest;
import io.braidfs.proto.TruncateChunkRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The token gate of a real data server, over loopback RPC: a request passes only with a token the
 * MDS's key signed for this client, this file and generation, this chunk and this mode, valid now.
 * Each refusal is INVALID_TOKEN naming the chunk and the reason, and changes nothing.
 */
class TokenGateTest {
  private static final long VERSION = 3;
  private static final long GENERATION = 4;
  private static final long MINUTE = 60_000;

  @TempDir static Path dir;
  static TokenMint mint = new TokenMint(TokenMint.KEY_ID, 1);
  static LoopbackDataServer server;
  static DataClient client;

  @BeforeAll
  static void start() throws IOException {
    server = LoopbackDataServer.start("ds-gate", 1, Files.createDirectory(dir.resolve("ds")), mint);
    client = new DataClient("test-client", new ClientId(21, 22));
  }

  @AfterAll
  static void stop() {
    client.close();
    server.close();
  }

  /** A token for the test's client on file {@code file} at the test's generation. */
  private static CapabilityToken.Builder token(long file) {
    return mint.token(client.id(), file, GENERATION);
  }

  /** Writes 100 bytes to a new replica of {@code key} with {@code token}. */
  private static void write(ChunkKey key, ByteString token) throws IOException {
    byte[] data = randomBytes(1, 100);
    client.write(server.address(), writeRequest(key, VERSION, 0, data, token).build(), data);
  }

  private static DataClient.Read read(ChunkKey key, ByteString token) throws IOException {
    return client.read(server.address(), readRequest(key, VERSION, 0, 100, token).build());
  }

  /** Asserts that a write of a new replica with {@code token} is refused for {@code reason}. */
  private static void assertWriteRefused(ChunkKey key, ByteString token, String reason) {
    assertFails(Status.INVALID_TOKEN, () -> write(key, token))
        .withMessageStartingWith(refusal(key, reason));
    assertThat(server.replica(key)).isNull();
  }

  private static void assertReadRefused(ChunkKey key, ByteString token, String reason) {
    assertFails(Status.INVALID_TOKEN, () -> read(key, token))
        .withMessageStartingWith(refusal(key, reason));
  }

  private static String refusal(ChunkKey key, String reason) {
    return "ds-gate: token refused for chunk " + key + " (" + reason + ") from ";
  }

  @Test
  void theTokenTheMdsWouldIssueIsAccepted() throws IOException {
    ChunkKey key = new ChunkKey(200, 0);
    write(key, mint.sign(token(200)));
    assertThat(read(key, mint.sign(token(200))).bytes()).isEqualTo(randomBytes(1, 100));
    assertThat(server.replica(key).generation()).isEqualTo(GENERATION);
  }

  @Test
  void aMissingTokenIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(201, 0);
    assertWriteRefused(key, ByteString.EMPTY, "MALFORMED");
    write(key, mint.sign(token(201)));
    assertReadRefused(key, ByteString.EMPTY, "MALFORMED");
  }

  @Test
  void anExpiredOrNotYetValidTokenIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(202, 0);
    long now = System.currentTimeMillis();
    // Beyond the 30 s of clock skew the server tolerates, on either side.
    ByteString expired = mint.sign(token(202).validity(now - 20 * MINUTE, now - 10 * MINUTE));
    ByteString early = mint.sign(token(202).validity(now + 10 * MINUTE, now + 20 * MINUTE));
    assertWriteRefused(key, expired, "EXPIRED");
    assertWriteRefused(key, early, "NOT_YET_VALID");
    write(key, mint.sign(token(202)));
    assertReadRefused(key, expired, "EXPIRED");
    assertReadRefused(key, early, "NOT_YET_VALID");
  }

  @Test
  void aTokenForAnotherChunkOrFileIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(203, 7);
    ByteString otherChunks = mint.sign(token(203).chunks(0, 6));
    ByteString otherFile = mint.sign(token(204));
    assertWriteRefused(key, otherChunks, "CHUNK_OUT_OF_RANGE");
    assertWriteRefused(key, otherFile, "WRONG_FILE");
    write(key, mint.sign(token(203).chunks(7, 7)));
    assertReadRefused(key, otherChunks, "CHUNK_OUT_OF_RANGE");
    assertReadRefused(key, otherFile, "WRONG_FILE");
  }

  @Test
  void aTokenIssuedToAnotherClientIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(205, 0);
    ByteString someoneElses = mint.sign(mint.token(new ClientId(21, 23), 205, GENERATION));
    assertWriteRefused(key, someoneElses, "WRONG_CLIENT");
    write(key, mint.sign(token(205)));
    assertReadRefused(key, someoneElses, "WRONG_CLIENT");
  }

  @Test
  void aDataServerForwardingAChainMayPresentItsClientsToken() throws IOException {
    // A hop of a write chain sends the client's token on; the gate checks it against the token's
    // own client when the caller's Hello names a data server.
    ChunkKey key = new ChunkKey(206, 0);
    ByteString clients = mint.sign(token(206));
    try (DataClient peer = new DataClient(TokenGate.PEER_PREFIX + "other", new ClientId(9, 9))) {
      byte[] data = randomBytes(2, 100);
      peer.write(server.address(), writeRequest(key, VERSION, 0, data, clients).build(), data);
      assertThat(
              peer.read(server.address(), readRequest(key, VERSION, 0, 100, clients).build())
                  .bytes())
          .isEqualTo(data);
    }
    try (DataClient stranger = new DataClient("other", new ClientId(9, 9))) {
      assertFails(
              Status.INVALID_TOKEN,
              () ->
                  stranger.read(
                      server.address(), readRequest(key, VERSION, 0, 100, clients).build()))
          .withMessageStartingWith(refusal(key, "WRONG_CLIENT"));
    }
  }

  @Test
  void aReadTokenCannotWriteNorAWriteTokenRead() throws IOException {
    ChunkKey key = new ChunkKey(207, 0);
    ByteString readOnly = mint.sign(token(207).modes(CapabilityToken.READ));
    ByteString writeOnly = mint.sign(token(207).modes(CapabilityToken.WRITE));
    assertWriteRefused(key, readOnly, "MODE_DENIED");
    write(key, writeOnly);
    assertReadRefused(key, writeOnly, "MODE_DENIED");
    // And the replica is as the permitted write left it.
    byte[] other = randomBytes(3, 100);
    assertFails(
            Status.INVALID_TOKEN,
            () ->
                client.write(
                    server.address(),
                    writeRequest(key, VERSION, 0, other, readOnly).build(),
                    other))
        .withMessageStartingWith(refusal(key, "MODE_DENIED"));
    assertThat(read(key, readOnly).bytes()).isEqualTo(randomBytes(1, 100));
  }

  @Test
  void eachOperationAsksForItsMode() throws IOException {
    ChunkKey key = new ChunkKey(212, 0);
    write(key, mint.sign(token(212)));
    ByteString readOnly = mint.sign(token(212).modes(CapabilityToken.READ));
    ByteString writeOnly = mint.sign(token(212).modes(CapabilityToken.WRITE));
    SyncChunkRequest sync =
        SyncChunkRequest.newBuilder().setChunk(key.toProto()).setVersion(VERSION).build();
    GetChunkInfoRequest info = GetChunkInfoRequest.newBuilder().setChunk(key.toProto()).build();
    TruncateChunkRequest truncate =
        TruncateChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setNewVersion(VERSION + 1)
            .setLength(50)
            .build();
    FinalizeChunkRequest finalize =
        FinalizeChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(100)
            .build();

    assertFails(Status.INVALID_TOKEN, () -> call(RpcMethod.GET_CHUNK_INFO, info, writeOnly))
        .withMessageStartingWith(refusal(key, "MODE_DENIED"));
    // A replica being written is forced only by a writer; a finished one by a reader too.
    assertFails(Status.INVALID_TOKEN, () -> call(RpcMethod.SYNC_CHUNK, sync, readOnly))
        .withMessageStartingWith(refusal(key, "MODE_DENIED"));
    assertFails(Status.INVALID_TOKEN, () -> call(RpcMethod.TRUNCATE_CHUNK, truncate, readOnly))
        .withMessageStartingWith(refusal(key, "MODE_DENIED"));
    assertFails(Status.INVALID_TOKEN, () -> call(RpcMethod.FINALIZE_CHUNK, finalize, readOnly))
        .withMessageStartingWith(refusal(key, "MODE_DENIED"));
    assertThat(server.replica(key).state()).isEqualTo(ReplicaState.REPLICA_STATE_WRITING);
    assertThat(server.replica(key).version()).isEqualTo(VERSION);

    call(RpcMethod.FINALIZE_CHUNK, finalize, writeOnly);
    assertThat(call(RpcMethod.SYNC_CHUNK, sync, readOnly).getSyncedLength()).isEqualTo(100);
    assertThat(call(RpcMethod.GET_CHUNK_INFO, info, readOnly).getState())
        .isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
  }

  /** {@code request} with {@code token} set, to the test's server. */
  private static <Q extends Message, R extends Message> R call(
      RpcMethod<Q, R> method, Q request, ByteString token) throws IOException {
    Message.Builder b = request.toBuilder();
    b.setField(b.getDescriptorForType().findFieldByName("token"), token);
    @SuppressWarnings("unchecked")
    Q withToken = (Q) b.build();
    return client.call(server.address(), method, withToken);
  }

  @Test
  void aTokenOfAnOlderGenerationIsRefusedAndANewerOneRaisesTheReplicas() throws IOException {
    ChunkKey key = new ChunkKey(208, 0);
    write(key, mint.sign(token(208)));
    ByteString older = mint.sign(mint.token(client.id(), 208, GENERATION - 1));
    assertReadRefused(key, older, "WRONG_FILE");
    byte[] other = randomBytes(6, 100);
    assertFails(
            Status.INVALID_TOKEN,
            () ->
                client.write(
                    server.address(), writeRequest(key, VERSION, 0, other, older).build(), other))
        .withMessageStartingWith(refusal(key, "WRONG_FILE"));

    // A newer generation was issued after a truncate or replacement the replica already went
    // through: accepted, and a write under it moves the replica to it.
    ByteString newer = mint.sign(mint.token(client.id(), 208, GENERATION + 1));
    assertThat(read(key, newer).bytes()).isEqualTo(randomBytes(1, 100));
    assertThat(server.replica(key).generation()).isEqualTo(GENERATION);
    write(key, newer);
    assertThat(server.replica(key).generation()).isEqualTo(GENERATION + 1);
    assertReadRefused(key, mint.sign(token(208)), "WRONG_FILE");
  }

  @Test
  void aTokenWithABadSignatureIsRefused() throws IOException {
    ChunkKey key = new ChunkKey(209, 0);
    byte[] tampered = mint.sign(token(209)).toByteArray();
    tampered[tampered.length - 1] ^= 1; // the last byte of the MAC
    // A read-write token's body under the MAC of a read-only one: an attempt to widen it.
    byte[] widened = mint.sign(token(209)).toByteArray();
    byte[] readOnly = mint.sign(token(209).modes(CapabilityToken.READ)).toByteArray();
    System.arraycopy(
        readOnly,
        CapabilityToken.BODY_LENGTH,
        widened,
        CapabilityToken.BODY_LENGTH,
        CapabilityToken.TAG_LENGTH);
    ByteString forged = new TokenMint(TokenMint.KEY_ID, 2).sign(token(209));
    TokenMint retired = new TokenMint(TokenMint.KEY_ID + 1, 1);
    ByteString unknownKey = retired.sign(retired.token(client.id(), 209, GENERATION));

    assertWriteRefused(key, ByteString.copyFrom(tampered), "BAD_MAC");
    assertWriteRefused(key, ByteString.copyFrom(widened), "BAD_MAC");
    assertWriteRefused(key, forged, "BAD_MAC");
    assertWriteRefused(key, unknownKey, "UNKNOWN_KEY");
    write(key, mint.sign(token(209)));
    assertReadRefused(key, ByteString.copyFrom(tampered), "BAD_MAC");
    assertReadRefused(key, forged, "BAD_MAC");
    assertReadRefused(key, unknownKey, "UNKNOWN_KEY");
  }

  @Test
  void aTokenOfADeposedMdsLeaderIsRefused(@TempDir Path own) throws IOException {
    // A server of its own: the epoch it has seen only ever rises.
    try (LoopbackDataServer s = LoopbackDataServer.start("ds-epoch", 1, own, mint)) {
      s.store().raiseEpoch(TokenMint.EPOCH + 1);
      ChunkKey key = new ChunkKey(210, 0);
      byte[] data = randomBytes(4, 100);
      assertFails(
              Status.INVALID_TOKEN,
              () ->
                  client.write(
                      s.address(),
                      writeRequest(key, VERSION, 0, data, mint.sign(token(210))).build(),
                      data))
          .withMessageStartingWith(
              "ds-epoch: token refused for chunk " + key + " (STALE_EPOCH) from ");
      assertThat(s.replica(key)).isNull();
      client.write(
          s.address(),
          writeRequest(key, VERSION, 0, data, mint.sign(token(210).mdsEpoch(TokenMint.EPOCH + 1)))
              .build(),
          data);
      assertThat(s.replica(key).length()).isEqualTo(100);
    }
  }

  @Test
  void beforeTheMdsSentItsKeysNoTokenIsChecked(@TempDir Path own) throws IOException {
    try (LoopbackDataServer s = LoopbackDataServer.startWithoutKeys("ds-new", 1, own)) {
      ChunkKey key = new ChunkKey(211, 0);
      byte[] data = randomBytes(5, 100);
      assertFails(
              Status.UNAVAILABLE,
              () ->
                  client.write(
                      s.address(),
                      writeRequest(key, VERSION, 0, data, mint.sign(token(211))).build(),
                      data))
          .withMessage("ds-new: not registered with the MDS yet; no token can be checked");
      assertThat(s.replica(key)).isNull();
    }
  }
}
