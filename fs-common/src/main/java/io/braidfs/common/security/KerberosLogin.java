package io.braidfs.common.security;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.kerberos.KerberosPrincipal;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.Oid;

/**
 * Kerberos log-in through JAAS's {@code Krb5LoginModule}, configured in code (no jaas.conf), and
 * the {@code Subject.doAs} the JDK's GSS-API needs to find and cache tickets.
 *
 * <p>Thread-safety: stateless.
 */
final class KerberosLogin {
  /** The Kerberos v5 GSS-API mechanism. */
  static final Oid KRB5 = oid("1.2.840.113554.1.2.2");

  /** The name type of a full principal name ({@code first/second@REALM}). */
  static final Oid KRB5_PRINCIPAL = oid("1.2.840.113554.1.2.2.1");

  private KerberosLogin() {}

  private static Oid oid(String dotted) {
    try {
      return new Oid(dotted);
    } catch (GSSException e) {
      throw new AssertionError(e);
    }
  }

  /** Points the JDK at {@code krb5Conf} unless it is empty; must precede any Kerberos call. */
  static void useKrb5Conf(String krb5Conf) {
    if (!krb5Conf.isEmpty()) {
      System.setProperty("java.security.krb5.conf", krb5Conf);
    }
  }

  /** The realm of krb5.conf's {@code default_realm}, or empty if there is none. */
  static String defaultRealm() {
    try {
      String realm = new KerberosPrincipal("braid").getRealm();
      return realm == null ? "" : realm;
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  /**
   * Logs in as {@code principal} from {@code keytab}, or, with an empty keytab, from the ticket
   * cache ({@code ticketCache}, else KRB5CCNAME, else the system's default).
   *
   * @param acceptor whether the subject accepts connections (a server) rather than opens them
   * @throws IOException NOT_AUTHENTICATED naming what failed
   */
  static Subject login(String principal, String keytab, String ticketCache, boolean acceptor)
      throws IOException {
    Map<String, String> options = new HashMap<>();
    options.put("doNotPrompt", "true");
    options.put("refreshKrb5Config", "true");
    if (!keytab.isEmpty()) {
      options.put("useKeyTab", "true");
      options.put("keyTab", keytab);
      options.put("storeKey", "true");
      options.put("principal", principal.isEmpty() ? "*" : principal);
      options.put("isInitiator", Boolean.toString(!acceptor));
    } else {
      options.put("useTicketCache", "true");
      if (!ticketCache.isEmpty()) {
        options.put("ticketCache", ticketCache);
      }
      if (!principal.isEmpty()) {
        options.put("principal", principal);
      }
    }
    Configuration jaas =
        new Configuration() {
          @Override
          public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
            return new AppConfigurationEntry[] {
              new AppConfigurationEntry(
                  "com.sun.security.auth.module.Krb5LoginModule",
                  AppConfigurationEntry.LoginModuleControlFlag.REQUIRED,
                  options)
            };
          }
        };
    try {
      LoginContext context = new LoginContext("braid", new Subject(), null, jaas);
      context.login();
      return context.getSubject();
    } catch (LoginException e) {
      String from =
          keytab.isEmpty()
              ? "the ticket cache" + (ticketCache.isEmpty() ? "" : " " + ticketCache)
              : "keytab " + keytab;
      throw StatusExceptions.toIOException(
          Status.NOT_AUTHENTICATED,
          "Kerberos log-in"
              + (principal.isEmpty() ? "" : " as " + principal)
              + " from "
              + from
              + " failed: "
              + e.getMessage(),
          e);
    }
  }

  /** Runs {@code action} as {@code subject}, unwrapping the action's own exception. */
  static <T> T doAs(Subject subject, PrivilegedExceptionAction<T> action) throws GSSException {
    try {
      return Subject.doAs(subject, action);
    } catch (PrivilegedActionException e) {
      if (e.getException() instanceof GSSException g) {
        throw g;
      }
      throw new IllegalStateException(e.getException());
    }
  }
}
