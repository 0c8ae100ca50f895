package io.braidfs.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.DelegationToken;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HelloCredentials;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.dataserver.DataServer;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.testing.MiniCluster;
import io.braidfs.testing.TestKdc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole cluster (an MDS, three data servers) with Kerberos against a real KDC (issue 28): the
 * data servers register with their service principal, users reach the MDS and the data servers with
 * their own tickets, and nobody without a ticket, or with a user's ticket where a server's is
 * needed, gets anything.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KerberosClusterTest {
  @TempDir static Path dir;

  private TestKdc kdc;
  private MiniCluster cluster;
  private final Map<String, String> keytabs = new HashMap<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    kdc = TestKdc.start(dir.resolve("kdc"));
    MiniCluster.Builder b = MiniCluster.builder(dir.resolve("cluster")).dataServers(3);
    kdc.clusterSettings().forEach(b::config);
    for (String user : List.of("alice", "bob", "root", "braid/elsewhere")) {
      keytabs.put(user, kdc.keytab(user));
    }
    cluster = b.config(SecurityConfigKeys.GROUPS.name(), "alice=staff;bob=staff").build();
    cluster.start(); // returns once every data server registered, with its service ticket
  }

  @AfterAll
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    cluster.close();
    kdc.close();
  }

  private Map<String, String> as(String user) {
    return Map.of(
        SecurityConfigKeys.AUTHENTICATION.name(),
        "KERBEROS",
        SecurityConfigKeys.KERBEROS_KRB5_CONF.name(),
        kdc.krb5Conf(),
        SecurityConfigKeys.KERBEROS_PRINCIPAL.name(),
        user + "@" + TestKdc.REALM,
        SecurityConfigKeys.KERBEROS_KEYTAB.name(),
        keytabs.get(user),
        SecurityConfigKeys.KERBEROS_SERVER_PRINCIPAL.name(),
        "braid/localhost");
  }

  private HelloCredentials credentials(String user) throws IOException {
    return Security.clientCredentials(BraidConfig.fromMap(as(user)), "localhost");
  }

  @Test
  void usersWorkWithTheirOwnFilesThroughTheMdsAndTheDataServers() throws IOException {
    BraidClient root = cluster.newBraidClient("root", as("root"));
    root.mkdirs("/home/alice", 0755);
    root.setOwner("/home/alice", "alice", "staff");

    BraidClient alice = cluster.newBraidClient("alice", as("alice"));
    byte[] data = "written with a Kerberos ticket".getBytes(StandardCharsets.UTF_8);
    try (BraidOutputStream out = alice.create("/home/alice/f")) {
      out.write(data);
    }
    try (BraidInputStream in = alice.open("/home/alice/f")) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    assertThat(alice.stat("/home/alice/f").user()).isEqualTo("alice");

    // Bob is authenticated too, and the permission checks hold against him.
    BraidClient bob = cluster.newBraidClient("bob", as("bob"));
    assertThatThrownBy(() -> bob.create("/home/alice/g").close())
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
  }

  @Test
  void aCapabilityTokenWorksOnlyForThePrincipalItWasIssuedTo() throws IOException {
    BraidClient root = cluster.newBraidClient("root", as("root"));
    root.mkdirs("/tokens", 0777);
    root.setPermission("/tokens", 0777); // past the umask
    BraidClient alice = cluster.newBraidClient("alice", as("alice"));
    byte[] data = new byte[4096];
    new java.util.Random(5).nextBytes(data);
    try (BraidOutputStream out = alice.create("/tokens/private")) {
      out.write(data);
    }
    alice.setPermission("/tokens/private", 0600);

    // Alice's token for her file, taken by a client whose client id bob then claims too.
    byte[] clientId = new byte[16];
    new java.util.Random(6).nextBytes(clientId);
    RpcClient aliceRaw =
        RpcClient.builder("alice-raw")
            .user("alice")
            .clientId(clientId)
            .credentials(credentials("alice"))
            .build();
    closeables.add(aliceRaw);
    aliceRaw.start();
    GetChunkLocationsResponse where =
        aliceRaw.callSync(
            cluster.mdsAddress(),
            RpcMethod.GET_CHUNK_LOCATIONS,
            GetChunkLocationsRequest.newBuilder()
                .setPath("/tokens/private")
                .setLength(data.length)
                .build());
    ChunkLocation chunk = where.getChunkSets(0).getChunks(0);
    ReplicaLocation replica = chunk.getReplicas(0);
    InetSocketAddress ds = new InetSocketAddress(replica.getHost(), replica.getPort());
    ReadChunkRequest read =
        ReadChunkRequest.newBuilder()
            .setChunk(chunk.getId())
            .setVersion(chunk.getVersion())
            .setLength(data.length)
            .setToken(where.getToken())
            .build();
    aliceRaw.callSync(ds, RpcMethod.READ_CHUNK, read); // hers: it works

    // Bob, with the same client id, the token, and a client name of a data server: refused.
    RpcClient thief =
        RpcClient.builder("braid-ds-thief")
            .user("bob")
            .clientId(clientId)
            .credentials(credentials("bob"))
            .build();
    closeables.add(thief);
    thief.start();
    assertThatThrownBy(() -> thief.callSync(ds, RpcMethod.READ_CHUNK, read))
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.INVALID_TOKEN))
        .hasMessageContaining("WRONG_CLIENT");
  }

  @Test
  void anotherServersCredentialsCannotTakeOverADataServersId() throws IOException {
    // A service principal (user braid), but not the one data server 1 registered with.
    RpcClient other =
        RpcClient.builder("braid-ds-other")
            .user("braid")
            .credentials(credentials("braid/elsewhere"))
            .build();
    closeables.add(other);
    other.start();
    int victim = cluster.runningDataServers().get(0).serverId();
    assertThatThrownBy(
            () ->
                other.callSync(
                    cluster.mdsAddress(),
                    RpcMethod.HEARTBEAT,
                    HeartbeatRequest.newBuilder().setServerId(victim).build()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("registered as braid/localhost@" + TestKdc.REALM);
    assertThatThrownBy(
            () ->
                other.callSync(
                    cluster.mdsAddress(),
                    RpcMethod.REGISTER_DATA_SERVER,
                    RegisterDataServerRequest.newBuilder()
                        .setServerId(victim)
                        .setHost("127.0.0.1")
                        .setPort(1)
                        .build()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
  }

  @Test
  void theMdsCopiesReplicasBetweenDataServersWithItsOwnTicket() throws Exception {
    // Raising the replication makes the MDS command copies: its call to the target data server
    // and the target's read from the source are both Kerberos connections between servers.
    BraidClient root = cluster.newBraidClient("root", as("root"));
    root.mkdirs("/copies", 0755);
    byte[] data = new byte[1 << 20];
    new java.util.Random(8).nextBytes(data);
    try (BraidOutputStream out = root.create("/copies/f")) {
      out.write(data);
    }
    root.setReplication("/copies/f", 1);
    awaitReplicas(root, "/copies/f", 1);
    root.setReplication("/copies/f", 3);
    awaitReplicas(root, "/copies/f", 3);
    try (BraidInputStream in = root.open("/copies/f")) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  private static void awaitReplicas(BraidClient c, String path, int n) {
    io.braidfs.testing.Await.until(
        n + " replicas of " + path,
        java.time.Duration.ofSeconds(60),
        () -> {
          try {
            return c.locations(path, 0, 1).chunkSets().get(0).chunks().get(0).replicas().size()
                == n;
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  @Test
  void aliceCannotClaimToBeBobOrRoot() {
    for (String other : List.of("bob", "root")) {
      assertThatThrownBy(() -> cluster.newBraidClient(other, as("alice")).stat("/"))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
          .hasMessageContaining("may not act as " + other);
    }
  }

  @Test
  void aClientWithoutATicketIsRefusedByTheMdsAndByEveryDataServer() {
    RpcClient plain = RpcClient.builder("plain").user("root").build();
    closeables.add(plain);
    plain.start();
    List<InetSocketAddress> servers = new ArrayList<>();
    servers.add(cluster.mdsAddress());
    for (DataServer d : cluster.runningDataServers()) {
      servers.add(d.address());
    }
    assertThat(servers).hasSize(4);
    for (InetSocketAddress server : servers) {
      assertThatThrownBy(
              () -> plain.callSync(server, RpcMethod.PING, PingRequest.getDefaultInstance()))
          .as("%s", server)
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED))
          .hasMessageContaining("requires Kerberos");
    }
  }

  @Test
  void aUsersTicketDoesNotMakeADataServerNorGetTheSigningKeys() throws IOException {
    RpcClient mallory =
        RpcClient.builder("rogue-ds").user("alice").credentials(credentials("alice")).build();
    closeables.add(mallory);
    mallory.start();
    // Authenticated as alice: a user's calls work ...
    mallory.callSync(cluster.mdsAddress(), RpcMethod.PING, PingRequest.getDefaultInstance());
    // ... but not a data server's: no registration, and no heartbeat answer with the keys.
    assertThatThrownBy(
            () ->
                mallory.callSync(
                    cluster.mdsAddress(),
                    RpcMethod.HEARTBEAT,
                    HeartbeatRequest.newBuilder()
                        .setServerId(cluster.runningDataServers().get(0).serverId())
                        .build()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("cluster's own servers");
    assertThatThrownBy(
            () ->
                mallory.callSync(
                    cluster.mdsAddress(),
                    RpcMethod.REGISTER_DATA_SERVER,
                    RegisterDataServerRequest.newBuilder().setHost("10.0.0.66").setPort(1).build()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
    assertThat(cluster.runningDataServers()).hasSize(3);
  }

  @Test
  void aJobsTaskWorksWithADelegationTokenAloneUntilItIsCancelled() throws Exception {
    BraidClient root = cluster.newBraidClient("root", as("root"));
    root.mkdirs("/jobs/alice", 0755);
    root.setOwner("/jobs/alice", "alice", "staff");
    BraidClient alice = cluster.newBraidClient("alice", as("alice"));
    byte[] input = "the job's input".getBytes(StandardCharsets.UTF_8);
    try (BraidOutputStream out = alice.create("/jobs/alice/input")) {
      out.write(input);
    }
    DelegationToken token = alice.getDelegationToken("bob");
    DelegationTokenIdentifier fields = token.fields();
    assertThat(fields.owner()).isEqualTo("alice");
    assertThat(fields.renewer()).isEqualTo("bob");
    assertThat(fields.maxMs()).isGreaterThan(fields.issueMs());
    assertThat(token.expiresMs()).isBetween(fields.issueMs(), fields.maxMs());

    // The task has no ticket, only the token: it reads through the MDS and the data servers and
    // writes as alice.
    BraidClient task = cluster.newBraidClient(token, null);
    try (BraidInputStream in = task.open("/jobs/alice/input")) {
      assertThat(in.readAllBytes()).isEqualTo(input);
    }
    try (BraidOutputStream out = task.create("/jobs/alice/part-0")) {
      out.write(input);
    }
    assertThat(root.stat("/jobs/alice/part-0").user()).isEqualTo("alice");
    // A token gets no further tokens, and cannot act as anyone but its owner.
    assertThatThrownBy(() -> task.getDelegationToken(""))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("authenticate with Kerberos");
    assertThatThrownBy(() -> cluster.newBraidClient(token, "root"))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("may not act as root");
    // A wrong password proves nothing, at the MDS or at a data server.
    byte[] wrong = token.password();
    wrong[0] ^= 1; // the MDS's half
    wrong[40] ^= 1; // the data servers' half
    DelegationToken forged = new DelegationToken(token.identifier(), wrong, token.expiresMs());
    assertThatThrownBy(() -> cluster.newBraidClient(forged, null))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED));
    try (RpcClient raw =
        RpcClient.builder("forged")
            .credentials(new DelegationTokenCredentials(token.identifier(), wrong, a -> false))
            .build()) {
      raw.start();
      assertThatThrownBy(
              () ->
                  raw.callSync(
                      cluster.dataServer(0).address(),
                      RpcMethod.PING,
                      PingRequest.getDefaultInstance()))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED))
          .hasMessageContaining("proof does not match");
    }

    // Only the renewer renews; renewing never passes the max date.
    assertThatThrownBy(() -> alice.renewDelegationToken(token.identifier()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("its renewer is bob");
    BraidClient bob = cluster.newBraidClient("bob", as("bob"));
    long renewed = bob.renewDelegationToken(token.identifier());
    assertThat(renewed)
        .isGreaterThanOrEqualTo(token.expiresMs())
        .isLessThanOrEqualTo(fields.maxMs());

    // The token is in the journal: it outlives the MDS process.
    cluster.restartMds();
    BraidClient after = cluster.newBraidClient(token, null);
    try (BraidInputStream in = after.open("/jobs/alice/part-0")) {
      assertThat(in.readAllBytes()).isEqualTo(input);
    }

    // The proof a data server can check (its half of the password) gets nobody in at the MDS.
    try (RpcClient asDataServerProof =
        RpcClient.builder("ds-half")
            .credentials(
                new DelegationTokenCredentials(token.identifier(), token.password(), x -> false))
            .build()) {
      asDataServerProof.start();
      assertThatThrownBy(
              () ->
                  asDataServerProof.callSync(
                      cluster.mdsAddress(), RpcMethod.PING, PingRequest.getDefaultInstance()))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED));
    }

    // A task may cancel only its own token.
    BraidClient aliceAgain = cluster.newBraidClient("alice", as("alice"));
    DelegationToken other = aliceAgain.getDelegationToken("");
    assertThatThrownBy(() -> after.cancelDelegationToken(other.identifier()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("may cancel only that token");

    // Cancelled by its owner: no new connection is accepted with it, and an open one is closed
    // at its next call.
    aliceAgain.cancelDelegationToken(token.identifier());
    assertThatThrownBy(() -> cluster.newBraidClient(token, null))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("not known");
    assertThatThrownBy(() -> after.stat("/jobs/alice/input"))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED));
    assertThat(aliceAgain.stat("/jobs/alice/input").user()).isEqualTo("alice");
  }

  @Test
  void delegationTokensAreForKerberosUsersOnly() throws Exception {
    BraidClient service = cluster.newBraidClient("braid", as("braid/elsewhere"));
    assertThatThrownBy(() -> service.getDelegationToken(""))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("service user");
  }
}
