package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.AccessRequest;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.common.token.TokenKeys;
import io.braidfs.common.token.TokenVerifier;
import io.braidfs.common.token.TokenVerifier.Outcome;
import io.braidfs.proto.AclEntryType;
import io.braidfs.proto.AclOp;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.FileType;
import io.braidfs.proto.GetAclRequest;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.OpenResponse;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.SetAclRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SigningKeys;
import io.braidfs.proto.StatFsRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MDS end to end over loopback RPC: a file's life, restart, deletion queue, leases. */
class MdsServerTest {
  @TempDir Path dir;

  private BraidConfig config() {
    return BraidConfig.fromMap(
        Map.of(
            "braid.mds.address", "127.0.0.1:0",
            "braid.mds.store.dir", dir.resolve("mds").toString(),
            "braid.mds.layout.replication", "2",
            "braid.mds.layout.stripe-width", "2"));
  }

  private static List<Integer> register(RpcClient c, InetSocketAddress at, int n)
      throws IOException {
    return register(c, at, n, List.of());
  }

  private static List<Integer> register(
      RpcClient c, InetSocketAddress at, int n, List<Integer> knownIds) throws IOException {
    List<Integer> ids = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      ids.add(
          c.callSync(
                  at,
                  RpcMethod.REGISTER_DATA_SERVER,
                  RegisterDataServerRequest.newBuilder()
                      .setServerId(knownIds.isEmpty() ? 0 : knownIds.get(i - 1))
                      .setHost("ds" + i + ".test")
                      .setPort(7500 + i)
                      .addDataDirs(
                          DataDir.newBuilder()
                              .setPath("/data" + i)
                              .setStorageId("s-" + i)
                              .setCapacityBytes(1L << 40))
                      .setCapacityBytes(1L << 40)
                      .build())
              .getServerId());
    }
    for (int id : ids) {
      // Placement passes over a server until its first heartbeat reports room.
      heartbeat(c, at, id);
    }
    return ids;
  }

  /** A heartbeat reporting 1 TiB free; its answer carries the server's commands. */
  private static HeartbeatResponse heartbeat(RpcClient c, InetSocketAddress at, int id)
      throws IOException {
    return c.callSync(
        at,
        RpcMethod.HEARTBEAT,
        HeartbeatRequest.newBuilder()
            .setServerId(id)
            .setCapacityBytes(1L << 40)
            .setAvailableBytes(1L << 40)
            .build());
  }

  @Test
  void fileLifeAcrossRestart() throws Exception {
    long inode;
    try (MdsServer mds = new MdsServer(config());
        RpcClient c = RpcClient.builder("test").user("root").build()) {
      mds.start();
      c.start();
      InetSocketAddress at = mds.address();
      List<Integer> servers = register(c, at, 3);
      c.callSync(
          at,
          RpcMethod.MKDIR,
          MkdirRequest.newBuilder().setPath("/a/b").setMode(0755).setParents(true).build());
      CreateResponse created =
          c.callSync(
              at,
              RpcMethod.CREATE,
              CreateRequest.newBuilder()
                  .setPath("/a/b/f")
                  .setMode(0644)
                  .setBlockSize((3L << 20) + 512)
                  .build());
      inode = created.getAttributes().getInodeId();
      // The block size asked is kept exactly, whatever span the layout's chunk sets have.
      assertThat(created.getAttributes().getBlockSize()).isEqualTo((3L << 20) + 512);
      assertThat(created.getFirstChunkSet().getChunksCount()).isEqualTo(2);
      assertThat(created.getFirstChunkSet().getChunks(0).getReplicasCount()).isEqualTo(2);
      assertThat(created.getToken().size()).isGreaterThan(0);
      // Signed as the answer leaves (off the mutation thread): valid for this client and file.
      assertThat(
              new TokenVerifier(mds.namespace().tokenKeys())
                  .verify(
                      created.getToken().toByteArray(),
                      System.currentTimeMillis(),
                      new AccessRequest(
                          ClientId.of(c.clientId()),
                          inode,
                          created.getAttributes().getGeneration(),
                          1,
                          CapabilityToken.WRITE,
                          1))
                  .isOk())
          .isTrue();
      assertThat(created.hasLease()).isTrue();
      c.callSync(
          at,
          RpcMethod.COMMIT,
          CommitRequest.newBuilder().setInodeId(inode).setPath("/a/b/f").setLength(10).build());
      c.callSync(
          at,
          RpcMethod.RENAME,
          RenameRequest.newBuilder().setSourcePath("/a/b/f").setDestinationPath("/a/g").build());
      assertThatThrownBy(
              () ->
                  c.callSync(
                      at,
                      RpcMethod.CREATE,
                      CreateRequest.newBuilder().setPath("/a/g").setMode(0644).build()))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.ALREADY_EXISTS));
      assertThat(mds.namespace().inodeCount()).isEqualTo(4);
      assertThat(servers).hasSize(3);
    }
    try (MdsServer mds = new MdsServer(config());
        RpcClient c = RpcClient.builder("test2").user("root").build()) {
      mds.start();
      c.start();
      InetSocketAddress at = mds.address();
      var attrs =
          c.callSync(at, RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath("/a/g").build())
              .getAttributes();
      assertThat(attrs.getInodeId()).isEqualTo(inode);
      assertThat(attrs.getSize()).isEqualTo(10);
      assertThat(attrs.getBlockSize()).isEqualTo((3L << 20) + 512);
      ReadDirResponse list =
          c.callSync(at, RpcMethod.READ_DIR, ReadDirRequest.newBuilder().setPath("/a").build());
      assertThat(list.getEntriesList()).extracting(e -> e.getName()).containsExactly("b", "g");
      assertThat(list.getEntries(0).getType()).isEqualTo(FileType.FILE_TYPE_DIRECTORY);
      // Until the holders register again, a reader is told to wait (BUSY, which clients retry)
      // rather than given replicas without an address.
      assertThatThrownBy(
              () ->
                  c.callSync(at, RpcMethod.OPEN, OpenRequest.newBuilder().setPath("/a/g").build()))
          .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.BUSY))
          .hasMessageContaining("have not registered with this MDS yet");
      assertThat(
              c.callSync(at, RpcMethod.STAT_FS, StatFsRequest.getDefaultInstance()).getInodeCount())
          .isEqualTo(4);
      // The data servers are unknown after the restart: told to register again.
      HeartbeatResponse hb =
          c.callSync(at, RpcMethod.HEARTBEAT, HeartbeatRequest.newBuilder().setServerId(1).build());
      assertThat(hb.getRegisterAgain()).isTrue();
      List<Integer> servers = register(c, at, 3);
      OpenResponse opened =
          c.callSync(at, RpcMethod.OPEN, OpenRequest.newBuilder().setPath("/a/g").build());
      assertThat(opened.getChunkSetsCount()).isEqualTo(1);
      c.callSync(
          at,
          RpcMethod.DELETE,
          DeleteRequest.newBuilder().setPath("/a").setRecursive(true).build());
      assertThat(mds.namespace().deletions().size()).isEqualTo(1);
      int told = 0;
      for (int id : servers) {
        told += heartbeat(c, at, id).getChunksToDeleteCount();
      }
      assertThat(told).isEqualTo(4);
      for (int id : servers) {
        heartbeat(c, at, id);
      }
      assertThat(mds.namespace().deletions().size()).isZero();
      assertThat(mds.namespace().inodeCount()).isEqualTo(1);
    }
  }

  @Test
  void queuedDeletionsSurviveARestart() throws Exception {
    List<Integer> servers;
    try (MdsServer mds = new MdsServer(config());
        RpcClient c = RpcClient.builder("test").user("root").build()) {
      mds.start();
      c.start();
      InetSocketAddress at = mds.address();
      servers = register(c, at, 3);
      long inode =
          c.callSync(
                  at,
                  RpcMethod.CREATE,
                  CreateRequest.newBuilder().setPath("/doomed").setMode(0644).build())
              .getAttributes()
              .getInodeId();
      c.callSync(at, RpcMethod.COMMIT, CommitRequest.newBuilder().setInodeId(inode).build());
      c.callSync(at, RpcMethod.DELETE, DeleteRequest.newBuilder().setPath("/doomed").build());
      assertThat(mds.namespace().deletions().size()).isEqualTo(1);
    }
    try (MdsServer mds = new MdsServer(config());
        RpcClient c = RpcClient.builder("test").user("root").build()) {
      mds.start();
      c.start();
      InetSocketAddress at = mds.address();
      assertThat(mds.namespace().deletions().size()).isEqualTo(1);
      assertThat(register(c, at, 3, servers)).isEqualTo(servers);
      // register() heartbeats once: that told every holder; the next heartbeats acknowledge.
      for (int id : servers) {
        heartbeat(c, at, id);
      }
      assertThat(mds.namespace().deletions().size()).isZero();
    }
  }

  @Test
  void tokenSigningKeysRotateAndSurviveARestart() throws Exception {
    AtomicLong skewMs = new AtomicLong();
    Clock clock =
        new Clock() {
          @Override
          public long nanoTime() {
            return System.nanoTime() + skewMs.get() * 1_000_000L;
          }

          @Override
          public long currentTimeMillis() {
            return System.currentTimeMillis() + skewMs.get();
          }
        };
    Map<String, String> settings = new HashMap<>();
    settings.put("braid.mds.address", "127.0.0.1:0");
    settings.put("braid.mds.store.dir", dir.resolve("mds").toString());
    settings.put("braid.mds.layout.replication", "1");
    settings.put("braid.mds.layout.stripe-width", "1");
    settings.put("braid.mds.token-lifetime", "10s");
    settings.put("braid.mds.token-key-interval", "10s");
    SigningKeys afterTwo;
    try (MdsServer mds = new MdsServer(BraidConfig.fromMap(settings), clock);
        RpcClient c = RpcClient.builder("test").user("root").build()) {
      mds.start();
      c.start();
      InetSocketAddress at = mds.address();
      int server = register(c, at, 1).get(0);
      // A new namespace publishes its next key from the start.
      SigningKeys first = heartbeat(c, at, server).getSigningKeys();
      assertThat(first.getCurrent().getKeyId()).isEqualTo(1);
      assertThat(first.getNext().getKeyId()).isEqualTo(2);
      assertThat(first.hasPrevious()).isFalse();
      long issuedMs = clock.currentTimeMillis();
      CreateResponse created =
          c.callSync(
              at, RpcMethod.CREATE, CreateRequest.newBuilder().setPath("/f").setMode(0644).build());
      AccessRequest write =
          new AccessRequest(
              ClientId.of(c.clientId()),
              created.getAttributes().getInodeId(),
              created.getAttributes().getGeneration(),
              0,
              CapabilityToken.WRITE,
              1);
      byte[] token = created.getToken().toByteArray();
      c.callSync(
          at,
          RpcMethod.COMMIT,
          CommitRequest.newBuilder().setInodeId(write.fileId()).setPath("/f").build());

      skewMs.addAndGet(11_000);
      SigningKeys second = awaitCurrentKey(mds, 2);
      // The old current key is kept as previous: tokens it signed still verify until they expire.
      assertThat(second.getPrevious().getKeyId()).isEqualTo(1);
      assertThat(second.getNext().getKeyId()).isEqualTo(3);
      assertThat(second.getPrevious().getSecret()).isEqualTo(first.getCurrent().getSecret());
      assertThat(second.getCurrent().getSecret()).isEqualTo(first.getNext().getSecret());
      assertThat(verify(second, token, issuedMs, write)).isEqualTo(Outcome.OK);
      assertThat(heartbeat(c, at, server).getSigningKeys()).isEqualTo(second);
      // New tokens are signed with the new current key.
      byte[] opened =
          c.callSync(at, RpcMethod.OPEN, OpenRequest.newBuilder().setPath("/f").build())
              .getToken()
              .toByteArray();
      TokenVerifier.Result read =
          new TokenVerifier(TokenKeys.fromProto(second))
              .verify(
                  opened,
                  clock.currentTimeMillis(),
                  new AccessRequest(
                      write.clientId(),
                      write.fileId(),
                      write.fileGeneration(),
                      0,
                      CapabilityToken.READ,
                      1));
      assertThat(read.outcome()).isEqualTo(Outcome.OK);
      CapabilityToken fresh = read.token();
      assertThat(fresh).isNotNull();
      assertThat(fresh.keyId()).isEqualTo(2);

      skewMs.addAndGet(11_000);
      afterTwo = awaitCurrentKey(mds, 3);
      // Two rotations on, the first key is gone: its tokens are refused whatever their times.
      assertThat(verify(afterTwo, token, issuedMs, write)).isEqualTo(Outcome.UNKNOWN_KEY);
    }
    try (MdsServer mds = new MdsServer(BraidConfig.fromMap(settings), clock)) {
      mds.start();
      assertThat(mds.namespace().signingKeys()).isEqualTo(afterTwo);
    }
  }

  @Test
  void anAclSetByANonMemberOfTheGroupClearsSetgid() throws Exception {
    try (MdsServer mds = new MdsServer(config());
        RpcClient root = RpcClient.builder("root").user("root").build();
        RpcClient alice =
            RpcClient.builder("alice").user("alice").groups(List.of("alice")).build()) {
      mds.start();
      root.start();
      alice.start();
      InetSocketAddress at = mds.address();
      root.callSync(
          at, RpcMethod.MKDIR, MkdirRequest.newBuilder().setPath("/d").setMode(02750).build());
      root.callSync(
          at,
          RpcMethod.SET_ATTR,
          SetAttrRequest.newBuilder().setPath("/d").setUser("alice").setGroup("staff").build());
      SetAclRequest grant =
          SetAclRequest.newBuilder()
              .setPath("/d")
              .setOp(AclOp.ACL_OP_MODIFY)
              .addEntries(
                  io.braidfs.proto.AclEntry.newBuilder()
                      .setType(AclEntryType.ACL_ENTRY_TYPE_USER)
                      .setName("bob")
                      .setPermission(5))
              .build();
      // Alice owns /d but is not in its group: her ACL change clears setgid, as on Linux.
      int mode = alice.callSync(at, RpcMethod.SET_ACL, grant).getAttributes().getMode();
      assertThat(mode).isEqualTo(0750);
      assertThat(
              alice
                  .callSync(at, RpcMethod.GET_ACL, GetAclRequest.newBuilder().setPath("/d").build())
                  .getEntriesList())
          .extracting(e -> e.getName())
          .contains("bob");
      // root may, and keeps it.
      root.callSync(
          at, RpcMethod.SET_ATTR, SetAttrRequest.newBuilder().setPath("/d").setMode(02750).build());
      assertThat(root.callSync(at, RpcMethod.SET_ACL, grant).getAttributes().getMode())
          .isEqualTo(02750);
    }
  }

  /**
   * Waits for the MDS's own housekeeping (its scheduled thread, every half heartbeat interval) to
   * rotate to {@code keyId}: the rotation is the server's act, not the test's, so the test polls
   * with a deadline (fs-testing's Await is not available here: fs-testing depends on fs-mds).
   */
  private static SigningKeys awaitCurrentKey(MdsServer mds, int keyId) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    SigningKeys keys = mds.namespace().signingKeys();
    while (keys.getCurrent().getKeyId() != keyId && System.nanoTime() < deadline) {
      Thread.sleep(50);
      keys = mds.namespace().signingKeys();
    }
    assertThat(keys.getCurrent().getKeyId()).as("the current key id").isEqualTo(keyId);
    return keys;
  }

  private static Outcome verify(SigningKeys keys, byte[] token, long atMs, AccessRequest request) {
    return new TokenVerifier(TokenKeys.fromProto(keys)).verify(token, atMs, request).outcome();
  }
}
