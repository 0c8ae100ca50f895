package io.braidfs.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.PingRequest;
import io.braidfs.testing.MiniCluster;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on every link of a whole cluster (an MDS, three data servers), mutual: certificates from a
 * test authority, clients with and without certificates, a plaintext client, an untrusted server,
 * and a server certificate replaced while the cluster runs (issue 28).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsClusterTest {
  @TempDir static Path dir;

  private X509Bundle ca;
  private Path trust;
  private Path serverCert;
  private Path serverKey;
  private MiniCluster cluster;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    ca =
        new CertificateBuilder()
            .subject("CN=braid test authority")
            .setIsCertificateAuthority(true)
            .ecp256()
            .buildSelfSigned();
    trust = write("ca.pem", ca.getRootCertificatePEM());
    X509Bundle server = server(BigInteger.valueOf(1001));
    serverCert = write("server.pem", server.getCertificatePathPEM());
    serverKey = write("server.key", server.getPrivateKeyPEM());
    cluster =
        MiniCluster.builder(dir.resolve("cluster"))
            .dataServers(3)
            .config(SecurityConfigKeys.TLS_ENABLED.name(), "true")
            .config(SecurityConfigKeys.TLS_CERTIFICATE.name(), serverCert.toString())
            .config(SecurityConfigKeys.TLS_KEY.name(), serverKey.toString())
            .config(SecurityConfigKeys.TLS_TRUST.name(), trust.toString())
            .config(SecurityConfigKeys.TLS_CLIENT_AUTH.name(), "REQUIRE")
            .config(SecurityConfigKeys.TLS_RELOAD_INTERVAL.name(), "1s")
            .build();
    cluster.start(); // the data servers registered over mutual TLS
  }

  @AfterAll
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    cluster.close();
  }

  private X509Bundle server(BigInteger serial) throws Exception {
    return new CertificateBuilder()
        .subject("CN=braid server " + serial)
        .serial(serial)
        .addSanIpAddress("127.0.0.1")
        .addSanDnsName("localhost")
        .addExtendedKeyUsageServerAuth()
        .addExtendedKeyUsageClientAuth()
        .ecp256()
        .buildIssuedBy(ca);
  }

  private Path write(String name, String pem) throws IOException {
    return Files.writeString(dir.resolve(name), pem, StandardCharsets.US_ASCII);
  }

  private Map<String, String> clientTls(boolean withCertificate) throws Exception {
    Map<String, String> c = new HashMap<>();
    c.put(SecurityConfigKeys.TLS_ENABLED.name(), "true");
    c.put(SecurityConfigKeys.TLS_TRUST.name(), trust.toString());
    if (withCertificate) {
      X509Bundle alice =
          new CertificateBuilder()
              .subject("CN=alice")
              .addExtendedKeyUsageClientAuth()
              .ecp256()
              .buildIssuedBy(ca);
      c.put(
          SecurityConfigKeys.TLS_CERTIFICATE.name(),
          write("alice.pem", alice.getCertificatePathPEM()).toString());
      c.put(
          SecurityConfigKeys.TLS_KEY.name(),
          write("alice.key", alice.getPrivateKeyPEM()).toString());
    }
    return c;
  }

  private RpcClient rpc(String name, Map<String, String> settings) throws IOException {
    RpcClient c =
        RpcClient.builder(name)
            .tls(Tls.forClient(BraidConfig.fromMap(settings), name))
            .options(
                io.braidfs.common.rpc.RpcOptions.from(
                    BraidConfig.builder()
                        .set(
                            io.braidfs.common.rpc.RpcConfigKeys.CLIENT_CALL_TIMEOUT,
                            Duration.ofSeconds(5))
                        .build()))
            .build();
    closeables.add(c);
    c.start();
    return c;
  }

  @Test
  void filesGoThroughEncryptedLinksToTheMdsAndTheDataServers() throws Exception {
    BraidClient client = cluster.newBraidClient("root", clientTls(true));
    byte[] data = new byte[5 << 20]; // several chunks' worth of reads, not zero-copy under TLS
    new Random(7).nextBytes(data);
    try (BraidOutputStream out = client.create("/tls-file")) {
      out.write(data);
    }
    try (BraidInputStream in = client.open("/tls-file")) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void aClientWithoutACertificateIsRefusedWhenTheServersRequireOne() throws Exception {
    RpcClient anonymous = rpc("anonymous", clientTls(false));
    assertThatThrownBy(
            () ->
                anonymous.callSync(
                    cluster.mdsAddress(), RpcMethod.PING, PingRequest.getDefaultInstance()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("TLS with");
    assertServing();
  }

  @Test
  void aPlaintextClientToATlsPortIsClosedAndHarmsNoOne() throws Exception {
    RpcClient plain = rpc("plain", Map.of());
    assertThatThrownBy(
            () ->
                plain.callSync(
                    cluster.mdsAddress(), RpcMethod.PING, PingRequest.getDefaultInstance()))
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.UNAVAILABLE));
    assertServing();
  }

  @Test
  void aServerTheClientsAuthorityDidNotSignIsNotTrusted() throws Exception {
    X509Bundle otherCa =
        new CertificateBuilder()
            .subject("CN=other")
            .setIsCertificateAuthority(true)
            .ecp256()
            .buildSelfSigned();
    Map<String, String> settings = clientTls(true);
    settings.put(
        SecurityConfigKeys.TLS_TRUST.name(),
        write("other-ca.pem", otherCa.getRootCertificatePEM()).toString());
    RpcClient wary = rpc("wary", settings);
    assertThatThrownBy(
            () ->
                wary.callSync(
                    cluster.mdsAddress(), RpcMethod.PING, PingRequest.getDefaultInstance()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_AUTHENTICATED))
        .hasMessageContaining("TLS with");
    assertServing();
  }

  @Test
  void aReplacedServerCertificateIsUsedForNewConnectionsWithoutARestart() throws Exception {
    assertThat(servedSerial()).isEqualTo(BigInteger.valueOf(1001));
    X509Bundle next = server(BigInteger.valueOf(1002));
    // Written beside and moved into place, as an operator's tooling would.
    Path cert = write("next.pem", next.getCertificatePathPEM());
    Path key = write("next.key", next.getPrivateKeyPEM());
    Files.move(key, serverKey, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Files.move(
        cert, serverCert, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    io.braidfs.testing.Await.until(
        "the MDS serves the new certificate",
        Duration.ofSeconds(20),
        () -> {
          try {
            return servedSerial().equals(BigInteger.valueOf(1002));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    assertServing();
  }

  /** The serial of the certificate the MDS presents to a new connection (no session resumed). */
  private BigInteger servedSerial() throws Exception {
    SSLContext ctx = SSLContext.getInstance("TLS");
    X509Bundle me =
        new CertificateBuilder()
            .subject("CN=probe")
            .addExtendedKeyUsageClientAuth()
            .ecp256()
            .buildIssuedBy(ca);
    ctx.init(
        me.toKeyManagerFactory().getKeyManagers(),
        ca.toTrustManagerFactory().getTrustManagers(),
        null);
    InetSocketAddress mds = cluster.mdsAddress();
    try (Socket raw = new Socket(mds.getAddress(), mds.getPort());
        SSLSocket s =
            (SSLSocket)
                ctx.getSocketFactory().createSocket(raw, "localhost", mds.getPort(), true)) {
      s.startHandshake();
      return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }
  }

  private void assertServing() throws Exception {
    RpcClient good = rpc("good-" + closeables.size(), clientTls(true));
    good.callSync(cluster.mdsAddress(), RpcMethod.PING, PingRequest.getDefaultInstance());
  }
}
