package io.braidfs.it.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.security.SecurityConfigKeys;
import io.braidfs.testing.TestKdc;
import io.braidfs.testing.process.CommandResult;
import io.braidfs.testing.process.ProcessCluster;
import io.braidfs.testing.process.ProcessClusterExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kerberos cluster of real processes on hosts of their own (issue 28): a KDC on host {@code kdc},
 * an MDS and three data servers each with its own service principal {@code braid/ADDRESS} and
 * keytab, and users on hosts {@code client} and {@code outside}, each call a process of its own
 * ({@link SecureClientMain}, or the {@code braid} command with a kinit ticket cache).
 *
 * <p>Checks: alice and bob authenticate and the permission checks hold between them; alice cannot
 * act as bob or root; a client without credentials is refused by the MDS and by every data server;
 * proxy user {@code gateway} may act for alice from host {@code client} only, and never for bob; a
 * job's task with alice's delegation token alone reads and writes, also after an MDS restart.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KerberosIT {
  @RegisterExtension
  static final ProcessClusterExtension CLUSTER =
      new ProcessClusterExtension(
          b ->
              b.dataServers(3)
                  .clients("client", "outside")
                  .kerberos("root", "alice", "bob", "gateway")
                  .kerberosTickets("carol")
                  .set(SecurityConfigKeys.GROUPS.name(), "alice=staff;bob=staff;carol=staff")
                  .set(
                      SecurityConfigKeys.PROXY_USERS.name(),
                      "gateway hosts=${client.address} users=alice"));

  @TempDir static Path tokens;

  @Test
  @Order(1)
  @Timeout(300)
  void usersWorkWithTheirOwnFilesThroughTheMdsAndTheDataServers() throws Exception {
    assertThat(as("client", "root", "root", "mkdir", "/home/alice", "alice")).isEqualTo("ok");
    assertThat(as("client", "alice", "alice", "write", "/home/alice/f", "alice's-bytes"))
        .isEqualTo("ok");
    assertThat(as("client", "alice", "alice", "read", "/home/alice/f"))
        .isEqualTo("ok alice's-bytes");
    assertThat(as("client", "bob", "bob", "stat", "/home/alice/f")).isEqualTo("ok alice");
    assertThat(as("client", "bob", "bob", "write", "/home/alice/g", "bob's"))
        .startsWith("refused PERMISSION_DENIED ")
        .contains("bob");
  }

  @Test
  @Order(2)
  @Timeout(300)
  void aliceCannotClaimToBeBobOrRoot() throws Exception {
    for (String other : List.of("bob", "root")) {
      assertThat(as("client", "alice", other, "stat", "/"))
          .startsWith("refused PERMISSION_DENIED ")
          .contains("may not act as " + other);
    }
  }

  @Test
  @Order(3)
  @Timeout(300)
  void aClientWithoutCredentialsIsRefusedByTheMdsAndByEveryDataServer() throws Exception {
    List<String> servers = new ArrayList<>(List.of(CLUSTER.cluster().mdsAddress()));
    servers.addAll(Clients.dataServerAddresses(CLUSTER.cluster()).values());
    assertThat(servers).hasSize(4);
    for (String server : servers) {
      assertThat(run("client", "plain", server))
          .as(server)
          .startsWith("refused NOT_AUTHENTICATED ")
          .contains("requires Kerberos");
    }
  }

  @Test
  @Order(4)
  @Timeout(300)
  void aProxyUserActsOnlyWithinItsRules() throws Exception {
    assertThat(as("client", "gateway", "alice", "read", "/home/alice/f"))
        .isEqualTo("ok alice's-bytes");
    // A user the rule does not list, and a host it does not list.
    assertThat(as("client", "gateway", "bob", "stat", "/"))
        .startsWith("refused PERMISSION_DENIED ")
        .contains("gateway may not act for bob");
    assertThat(as("outside", "gateway", "alice", "stat", "/"))
        .startsWith("refused PERMISSION_DENIED ")
        .contains("only from its hosts, not from " + CLUSTER.cluster().host("outside").address());
    // Alice herself works from the other host: it is the proxy rule that refused.
    assertThat(as("outside", "alice", "alice", "stat", "/home/alice/f")).isEqualTo("ok alice");
  }

  @Test
  @Order(5)
  @Timeout(300)
  void theBraidCommandWorksWithAKinitTicketCache() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    assertThat(as("client", "root", "root", "mkdir", "/home/carol", "carol")).isEqualTo("ok");
    CommandResult made =
        c.braid(
            "client",
            Clients.CLIENT_TIMEOUT,
            "fs",
            "--mds",
            c.mdsAddress(),
            "--user",
            "carol",
            "-D",
            SecurityConfigKeys.AUTHENTICATION.name() + "=KERBEROS",
            "-D",
            SecurityConfigKeys.KERBEROS_KRB5_CONF.name() + "=" + c.krb5Conf(),
            "-D",
            SecurityConfigKeys.KERBEROS_TICKET_CACHE.name() + "=" + c.ticketCache("carol"),
            "mkdir",
            "/home/carol/by-cli");
    assertThat(made.exitCode()).as("braid fs mkdir; stderr:\n%s", made.stderr()).isZero();
    assertThat(as("client", "root", "root", "stat", "/home/carol/by-cli")).isEqualTo("ok carol");

    // Without Kerberos the same command is refused, and says why.
    CommandResult plain =
        c.braid("client", Clients.CLIENT_TIMEOUT, "fs", "--mds", c.mdsAddress(), "ls", "/");
    assertThat(plain.exitCode()).isNotZero();
    assertThat(plain.stderr()).contains("requires Kerberos");
  }

  @Test
  @Order(6)
  @Timeout(300)
  void aTasksDelegationTokenWorksAloneAndOutlivesAnMdsRestart() throws Exception {
    String token = tokens.resolve("alice.token").toString();
    assertThat(as("client", "alice", "alice", "gettoken", "", token)).startsWith("ok ");
    assertThat(run("outside", "token", token, "read", "/home/alice/f"))
        .isEqualTo("ok alice's-bytes");
    assertThat(run("outside", "token", token, "write", "/home/alice/part-0", "task's-bytes"))
        .isEqualTo("ok");
    assertThat(as("client", "bob", "bob", "stat", "/home/alice/part-0")).isEqualTo("ok alice");

    CLUSTER.cluster().restart("mds");
    assertThat(run("outside", "token", token, "read", "/home/alice/part-0"))
        .isEqualTo("ok task's-bytes");
    // A token gets no further tokens.
    assertThat(run("outside", "token", token, "gettoken", "", token + ".2"))
        .startsWith("refused PERMISSION_DENIED ")
        .contains("authenticate with Kerberos");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** {@link SecureClientMain} on {@code host} as {@code principal} (its keytab), acting as user. */
  private static String as(String host, String principal, String user, String... op)
      throws IOException, InterruptedException {
    ProcessCluster c = CLUSTER.cluster();
    List<String> args =
        new ArrayList<>(
            List.of("as", principal + "@" + TestKdc.REALM, c.keytab(principal).toString(), user));
    args.addAll(List.of(op));
    return run(host, args.toArray(String[]::new));
  }

  private static String run(String host, String... args) throws IOException, InterruptedException {
    ProcessCluster c = CLUSTER.cluster();
    List<String> all = new ArrayList<>(List.of(c.mdsAddress(), c.krb5Conf().toString()));
    all.addAll(List.of(args));
    CommandResult r =
        c.java(host, Clients.CLIENT_TIMEOUT, SecureClientMain.class, all.toArray(String[]::new));
    assertThat(r.exitCode())
        .as("SecureClientMain %s on %s; stderr:\n%s", all, host, r.stderr())
        .isZero();
    assertThat(r.lines()).as("SecureClientMain %s on %s", all, host).hasSize(1);
    return r.lines().get(0);
  }
}
