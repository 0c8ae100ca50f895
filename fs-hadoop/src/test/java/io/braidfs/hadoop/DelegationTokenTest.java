package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.testing.MiniCluster;
import io.braidfs.testing.TestKdc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.PrivilegedExceptionAction;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.DtUtilShell;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Delegation tokens as a Hadoop job uses them, against a Kerberos cluster and a real KDC (issue
 * 28): the submitter collects a token with {@code addDelegationTokens}, it travels in a token file,
 * a task holding only that file reads and writes as the submitter, the renewer renews it through
 * {@code Token.renew} and the owner cancels it through {@code Token.cancel}, each found by kind
 * through Hadoop's service loaders.
 */
class DelegationTokenTest {
  private static TestKdc kdc;
  private static MiniCluster cluster;
  private static URI uri;
  private static java.nio.file.Path dir;
  private static final Map<String, String> KEYTABS = new ConcurrentHashMap<>();

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("braid-dt");
    kdc = TestKdc.start(dir.resolve("kdc"));
    MiniCluster.Builder b = MiniCluster.builder(dir.resolve("cluster")).dataServers(3);
    kdc.clusterSettings().forEach(b::config);
    cluster = b.build();
    cluster.start();
    InetSocketAddress a = cluster.mdsAddress();
    uri = URI.create("braid://" + a.getHostString() + ":" + a.getPort() + "/");
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (kdc != null) {
      kdc.close();
    }
  }

  /** Hadoop settings for a Kerberos client: with a keytab, or (a task) with none. */
  private static Configuration conf(String principal) throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.braid.security.authentication", "KERBEROS");
    conf.set("fs.braid.security.kerberos.krb5-conf", kdc.krb5Conf());
    conf.set("fs.braid.security.kerberos.server-principal", "braid/localhost");
    if (principal != null) {
      conf.set("fs.braid.security.kerberos.principal", principal + "@" + TestKdc.REALM);
      String keytab = KEYTABS.get(principal);
      if (keytab == null) {
        keytab = kdc.keytab(principal);
        KEYTABS.put(principal, keytab);
      }
      conf.set("fs.braid.security.kerberos.keytab", keytab);
    }
    return conf;
  }

  private static <T> T as(String user, Credentials creds, PrivilegedExceptionAction<T> action)
      throws Exception {
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
    if (creds != null) {
      ugi.addCredentials(creds);
    }
    return ugi.doAs(action);
  }

  @Test
  void aTaskWorksWithTheTokenItsSubmitterCollected() throws Exception {
    Configuration rootConf = conf("root");
    as(
        "root",
        null,
        () -> {
          try (FileSystem fs = FileSystem.newInstance(uri, rootConf)) {
            fs.mkdirs(new Path("/user/alice"));
            fs.setOwner(new Path("/user/alice"), "alice", "alice");
          }
          return null;
        });
    Configuration aliceConf = conf("alice");
    Credentials collected = new Credentials();
    Token<?>[] added =
        as(
            "alice",
            null,
            () -> {
              try (FileSystem fs = FileSystem.newInstance(uri, aliceConf)) {
                try (FSDataOutputStream out = fs.create(new Path("/user/alice/input"))) {
                  out.write("input".getBytes(StandardCharsets.UTF_8));
                }
                assertThat(fs.getCanonicalServiceName()).isEqualTo("braid:" + uri.getAuthority());
                Token<?>[] first =
                    fs.addDelegationTokens("bob/localhost@" + TestKdc.REALM, collected);
                // Already held: none more.
                assertThat(fs.addDelegationTokens("bob", collected)).isEmpty();
                return first;
              }
            });
    assertThat(added).hasSize(1);
    Token<?> token = added[0];
    assertThat(token.getKind()).isEqualTo(BraidTokenIdentifier.KIND);
    assertThat(token.getService()).isEqualTo(new Text("braid:" + uri.getAuthority()));
    BraidTokenIdentifier id = (BraidTokenIdentifier) token.decodeIdentifier();
    assertThat(id.getOwner()).isEqualTo(new Text("alice"));
    assertThat(id.getRenewer()).isEqualTo(new Text("bob")); // the principal's short name
    assertThat(id.getMaxDate()).isGreaterThan(id.getIssueDate());
    assertThat(token.isManaged()).isTrue();

    // The token file a job ships to its tasks.
    Path file = new Path(dir.resolve("tokens").toUri());
    collected.writeTokenStorageFile(file, new Configuration());
    Credentials shipped = Credentials.readTokenStorageFile(file, new Configuration());
    Configuration taskConf = conf(null); // no keytab, no ticket cache
    String read =
        as(
            "alice",
            shipped,
            () -> {
              try (FileSystem fs = FileSystem.newInstance(uri, taskConf)) {
                try (FSDataOutputStream out = fs.create(new Path("/user/alice/part-0"))) {
                  out.write("output".getBytes(StandardCharsets.UTF_8));
                }
                assertThat(fs.getFileStatus(new Path("/user/alice/part-0")).getOwner())
                    .isEqualTo("alice");
                try (var in = fs.open(new Path("/user/alice/input"))) {
                  return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
              }
            });
    assertThat(read).isEqualTo("input");
    // FsShell (hadoop fs) in the task's place: only the token file, no ticket.
    java.nio.file.Path local = dir.resolve("local-file");
    Files.writeString(local, "put by FsShell");
    int shell =
        as(
            "alice",
            shipped,
            () ->
                ToolRunner.run(
                    taskConf,
                    new FsShell(),
                    new String[] {
                      "-put", local.toString(), uri.resolve("/user/alice/shell").toString()
                    }));
    assertThat(shell).isZero();
    assertThat(
            as(
                "alice",
                shipped,
                () -> {
                  try (FileSystem fs = FileSystem.newInstance(uri, taskConf);
                      var in = fs.open(new Path("/user/alice/shell"))) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                  }
                }))
        .isEqualTo("put by FsShell");

    // Renewed by its renewer through Hadoop's Token.renew; refused to anyone else.
    long renewed = as("bob", null, () -> token.renew(conf("bob")));
    assertThat(renewed)
        .isGreaterThan(System.currentTimeMillis())
        .isLessThanOrEqualTo(id.getMaxDate());
    assertThatThrownBy(() -> as("alice", null, () -> token.renew(aliceConf)))
        .isInstanceOf(AccessControlException.class)
        .hasMessageContaining("its renewer is bob");

    // A long task whose token is replaced in its credentials (as Spark's renewal does) goes on
    // with the new one once the old one is cancelled: the file system looks it up per connection.
    UserGroupInformation longTask = UserGroupInformation.createRemoteUser("alice");
    longTask.addCredentials(shipped);
    FileSystem kept =
        longTask.doAs(
            (PrivilegedExceptionAction<FileSystem>) () -> FileSystem.newInstance(uri, taskConf));
    kept.mkdirs(new Path("/user/alice/before"));
    Credentials replacement = new Credentials();
    as(
        "alice",
        null,
        () -> {
          try (FileSystem fs = FileSystem.newInstance(uri, aliceConf)) {
            return fs.addDelegationTokens("bob", replacement);
          }
        });
    longTask.addCredentials(replacement); // same service: replaces the old token

    // Cancelled by its owner: the task's next file system is refused.
    as(
        "alice",
        null,
        () -> {
          token.cancel(aliceConf);
          return null;
        });
    // The open connection's next call is refused; the next connection proves the new token.
    assertThatThrownBy(() -> kept.mkdirs(new Path("/user/alice/during")))
        .isInstanceOf(IOException.class);
    assertThat(kept.mkdirs(new Path("/user/alice/after"))).isTrue();
    kept.close();
    // A task started from the old token file is refused.
    assertThatThrownBy(() -> as("alice", shipped, () -> FileSystem.newInstance(uri, taskConf)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not known");
  }

  @Test
  void hadoopsDtutilFetchesAndPrintsABraidToken() throws Exception {
    Configuration aliceConf = conf("alice");
    Path file = new Path(dir.resolve("dtutil-tokens").toUri());
    int exit =
        as(
            "alice",
            null,
            () ->
                ToolRunner.run(
                    aliceConf,
                    new DtUtilShell(),
                    new String[] {
                      "get", uri.toString(), "-renewer", "bob", file.toUri().getPath()
                    }));
    assertThat(exit).isZero();
    Credentials fetched = Credentials.readTokenStorageFile(file, new Configuration());
    Token<?> token = fetched.getToken(new Text("braid:" + uri.getAuthority()));
    assertThat(token).isNotNull();
    BraidTokenIdentifier id = (BraidTokenIdentifier) token.decodeIdentifier();
    assertThat(id.getOwner()).isEqualTo(new Text("alice"));
    assertThat(id.getRenewer()).isEqualTo(new Text("bob"));
    assertThat(
            ToolRunner.run(
                new Configuration(),
                new DtUtilShell(),
                new String[] {"print", file.toUri().getPath()}))
        .isZero();
  }

  @Test
  void withoutKerberosNoTokenIsCollected() throws Exception {
    try (MiniCluster simple = MiniCluster.builder(dir.resolve("simple")).dataServers(1).build()) {
      simple.start();
      InetSocketAddress a = simple.mdsAddress();
      try (FileSystem fs =
          FileSystem.newInstance(
              URI.create("braid://" + a.getHostString() + ":" + a.getPort() + "/"),
              new Configuration())) {
        assertThat(fs.getCanonicalServiceName()).isNull();
        assertThat(fs.addDelegationTokens("yarn", new Credentials())).isEmpty();
      }
    }
  }
}
