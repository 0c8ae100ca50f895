package io.braidfs.common.security;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import java.time.Duration;
import java.util.List;

/**
 * The {@code braid.security.*} keys: how servers authenticate their peers and how clients and
 * servers prove who they are.
 *
 * <p>Thread-safety: immutable.
 */
public final class SecurityConfigKeys implements ConfigKeySet {
  /** How a server decides who a connection speaks for. */
  public enum Authentication {
    /** The Hello's user and groups are taken as claimed (no authentication). */
    SIMPLE,
    /** Every peer proves its Kerberos principal in its Hello; groups are the server's lookup. */
    KERBEROS
  }

  public static final ConfigKey<Authentication> AUTHENTICATION =
      ConfigKey.enumKey(
          "braid.security.authentication",
          Authentication.SIMPLE,
          "SIMPLE takes the user a client names as claimed; KERBEROS makes every server require "
              + "a Kerberos proof in each connection's Hello and every client and server give one "
              + "(docs/operations.md, section Secure cluster).");

  public static final ConfigKey<String> KERBEROS_PRINCIPAL =
      ConfigKey.string(
          "braid.security.kerberos.principal",
          "",
          "The principal this process logs in as from braid.security.kerberos.keytab: a server's "
              + "service principal (e.g. braid/_HOST@EXAMPLE.COM; _HOST is replaced by the "
              + "server's host name, lower case) or a user's. Empty with no keytab: the user's "
              + "ticket cache (kinit).");

  public static final ConfigKey<String> KERBEROS_KEYTAB =
      ConfigKey.string(
          "braid.security.kerberos.keytab",
          "",
          "The keytab file holding braid.security.kerberos.principal's keys; empty: log in from "
              + "the ticket cache.");

  public static final ConfigKey<String> KERBEROS_TICKET_CACHE =
      ConfigKey.string(
          "braid.security.kerberos.ticket-cache",
          "",
          "The ticket cache a client without a keytab logs in from; empty: KRB5CCNAME, else the "
              + "system's default cache.");

  public static final ConfigKey<String> KERBEROS_SERVER_PRINCIPAL =
      ConfigKey.string(
          "braid.security.kerberos.server-principal",
          "braid/_HOST",
          "The principal of the servers a client asks tickets for; _HOST is replaced by the host "
              + "of the address the client connects to, as written in its configuration (no "
              + "reverse DNS), lower case; the default realm is added when none is given.");

  public static final ConfigKey<String> KERBEROS_KRB5_CONF =
      ConfigKey.string(
          "braid.security.kerberos.krb5-conf",
          "",
          "The krb5.conf to use (sets java.security.krb5.conf before the first Kerberos call); "
              + "empty: the JVM's default, /etc/krb5.conf.");

  public static final ConfigKey<String> AUTH_TO_LOCAL =
      ConfigKey.string(
          "braid.security.auth-to-local",
          "DEFAULT",
          "Rules mapping an authenticated principal to a user name, in Hadoop's "
              + "hadoop.security.auth_to_local syntax (RULE:[n:fmt](regex)s/from/to/g/L and "
              + "DEFAULT, one per line or separated by spaces); DEFAULT maps a principal of the "
              + "default realm to its first component.");

  public static final ConfigKey<String> GROUPS =
      ConfigKey.string(
          "braid.security.groups",
          "",
          "With Kerberos, the groups of users, as the servers see them: user=group1,group2 entries "
              + "separated by ';'. A user not listed gets the groups the operating system lists "
              + "for that name (id -Gn), else none. The groups a client names are ignored.");

  public static final ConfigKey<String> SERVICE_USERS =
      ConfigKey.string(
          "braid.security.service-users",
          "braid",
          "With Kerberos, the users (after auth_to_local) the cluster's own servers run as, "
              + "comma-separated: only they may register as a data server, heartbeat or report "
              + "chunks to the MDS, and so receive the token signing keys.");

