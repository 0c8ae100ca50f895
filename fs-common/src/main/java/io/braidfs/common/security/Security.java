package io.braidfs.common.security;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.CallerContext;
import io.braidfs.common.rpc.HelloAuthenticator;
import io.braidfs.common.rpc.HelloCredentials;
import io.braidfs.proto.HelloRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Builds what the {@code braid.security.*} keys ask for: a server's {@link HelloAuthenticator} and
 * a client's (or a server's, for the calls it makes) {@link HelloCredentials}; both null with
 * {@code SIMPLE} authentication.
 *
 * <p>Thread-safety: stateless.
 */
public final class Security {
  private Security() {}

  /** Whether {@code config} asks for Kerberos. */
  public static boolean kerberos(BraidConfig config) {
    return config.get(SecurityConfigKeys.AUTHENTICATION)
        == SecurityConfigKeys.Authentication.KERBEROS;
  }

  /**
   * The authenticator of a server on {@code host} (which replaces {@code _HOST} in its principal),
   * or null with SIMPLE authentication.
   *
   * @throws IOException NOT_AUTHENTICATED if the server cannot log in from its keytab
   * @throws IllegalArgumentException if the auth_to_local rules or the group list do not parse
   */
  public static @Nullable HelloAuthenticator serverAuthenticator(
      BraidConfig config, String serverId, String host) throws IOException {
    return serverAuthenticator(config, serverId, host, null);
  }

  /**
   * As {@link #serverAuthenticator(BraidConfig, String, String)}, accepting delegation tokens too
   * when {@code tokens} is not null: a Hello carrying a token's proof is checked against it, any
   * other against Kerberos.
   */
  public static @Nullable HelloAuthenticator serverAuthenticator(
      BraidConfig config, String serverId, String host, @Nullable DelegationTokenPasswords tokens)
      throws IOException {
    HelloAuthenticator kerberos = kerberosAuthenticator(config, serverId, host);
    if (kerberos == null || tokens == null) {
      return kerberos;
    }
    HelloAuthenticator byToken =
        new DelegationTokenAuthenticator(
            serverId,
            tokens,
            GroupLookup.parse(config.get(SecurityConfigKeys.GROUPS)),
            serviceUserSet(config),
            System::currentTimeMillis);
    return new HelloAuthenticator() {
      @Override
      public Identity authenticate(HelloRequest hello, SocketAddress remote) throws IOException {
        return hello.hasDelegationToken()
            ? byToken.authenticate(hello, remote)
            : kerberos.authenticate(hello, remote);
      }

      @Override
      public @Nullable String revoked(CallerContext caller) {
        return byToken.revoked(caller);
      }
    };
  }

  /**
   * The sequence number of the delegation token {@code caller} authenticated with, or -1 if it did
   * not authenticate with one.
   */
  public static int delegationTokenSequence(CallerContext caller) {
    return DelegationTokenAuthenticator.tokenSequence(caller);
  }

  /**
   * The short user name of {@code name}: itself if it is already one, else the Kerberos principal
   * mapped by {@code braid.security.auth-to-local} (a delegation token's renewer given as
   * "yarn/host@REALM" is "yarn").
   *
   * @throws IllegalArgumentException if no rule maps the principal
   */
  public static String shortUserName(BraidConfig config, String name) {
    if (name.indexOf('/') < 0 && name.indexOf('@') < 0) {
      return name;
    }
    KerberosLogin.useKrb5Conf(config.get(SecurityConfigKeys.KERBEROS_KRB5_CONF));
    return KerberosNameMapper.parse(
            config.get(SecurityConfigKeys.AUTH_TO_LOCAL), KerberosLogin.defaultRealm())
        .shortName(name);
  }

  /** Whether {@code caller} authenticated with a delegation token rather than Kerberos. */
  public static boolean byDelegationToken(CallerContext caller) {
    return DelegationTokenAuthenticator.byToken(caller);
  }

  private static @Nullable HelloAuthenticator kerberosAuthenticator(
      BraidConfig config, String serverId, String host) throws IOException {
    if (!kerberos(config)) {
      return null;
    }
    KerberosLogin.useKrb5Conf(config.get(SecurityConfigKeys.KERBEROS_KRB5_CONF));
    KerberosNameMapper names =
        KerberosNameMapper.parse(
            config.get(SecurityConfigKeys.AUTH_TO_LOCAL), KerberosLogin.defaultRealm());
    return KerberosAuthenticator.login(
        serverId,
        ownPrincipal(config, host),
        config.get(SecurityConfigKeys.KERBEROS_KEYTAB),
        names,
        GroupLookup.parse(config.get(SecurityConfigKeys.GROUPS)),
        ProxyUsers.parse(config.get(SecurityConfigKeys.PROXY_USERS)),
        serviceUserSet(config));
  }

  /**
   * The credentials of a process on {@code host} calling servers, or null with SIMPLE
   * authentication: from the keytab if one is set, else from the ticket cache.
   *
   * @throws IOException NOT_AUTHENTICATED if the log-in fails (no ticket: kinit first)
   */
  public static @Nullable HelloCredentials clientCredentials(BraidConfig config, String host)
      throws IOException {
    if (!kerberos(config)) {
      return null;
    }
    KerberosLogin.useKrb5Conf(config.get(SecurityConfigKeys.KERBEROS_KRB5_CONF));
    String principal = ownPrincipal(config, host);
    String keytab = config.get(SecurityConfigKeys.KERBEROS_KEYTAB);
    String cache = config.get(SecurityConfigKeys.KERBEROS_TICKET_CACHE);
    return new KerberosCredentials(
        () -> KerberosLogin.login(principal, keytab, cache, false),
        config.get(SecurityConfigKeys.KERBEROS_SERVER_PRINCIPAL),
        KerberosLogin.defaultRealm());
  }

  /**
   * Which callers are the cluster's own servers: with Kerberos, those authenticated as one of
   * {@code braid.security.service-users}; with SIMPLE authentication nothing is proven, so this
   * answers true for everyone and callers fall back on what the peer claims.
   */
  public static Predicate<CallerContext> servicePeer(BraidConfig config) {
    if (!kerberos(config)) {
      return c -> true;
    }
    Set<String> users = serviceUserSet(config);
    // The principal's own name, never a user a proxy acts for.
    return c -> c.authenticated() && !c.proxied() && users.contains(c.realUser());
  }

  /** The users of {@code braid.security.service-users}. */
  public static Set<String> serviceUserSet(BraidConfig config) {
    return Arrays.stream(config.get(SecurityConfigKeys.SERVICE_USERS).split(","))
        .map(String::trim)
        .filter(u -> !u.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }

  /** The users of {@code braid.security.service-users}, for messages. */
  public static String serviceUsers(BraidConfig config) {
    return config.get(SecurityConfigKeys.SERVICE_USERS);
  }

  private static String ownPrincipal(BraidConfig config, String host) {
    return config
        .get(SecurityConfigKeys.KERBEROS_PRINCIPAL)
        .replace("_HOST", hostName(host).toLowerCase(Locale.ROOT));
  }

  /** {@code host}, or this machine's canonical name for a wildcard bind (as Hadoop's _HOST). */
  private static String hostName(String host) {
    boolean wildcard;
    try {
      wildcard = host.isEmpty() || InetAddress.getByName(host).isAnyLocalAddress();
    } catch (UnknownHostException e) {
      wildcard = false;
    }
    if (!wildcard) {
      return host;
    }
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
