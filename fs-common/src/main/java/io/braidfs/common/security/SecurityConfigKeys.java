package io.braidfs.common.security;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
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
          PROXY_USERS);

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
