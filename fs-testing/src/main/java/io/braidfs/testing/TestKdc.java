package io.braidfs.testing;

import io.braidfs.common.security.SecurityConfigKeys;
import java.io.File;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kerby.kerberos.kerb.KrbException;
import org.apache.kerby.kerberos.kerb.client.KrbClient;
import org.apache.kerby.kerberos.kerb.server.SimpleKdcServer;
import org.apache.kerby.kerberos.kerb.type.ticket.TgtTicket;

/**
 * A real Kerberos KDC (Apache Kerby's, as Hadoop's MiniKdc) on TCP (a free loopback port, or a
 * given host and port), in its own directory: principals, keytabs, "kinit" ticket caches and the
 * krb5.conf pointing at it.
 *
 * <p>Thread-safety: thread-safe as Kerby's server is.
 */
public final class TestKdc implements AutoCloseable {
  public static final String REALM = "BRAID.TEST";

  private final SimpleKdcServer kdc;
  private final Path dir;

  private TestKdc(SimpleKdcServer kdc, Path dir) {
    this.kdc = kdc;
    this.dir = dir;
  }

  /** A KDC on a free loopback port. */
  public static TestKdc start(Path dir) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        return start(dir, "localhost", freePort());
      } catch (KrbException e) {
        // another process took the port between the probe and the bind
        if (attempt >= 5 || !(e.getCause() instanceof BindException)) {
          throw e;
        }
      }
    }
  }

  /**
   * A KDC listening on {@code host} (a name or an address; krb5.conf names it as given) and {@code
   * port}, TCP only.
   */
  public static TestKdc start(Path dir, String host, int port) throws Exception {
    java.nio.file.Files.createDirectories(dir);
    SimpleKdcServer kdc = new SimpleKdcServer();
    kdc.setWorkDir(dir.toFile());
    kdc.setKdcHost(host);
    kdc.setKdcRealm(REALM);
    kdc.setAllowUdp(false);
    kdc.setKdcTcpPort(port);
    kdc.init();
    kdc.start();
    try {
      Path conf = dir.resolve("krb5.conf");
      java.nio.file.Files.writeString(
          conf, namingKdc(java.nio.file.Files.readString(conf), host, port));
    } catch (IOException | RuntimeException e) {
      try {
        kdc.stop();
      } catch (KrbException stop) {
        e.addSuppressed(stop);
      }
      throw e;
    }
    return new TestKdc(kdc, dir);
  }

  /**
   * Kerby's krb5.conf {@code conf} with the KDC named {@code host}: the template names it localhost
   * whatever it listens on.
   *
   * @throws IllegalStateException if the template does not name it so (another Kerby), where a
   *     replace would do nothing and clients would ask localhost
   */
  static String namingKdc(String conf, String host, int port) {
    String kerbys = "kdc = localhost:" + port;
    if (!conf.contains(kerbys)) {
      throw new IllegalStateException(
          "Kerby's krb5.conf lacks \""
              + kerbys
              + "\", which TestKdc replaces to name the KDC "
              + host
              + ":"
              + port
              + "; make TestKdc follow the new template:\n"
              + conf);
    }
    return conf.replace(kerbys, "kdc = " + host + ":" + port);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The krb5.conf that names this KDC (written by the KDC at start). */
  public String krb5Conf() {
    return dir.resolve("krb5.conf").toString();
  }

  /** A new principal (e.g. "braid/localhost", "alice") with random keys, in a keytab of its own. */
  public String keytab(String principal) throws KrbException {
    File f = dir.resolve(principal.replace('/', '_') + ".keytab").toFile();
    kdc.createAndExportPrincipals(f, principal);
    return f.getPath();
  }

  /**
   * The Kerberos settings of a cluster whose servers all log in as {@code braid/localhost} from a
   * new keytab (its servers have IP addresses, so one principal names them all): what a {@link
   * MiniCluster.Builder#config} takes.
   */
  public Map<String, String> clusterSettings() throws KrbException {
    return Map.of(
        SecurityConfigKeys.AUTHENTICATION.name(),
        "KERBEROS",
        SecurityConfigKeys.KERBEROS_KRB5_CONF.name(),
        krb5Conf(),
        SecurityConfigKeys.KERBEROS_PRINCIPAL.name(),
        "braid/localhost@" + REALM,
        SecurityConfigKeys.KERBEROS_KEYTAB.name(),
        keytab("braid/localhost"),
        SecurityConfigKeys.KERBEROS_SERVER_PRINCIPAL.name(),
        "braid/localhost");
  }

  /** A new principal with a password, logged in as a user's kinit would: its ticket cache. */
  public String ticketCache(String principal, String password) throws KrbException {
    kdc.createPrincipal(principal, password);
    KrbClient client = kdc.getKrbClient();
    TgtTicket tgt = client.requestTgt(principal + "@" + REALM, password);
    File cache = dir.resolve(principal + ".ccache").toFile();
    client.storeTicket(tgt, cache);
    return cache.getPath();
  }

  @Override
  public void close() throws KrbException {
    kdc.stop();
  }
}
