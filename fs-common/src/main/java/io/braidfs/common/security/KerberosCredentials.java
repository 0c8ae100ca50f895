package io.braidfs.common.security;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HelloCredentials;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Locale;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosTicket;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's side of Kerberos (a user's, or a server's when it calls another server): for each
 * connection, a GSS-API context for the server's principal ({@code
 * braid.security.kerberos.server-principal}, {@code _HOST} being the host as the address names it,
 * never a reverse lookup), whose first token goes in the Hello and whose check of the server's
 * reply proves the server. Contexts are made as the logged-in subject, so the service ticket the
 * first connection to a server asks the KDC for is kept in the subject and reused.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class KerberosCredentials implements HelloCredentials {
  private static final Logger LOG = LoggerFactory.getLogger(KerberosCredentials.class);

  /** Logs in again: from the keytab, or from the ticket cache (which kinit may have renewed). */
  @FunctionalInterface
  interface Login {
    Subject login() throws IOException;
  }

  private final Login login;
  private final String serverPrincipal;
  private final String realm;
  private final GSSManager manager = GSSManager.getInstance();
  private volatile Subject subject;

  KerberosCredentials(Login login, String serverPrincipal, String realm) throws IOException {
    this.login = login;
    this.subject = login.login();
    this.serverPrincipal = serverPrincipal;
    this.realm = realm;
  }

  /**
   * The subject to make contexts with: logged in again once 80% of its ticket-granting ticket's
   * life has passed, so a long-running server or client keeps opening connections (as Hadoop's
   * checkTGTAndReloginFromKeytab). A failed log-in keeps the old subject and is logged.
   */
  private Subject subject() {
    Subject s = subject;
    if (!stale(s)) {
      return s;
    }
    synchronized (this) {
      s = subject;
      if (!stale(s)) {
        return s;
      }
      try {
        Subject fresh = login.login();
        subject = fresh;
        LOG.info("Kerberos: logged in again before the ticket expires");
        return fresh;
      } catch (IOException e) {
        LOG.warn("Kerberos: logging in again failed; keeping the ticket held: {}", e.getMessage());
        return s;
      }
    }
  }

  private static boolean stale(Subject s) {
    long now = System.currentTimeMillis();
    for (KerberosTicket t : s.getPrivateCredentials(KerberosTicket.class)) {
      if (t.getServer().getName().startsWith("krbtgt/")) {
        long start = t.getStartTime().getTime();
        long end = t.getEndTime().getTime();
        return now >= start + (end - start) / 10 * 8;
      }
    }
    return false; // no ticket-granting ticket to judge by
  }

  /** The principal this client asks a ticket for to reach {@code server}. */
  String principalOf(InetSocketAddress server) {
    String name = serverPrincipal.replace("_HOST", server.getHostString().toLowerCase(Locale.ROOT));
    return name.contains("@") || realm.isEmpty() ? name : name + "@" + realm;
  }

  @Override
  public Handshake begin(InetSocketAddress server) throws IOException {
    String target = principalOf(server);
    GSSContext context;
    byte[] token;
    try {
      Subject as = subject();
      context =
          KerberosLogin.doAs(
              as,
              () -> {
                GSSContext c =
                    manager.createContext(
                        manager.createName(target, KerberosLogin.KRB5_PRINCIPAL),
                        KerberosLogin.KRB5,
                        null,
                        GSSContext.DEFAULT_LIFETIME);
                c.requestMutualAuth(true);
                c.requestCredDeleg(false);
                return c;
              });
      token = KerberosLogin.doAs(as, () -> context.initSecContext(new byte[0], 0, 0));
    } catch (GSSException e) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED, "no Kerberos ticket for " + target + ": " + e.getMessage(), e);
    }
    return new Handshake() {
      @Override
      public byte[] token() {
        return token.clone();
      }

      @Override
      public void verify(byte[] reply) throws IOException {
        try {
          if (reply.length == 0) {
            throw StatusExceptions.toIOException(
                Status.NOT_AUTHENTICATED, "its Hello answer carried no Kerberos reply", null);
          }
          context.initSecContext(reply, 0, reply.length);
          if (!context.isEstablished()) {
            throw StatusExceptions.toIOException(
                Status.NOT_AUTHENTICATED, "the Kerberos handshake did not complete", null);
          }
        } catch (GSSException e) {
          throw StatusExceptions.toIOException(
              Status.NOT_AUTHENTICATED,
              "its Kerberos reply does not prove " + target + ": " + e.getMessage(),
              e);
        } finally {
          try {
            context.dispose();
          } catch (GSSException e) {
            // nothing held that matters
          }
        }
      }
    };
  }
}