  public static final ConfigKey<String> PROXY_USERS =
      ConfigKey.string(
          "braid.security.proxy-users",
          "",
          "With Kerberos, which services may act for other users (Hadoop's proxy users): rules "
              + "separated by ';', each a user name and hosts=, users=, groups= lists (comma-"
              + "separated, or *), e.g. 'gateway hosts=10.1.0.0/16 groups=staff'. Empty: nobody "
              + "acts for another user.");

  /** Which TLS implementation encrypts connections. */
  public enum TlsProvider {
    /** OpenSSL (BoringSSL, netty-tcnative) where it loads, else the JDK's. */
    AUTO,
    /** OpenSSL only: fail at start if it does not load. */
    OPENSSL,
    /** The JDK's own TLS engine. */
    JDK
  }

  /** Whether a server asks its clients for certificates. */
  public enum ClientAuth {
    /** Clients are not asked for a certificate. */
    NONE,
    /** Mutual TLS: a client without a certificate the trust file vouches for is refused. */
    REQUIRE
  }

  public static final ConfigKey<Boolean> TLS_ENABLED =
      ConfigKey.bool(
          "braid.security.tls.enabled",
          false,
          "Encrypts every connection (clients and servers, every link) with TLS; set it alike on "
              + "every process of the cluster.");

  public static final ConfigKey<String> TLS_CERTIFICATE =
      ConfigKey.string(
          "braid.security.tls.certificate",
          "",
          "PEM file of this process's certificate chain (its own first): required on servers; "
              + "on clients, presented when a server requires client certificates.");

  public static final ConfigKey<String> TLS_KEY =
      ConfigKey.string(
          "braid.security.tls.key",
          "",
          "PEM file of the private key (PKCS#8) of braid.security.tls.certificate.");

  public static final ConfigKey<String> TLS_TRUST =
      ConfigKey.string(
          "braid.security.tls.trust",
          "",
          "PEM file of the certificate authorities trusted for peers' certificates; empty: the "
              + "JVM's default trust store.");

  public static final ConfigKey<ClientAuth> TLS_CLIENT_AUTH =
      ConfigKey.enumKey(
          "braid.security.tls.client-auth",
          ClientAuth.NONE,
          "REQUIRE makes servers refuse clients without a certificate signed by an authority of "
              + "braid.security.tls.trust (mutual TLS).");

  public static final ConfigKey<Boolean> TLS_VERIFY_HOSTNAME =
      ConfigKey.bool(
          "braid.security.tls.verify-hostname",
          true,
          "Clients check that the server's certificate names the host they connect to (a DNS "
              + "name or IP address in its subject alternative names).");

  public static final ConfigKey<TlsProvider> TLS_PROVIDER =
      ConfigKey.enumKey(
          "braid.security.tls.provider",
          TlsProvider.AUTO,
          "AUTO uses OpenSSL (netty-tcnative's BoringSSL) where it loads, else the JDK's engine.");

  public static final ConfigKey<Duration> TLS_RELOAD_INTERVAL =
      ConfigKey.duration(
          "braid.security.tls.reload-interval",
          Duration.ofMinutes(1),
          Duration.ofSeconds(1),
          Duration.ofDays(1),
          "How often the certificate, key and trust files are checked for changes; changed files "
              + "are used for new connections without a restart (a file that does not load is "
              + "logged and the last good ones kept).");

  private static final List<ConfigKey<?>> KEYS =
      List.of(
          AUTHENTICATION,
          KERBEROS_PRINCIPAL,
          KERBEROS_KEYTAB,
          KERBEROS_TICKET_CACHE,
          KERBEROS_SERVER_PRINCIPAL,
          KERBEROS_KRB5_CONF,
          AUTH_TO_LOCAL,
          GROUPS,
          SERVICE_USERS,
          PROXY_USERS,
          TLS_ENABLED,
          TLS_CERTIFICATE,
          TLS_KEY,
          TLS_TRUST,
          TLS_CLIENT_AUTH,
          TLS_VERIFY_HOSTNAME,
          TLS_PROVIDER,
          TLS_RELOAD_INTERVAL);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public SecurityConfigKeys() {}

  /** Always {@code security}. */
  @Override
  public String component() {
    return "security";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
