package io.braidfs.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HelloCredentials;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.common.rpc.internal.FrameHeader;
import io.braidfs.common.testing.RawFrames;
import io.braidfs.proto.HelloRequest;
import io.braidfs.proto.PingRequest;
import io.braidfs.proto.PingResponse;
import io.braidfs.testing.TestKdc;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kerberos in the Hello against a real KDC over TCP (issue 28): a server with its service
 * principal's keytab, clients logging in from a keytab or a kinit ticket cache. Who a connection
 * acts for is what the server answers in PING's echo ("user:groups").
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KerberosHelloTest {
  @TempDir static Path dir;

  private TestKdc kdc;
  private String serverKeytab;
  private String aliceKeytab;
  private String gatewayKeytab;
  private String bobCache;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private RpcServer server;

  @BeforeAll
  void kdc() throws Exception {
    kdc = TestKdc.start(dir);
    serverKeytab = kdc.keytab("braid/localhost");
    aliceKeytab = kdc.keytab("alice");
    gatewayKeytab = kdc.keytab("gateway");
    bobCache = kdc.ticketCache("bob", "bob's password");
  }

  @AfterAll
  void stopKdc() throws Exception {
    kdc.close();
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    closeables.clear();
  }

  private BraidConfig.Builder kerberos() {
    return BraidConfig.builder()
        .set(SecurityConfigKeys.AUTHENTICATION, SecurityConfigKeys.Authentication.KERBEROS)
        .set(SecurityConfigKeys.KERBEROS_KRB5_CONF, kdc.krb5Conf());
  }

  private InetSocketAddress startServer(BraidConfig.Builder config) throws IOException {
    BraidConfig c =
        config
            .set(SecurityConfigKeys.KERBEROS_PRINCIPAL, "braid/_HOST@" + TestKdc.REALM)
            .set(SecurityConfigKeys.KERBEROS_KEYTAB, serverKeytab)
            .build();
    server =
        RpcServer.builder("srv")
            .authenticator(Security.serverAuthenticator(c, "srv", "localhost"))
            .handle(
                RpcMethod.PING,
                call ->
                    call.reply(
                        PingResponse.newBuilder()
                            .setEcho(
                                ByteString.copyFromUtf8(
                                    call.caller().user()
                                        + ":"
                                        + String.join(",", call.caller().groups())
                                        + ":"
                                        + call.caller().principal()))
                            .build()),
                null)
            .build();
    closeables.add(server);
    server.start();
    // The host as a client's configuration would write it: the principal is braid/localhost.
    return new InetSocketAddress("localhost", server.boundAddress().getPort());
  }

  private RpcClient client(String user, HelloCredentials credentials) {
    RpcClient c = RpcClient.builder("c-" + user).user(user).credentials(credentials).build();
    closeables.add(c);
    c.start();
    return c;
  }

  private static String whoAmI(RpcClient c, InetSocketAddress server) throws IOException {
    return c.callSync(server, RpcMethod.PING, PingRequest.getDefaultInstance())
        .getEcho()
        .toStringUtf8();
  }

  private HelloCredentials alice() throws IOException {
    return Security.clientCredentials(
        kerberos()
            .set(SecurityConfigKeys.KERBEROS_PRINCIPAL, "alice@" + TestKdc.REALM)
            .set(SecurityConfigKeys.KERBEROS_KEYTAB, aliceKeytab)
            .build(),
        "localhost");
  }

  @Test
  void aUserWithAKeytabActsAsItsPrincipalsShortNameWithTheServersGroups() throws IOException {
    InetSocketAddress srv =
        startServer(kerberos().set(SecurityConfigKeys.GROUPS, "alice=staff,dev; bob=dev"));
    RpcClient c = client("alice", alice());
    assertThat(whoAmI(c, srv)).isEqualTo("alice:staff,dev:alice@" + TestKdc.REALM);
  }

  @Test
  void aUserFromAKinitTicketCacheIsAuthenticatedToo() throws IOException {
    InetSocketAddress srv = startServer(kerberos());
    HelloCredentials bob =
        Security.clientCredentials(
            kerberos().set(SecurityConfigKeys.KERBEROS_TICKET_CACHE, bobCache).build(),
            "localhost");
    // An empty user: the connection acts as whoever the ticket says.
    RpcClient c = client("", bob);
    assertThat(whoAmI(c, srv)).startsWith("bob:");
  }

  @Test
  void aliceCannotClaimToBeBobOrRoot() throws IOException {
    InetSocketAddress srv = startServer(kerberos());
    for (String other : List.of("bob", "root")) {
      RpcClient c = client(other, alice());
      assertThatThrownBy(() -> whoAmI(c, srv))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
          .hasMessageContaining("may not act as " + other);
    }
  }

  @Test
  void aClientWithoutATicketIsRefused() throws IOException {
    InetSocketAddress srv = startServer(kerberos());
    RpcClient plain = RpcClient.builder("plain").user("alice").build();
    closeables.add(plain);
    plain.start();
    assertThatThrownBy(() -> whoAmI(plain, srv))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("requires Kerberos");
  }

  @Test
  void aServerThatIsNotTheOneTheTicketNamesIsNotTrusted() throws Exception {
    // A client that asks for a principal the KDC does not know fails before it sends anything.
    InetSocketAddress srv = startServer(kerberos());
    HelloCredentials wrong =
        Security.clientCredentials(
            kerberos()
                .set(SecurityConfigKeys.KERBEROS_PRINCIPAL, "alice@" + TestKdc.REALM)
                .set(SecurityConfigKeys.KERBEROS_KEYTAB, aliceKeytab)
                .set(SecurityConfigKeys.KERBEROS_SERVER_PRINCIPAL, "nosuch/_HOST")
                .build(),
            "localhost");
    RpcClient c = client("alice", wrong);
    assertThatThrownBy(() -> whoAmI(c, srv))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("nosuch/localhost");
  }

  @Test
  void aReplayedHelloIsRefused() throws Exception {
    InetSocketAddress srv = startServer(kerberos());
    byte[] token = alice().begin(srv).token();
    byte[] hello =
        RawFrames.request(
            RpcMethod.HELLO.id(),
            1,
            HelloRequest.newBuilder()
                .setProtocolVersion(1)
                .setClientId(ByteString.copyFrom(new byte[16]))
                .setGssToken(ByteString.copyFrom(token))
                .build()
                .toByteArray(),
            new byte[0]);
    assertThat(helloStatus(srv, hello)).isEqualTo(Status.OK);
    // The same bytes again, as an eavesdropper would send them.
    assertThat(helloStatus(srv, hello)).isEqualTo(Status.NOT_AUTHENTICATED);
  }

  private static Status helloStatus(InetSocketAddress srv, byte[] hello) throws IOException {
    try (Socket s = new Socket(srv.getAddress(), srv.getPort())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(hello);
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] header = new byte[FrameHeader.LENGTH];
      in.readFully(header);
      return Status.fromCode(ByteBuffer.wrap(header).getShort(6) & 0xFFFF);
    }
  }

  private HelloCredentials gateway() throws IOException {
    return Security.clientCredentials(
        kerberos()
            .set(SecurityConfigKeys.KERBEROS_PRINCIPAL, "gateway@" + TestKdc.REALM)
            .set(SecurityConfigKeys.KERBEROS_KEYTAB, gatewayKeytab)
            .build(),
        "localhost");
  }

  @Test
  void aProxyUserActsForOthersOnlyWithinItsRules() throws IOException {
    InetSocketAddress srv =
        startServer(
            kerberos()
                .set(SecurityConfigKeys.GROUPS, "carol=staff; dave=guests")
                .set(
                    SecurityConfigKeys.PROXY_USERS,
                    "gateway hosts=127.0.0.0/8 users=alice groups=staff; "
                        + "elsewhere hosts=10.9.9.9 users=*"));
    // By user and by group, from an allowed host: the connection acts for the user.
    assertThat(whoAmI(client("alice", gateway()), srv))
        .isEqualTo("alice::gateway@" + TestKdc.REALM);
    assertThat(whoAmI(client("carol", gateway()), srv))
        .isEqualTo("carol:staff:gateway@" + TestKdc.REALM);
    // Neither listed nor in a listed group.
    RpcClient forDave = client("dave", gateway());
    assertThatThrownBy(() -> whoAmI(forDave, srv))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("gateway may not act for dave");
    // Nobody acts for a service user, whatever the rules say: that would make a service peer.
    InetSocketAddress wide =
        startServer(kerberos().set(SecurityConfigKeys.PROXY_USERS, "gateway hosts=* users=*"));
    RpcClient asServer = client("braid", gateway());
    assertThatThrownBy(() -> whoAmI(asServer, wide))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("braid is a service user");
    // A user with no rule is no proxy at all.
    RpcClient aliceForDave = client("dave", alice());
    assertThatThrownBy(() -> whoAmI(aliceForDave, srv))
        .hasMessageContaining("alice is not a proxy user");
  }

  @Test
  void aProxyUserIsRefusedFromAHostOutsideItsRule() throws IOException {
    InetSocketAddress srv =
        startServer(
            kerberos().set(SecurityConfigKeys.PROXY_USERS, "gateway hosts=10.9.9.0/24 users=*"));
    RpcClient c = client("alice", gateway());
    assertThatThrownBy(() -> whoAmI(c, srv))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContaining("only from its hosts, not from 127.0.0.1");
  }

  @Test
  void aSimpleServerStillTakesTheClaimedUser() throws IOException {
    RpcServer simple =
        RpcServer.builder("simple")
            .authenticator(Security.serverAuthenticator(BraidConfig.defaults(), "s", "localhost"))
            .handle(
                RpcMethod.PING,
                call ->
                    call.reply(
                        PingResponse.newBuilder()
                            .setEcho(ByteString.copyFromUtf8(call.caller().user()))
                            .build()),
                null)
            .build();
    closeables.add(simple);
    simple.start();
    RpcClient c = RpcClient.builder("c").user("mallory").build();
    closeables.add(c);
    c.start();
    assertThat(whoAmI(c, simple.boundAddress())).isEqualTo("mallory");
  }
}
