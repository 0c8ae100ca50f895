package io.braidfs.common.security;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HelloAuthenticator;
import io.braidfs.proto.HelloRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import javax.security.auth.Subject;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.jspecify.annotations.Nullable;

/**
 * A server's side of Kerberos: every Hello must carry a GSS-API initial context token (an AP-REQ)
 * for this server's principal, which is accepted in one step and answered with the AP-REP that
 * proves this server to the client (mutual authentication). The connection then acts as the
 * principal's short name ({@link KerberosNameMapper}) with the groups this server looks up; a Hello
 * naming another user is refused. The JDK's replay cache refuses a Hello token seen before.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class KerberosAuthenticator implements HelloAuthenticator {
  private final String serverId;
  private final GSSManager manager = GSSManager.getInstance();
  private final GSSCredential acceptor;
  private final KerberosNameMapper names;
  private final GroupLookup groups;
  private final ProxyUsers proxies;
  private final Set<String> serviceUsers;

  private KerberosAuthenticator(
      String serverId,
      GSSCredential acceptor,
      KerberosNameMapper names,
      GroupLookup groups,
      ProxyUsers proxies,
      Set<String> serviceUsers) {
    this.serviceUsers = Set.copyOf(serviceUsers);
    this.serverId = serverId;
    this.acceptor = acceptor;
    this.names = names;
    this.groups = groups;
    this.proxies = proxies;
  }

  /**
   * Logs in as {@code principal} from {@code keytab} and makes the credential connections are
   * accepted with.
   *
   * @throws IOException NOT_AUTHENTICATED if the log-in fails
   */
  static KerberosAuthenticator login(
      String serverId,
      String principal,
      String keytab,
      KerberosNameMapper names,
      GroupLookup groups,
      ProxyUsers proxies,
      Set<String> serviceUsers)
      throws IOException {
    if (keytab.isEmpty()) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED,
          serverId
              + ": braid.security.authentication is KERBEROS but braid.security.kerberos.keytab"
              + " is not set: a server needs its service principal's keys",
          null);
    }
    Subject subject = KerberosLogin.login(principal, keytab, "", true);
    GSSManager m = GSSManager.getInstance();
    try {
      GSSCredential acceptor =
          KerberosLogin.doAs(
              subject,
              () ->
                  m.createCredential(
                      null,
                      GSSCredential.INDEFINITE_LIFETIME,
                      KerberosLogin.KRB5,
                      GSSCredential.ACCEPT_ONLY));
      return new KerberosAuthenticator(serverId, acceptor, names, groups, proxies, serviceUsers);
    } catch (GSSException e) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED,
          serverId + ": no Kerberos acceptor credential from " + keytab + ": " + e.getMessage(),
          e);
    }
  }

  @Override
  public Identity authenticate(HelloRequest hello, SocketAddress remote) throws IOException {
    byte[] token = hello.getGssToken().toByteArray();
    if (token.length == 0) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED,
          serverId
              + " requires Kerberos (braid.security.authentication=KERBEROS); the Hello from "
              + remote
              + " carried no ticket",
          null);
    }
    String principal;
    byte[] reply;
    @Nullable GSSContext context = null;
    try {
      context = manager.createContext(acceptor);
      reply = context.acceptSecContext(token, 0, token.length);
      if (!context.isEstablished()) {
        throw StatusExceptions.toIOException(
            Status.NOT_AUTHENTICATED,
            serverId + ": the Kerberos handshake from " + remote + " needs more than one step",
            null);
      }
      principal = context.getSrcName().toString();
    } catch (GSSException e) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED,
          serverId + ": Kerberos refused the Hello from " + remote + ": " + e.getMessage(),
          e);
    } finally {
      dispose(context);
    }
    String user;
    try {
      user = names.shortName(principal);
    } catch (IllegalArgumentException e) {
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED, serverId + ": " + e.getMessage(), e);
    }
    String claimed = hello.getUser();
    if (!claimed.isEmpty() && !claimed.equals(user)) {
      // A proxy user (a gateway acting for its users) within its rules; anyone else is refused,
      // and nobody acts for the cluster's own servers.
      String refusal;
      if (serviceUsers.contains(claimed)) {
        refusal = claimed + " is a service user (braid.security.service-users)";
      } else if (remote instanceof InetSocketAddress a) {
        refusal = proxies.refusal(user, claimed, () -> groups.groupsOf(claimed), a.getAddress());
      } else {
        refusal = "the connection has no IP address";
      }
      if (refusal != null) {
        throw StatusExceptions.toIOException(
            Status.PERMISSION_DENIED,
            serverId
                + ": "
                + principal
                + " (user "
                + user
                + ") may not act as "
                + claimed
                + ": "
                + refusal,
            null);
      }
      return new Identity(
          claimed, groups.groupsOf(claimed), principal, user, reply == null ? new byte[0] : reply);
    }
    return new Identity(
        user, groups.groupsOf(user), principal, user, reply == null ? new byte[0] : reply);
  }

  private static void dispose(@Nullable GSSContext context) {
    if (context != null) {
      try {
        context.dispose();
      } catch (GSSException e) {
        // nothing held that matters
      }
    }
  }
}
