package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * {@code hadoop fs} (Hadoop's {@link FsShell}, run in this JVM through {@link ToolRunner}) against
 * {@code braid://}: what it prints and how it exits where Braid differs from a plain file system.
 */
class FsShellTest {
  private static final URI URI_ = ContractCluster.uri("unit");

  private final Configuration conf = new Configuration();
  private FileSystem fs;
  private Path dir;

  @BeforeEach
  void open(TestInfo info) throws IOException {
    fs = FileSystem.newInstance(URI_, conf);
    dir = fs.makeQualified(new Path("/shell/" + info.getTestMethod().orElseThrow().getName()));
    fs.delete(dir, true);
    assertThat(fs.mkdirs(dir)).isTrue();
  }

  @AfterEach
  void close() throws IOException {
    fs.close();
  }

  /** What one FsShell command printed, and its exit code. */
  private record Run(int exit, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
    }
  }

  /** Runs FsShell as {@code user} with stdout and stderr captured. */
  private Run shell(UserGroupInformation user, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    int exit;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      exit =
          user.doAs(
              (PrivilegedExceptionAction<Integer>)
                  () -> ToolRunner.run(new Configuration(conf), new FsShell(), args));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
      if (!user.equals(UserGroupInformation.getCurrentUser())) {
        FileSystem.closeAllForUGI(user); // the shell's cached instances (this user's only)
      }
    }
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Run shell(String... args) throws Exception {
    return shell(UserGroupInformation.getCurrentUser(), args);
  }

  /** A refusal as HDFS prints it: exit 1, one line naming the command, no stack trace. */
  private static void assertOneLineError(Run r, String command, String... mentions) {
    assertThat(r.exit()).as("exit code of %s; stderr %s", command, r.err()).isEqualTo(1);
    assertThat(r.errLines()).as("stderr of %s", command).hasSize(1);
    assertThat(r.err())
        .startsWith(command + ": ")
        .doesNotContain("Fatal internal error")
        .doesNotContain("\tat ")
        .contains(mentions);
  }

  @Test
  void testReadAndWriteAskTheMdsSoTheSuperuserMayAndOthersMayNot() throws Exception {
    Path f = new Path(dir, "bobs");
    fs.create(f).close();
    fs.setOwner(f, "bob", "bob");
    fs.setPermission(f, new FsPermission((short) 0));
    String file = f.toString();
    UserGroupInformation root =
        UserGroupInformation.createUserForTesting("root", new String[] {"root"});
    UserGroupInformation dave =
        UserGroupInformation.createUserForTesting("dave", new String[] {"dave", "supergroup"});
    UserGroupInformation alice =
        UserGroupInformation.createUserForTesting("alice", new String[] {"staff"});
    UserGroupInformation bob =
        UserGroupInformation.createUserForTesting("bob", new String[] {"bob"});

    // root is the cluster's superuser, dave is in its supergroup: both may read and write a file
    // of someone else's with mode 000, as on HDFS (Hive asks access() before it writes).
    for (UserGroupInformation superuser : List.of(root, dave)) {
      for (String flag : List.of("-r", "-w")) {
        Run r = shell(superuser, "-test", flag, file);
        assertThat(r.exit()).as("%s -test %s", superuser.getShortUserName(), flag).isZero();
        assertThat(r.err()).isEmpty();
      }
    }
    // Anyone else gets the mode's answer: alice (other) and bob (the owner, bits 000) may not.
    for (UserGroupInformation user : List.of(alice, bob)) {
      for (String flag : List.of("-r", "-w")) {
        Run r = shell(user, "-test", flag, file);
        assertThat(r.exit()).as("%s -test %s", user.getShortUserName(), flag).isOne();
        assertThat(r.err()).isEmpty();
      }
    }
    fs.setPermission(f, new FsPermission((short) 0604));
    assertThat(shell(alice, "-test", "-r", file).exit()).isZero();
    assertThat(shell(alice, "-test", "-w", file).exit()).isOne();
    assertThat(shell(root, "-test", "-r", new Path(dir, "none").toString()).exit()).isOne();

    // FileContext asks the MDS too.
    root.doAs(
        (PrivilegedExceptionAction<Void>)
            () -> {
              FileContext.getFileContext(URI_, conf).access(f, FsAction.READ_WRITE);
              return null;
            });

    // The API itself: HDFS's exceptions.
    FileSystem asAlice =
        alice.doAs(
            (PrivilegedExceptionAction<FileSystem>) () -> FileSystem.newInstance(URI_, conf));
    try {
      asAlice.access(f, FsAction.READ);
      assertThatThrownBy(() -> asAlice.access(f, FsAction.READ_WRITE))
          .isInstanceOf(AccessControlException.class)
          .hasMessageContaining("alice")
          .hasMessageContaining(f.toUri().getPath());
      assertThatThrownBy(() -> asAlice.access(f, FsAction.EXECUTE))
          .isInstanceOf(AccessControlException.class);
      assertThatThrownBy(() -> asAlice.access(new Path(dir, "none"), FsAction.READ))
          .isInstanceOf(FileNotFoundException.class);
    } finally {
      asAlice.close();
    }
  }

  @Test
  void setfaclAndGetfaclWorkAndTheAclDecidesAccess() throws Exception {
    Path f = new Path(dir, "f");
    fs.create(f).close();
    fs.setOwner(f, "bob", "bob");
    fs.setPermission(f, new FsPermission((short) 0640));
    String file = f.toString();
    UserGroupInformation alice =
        UserGroupInformation.createUserForTesting("alice", new String[] {"staff"});
    assertThat(shell(alice, "-test", "-r", file).exit()).isOne();

    Run set = shell("-setfacl", "-m", "user:alice:r--", file);
    assertThat(set.exit()).as(set.err()).isZero();
    assertThat(shell(alice, "-test", "-r", file).exit()).isZero(); // the named entry
    assertThat(shell(alice, "-test", "-w", file).exit()).isOne();
    Run get = shell("-getfacl", file);
    assertThat(get.exit()).isZero();
    assertThat(get.out())
        .contains(
            "# file: " + file,
            "# owner: bob",
            "user::rw-",
            "user:alice:r--",
            "group::r--",
            "mask::r--",
            "other::---");
    assertThat(fs.getFileStatus(f).hasAcl()).isTrue();
    assertThat(shell("-ls", file).out()).contains("-rw-r-----+");

    // chmod sets the mask: the named entry loses what the mask lacks.
    fs.setPermission(f, new FsPermission((short) 0600));
    assertThat(shell(alice, "-test", "-r", file).exit()).isOne();
    fs.setPermission(f, new FsPermission((short) 0640));

    // A default ACL is inherited by what is created below.
    Path d = new Path(dir, "shared");
    fs.mkdirs(d);
    Run dflt = shell("-setfacl", "-m", "default:group:staff:rwx", d.toString());
    assertThat(dflt.exit()).as(dflt.err()).isZero();
    Path child = new Path(d, "child");
    fs.create(child).close();
    assertThat(fs.getAclStatus(child).getEntries().toString()).contains("group:staff:rwx");
    Path sub = new Path(d, "sub");
    fs.mkdirs(sub);
    assertThat(shell("-getfacl", sub.toString()).out()).contains("default:group:staff:rwx");

    // Removing entries, the default ACL and the whole ACL.
    assertThat(shell("-setfacl", "-x", "user:alice", file).exit()).isZero();
    assertThat(shell(alice, "-test", "-r", file).exit()).isOne();
    assertThat(shell("-setfacl", "-k", d.toString()).exit()).isZero();
    assertThat(fs.getAclStatus(d).getEntries()).isEmpty();
    assertThat(
            shell("-setfacl", "--set", "user::rw-,group::r--,other::---,user:alice:rw-", file)
                .exit())
        .isZero();
    assertThat(shell(alice, "-test", "-w", file).exit()).isZero();
    assertThat(shell("-setfacl", "-b", file).exit()).isZero();
    assertThat(fs.getFileStatus(f).hasAcl()).isFalse();
    assertThat(fs.getFileStatus(f).getPermission().toShort()).isEqualTo((short) 0640);

    // Refusals name what is wrong, in one line; only the owner or a superuser may change an ACL.
    assertOneLineError(
        shell("-setfacl", "-m", "default:user:alice:rwx", file),
        "setfacl",
        f.toUri().getPath(),
        "only a directory has a default ACL");
    assertOneLineError(
        shell(alice, "-setfacl", "-m", "user:alice:rwx", file),
        "setfacl",
        f.toUri().getPath(),
        "alice");
  }

  @Test
  void snapshotCommandsFailWithOneLine() throws Exception {
    String d = dir.toString();
    assertOneLineError(
        shell("-createSnapshot", d, "s1"), "createSnapshot", d, "snapshots are not supported");
    assertOneLineError(
        shell("-deleteSnapshot", d, "s1"), "deleteSnapshot", d, "snapshots are not supported");
    assertOneLineError(
        shell("-renameSnapshot", d, "s1", "s2"),
        "renameSnapshot",
        d,
        "snapshots are not supported");
  }

  @Test
  void unsupportedOperationsNameTheOperationAndThePath() throws IOException {
    Path f = new Path(dir, "f");
    fs.create(f).close();
    List<ThrowingCall> calls =
        List.of(
            () -> fs.createSnapshot(dir, "s"),
            () -> fs.renameSnapshot(dir, "s", "t"),
            () -> fs.deleteSnapshot(dir, "s"),
            () -> fs.setStoragePolicy(f, "HOT"),
            () -> fs.unsetStoragePolicy(f),
            () -> fs.getStoragePolicy(f),
            () -> fs.satisfyStoragePolicy(f));
    for (ThrowingCall call : calls) {
      assertThatThrownBy(call::run)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("not supported by Braid")
          .hasRootCauseInstanceOf(UnsupportedOperationException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
    assertThatThrownBy(() -> fs.createSnapshot(dir, "s"))
        .hasMessageStartingWith("createSnapshot `" + dir + "'")
        .hasMessageContaining("snapshots are not supported by Braid");
    assertThatThrownBy(() -> fs.getAllStoragePolicies())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("storage policies are not supported by Braid");
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws IOException;
  }
}
