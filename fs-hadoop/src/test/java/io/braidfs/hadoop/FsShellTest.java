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
import org.apache.hadoop.fs.permission.AclEntry;
import org.apache.hadoop.fs.permission.AclEntryScope;
import org.apache.hadoop.fs.permission.AclEntryType;
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
  void aclCommandsFailWithOneLine() throws Exception {
    Path f = new Path(dir, "f");
    fs.create(f).close();
    fs.setPermission(f, new FsPermission((short) 0640));
    String file = f.toString();
    String d = dir.toString();

    assertOneLineError(
        shell("-setfacl", "-m", "user:alice:r--", file),
        "setfacl",
        file,
        "ACLs are not supported by Braid");
    assertOneLineError(shell("-setfacl", "-x", "user:alice", file), "setfacl", file, "ACLs");
    assertOneLineError(shell("-setfacl", "-b", file), "setfacl", file, "ACLs");
    assertOneLineError(shell("-setfacl", "-k", d), "setfacl", d, "ACLs");
    assertOneLineError(
        shell("-setfacl", "--set", "user::rw-,group::r--,other::---", file),
        "setfacl",
        file,
        "ACLs");

    // Without ACLs getfacl shows the permission bits as a minimal ACL, as HDFS does with ACLs
    // disabled: it asks the file system only for files that have an ACL, and none has.
    Run get = shell("-getfacl", file);
    assertThat(get.exit()).isZero();
    assertThat(get.err()).isEmpty();
    assertThat(get.out()).contains("# file: " + file, "user::rw-", "group::r--", "other::---");
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
    List<AclEntry> acl =
        List.of(
            new AclEntry.Builder()
                .setScope(AclEntryScope.ACCESS)
                .setType(AclEntryType.USER)
                .setName("alice")
                .setPermission(FsAction.READ)
                .build());
    List<ThrowingCall> calls =
        List.of(
            () -> fs.modifyAclEntries(f, acl),
            () -> fs.removeAclEntries(f, acl),
            () -> fs.removeDefaultAcl(f),
            () -> fs.removeAcl(f),
            () -> fs.setAcl(f, acl),
            () -> fs.getAclStatus(f),
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
    assertThatThrownBy(() -> fs.setAcl(f, acl))
        .hasMessageStartingWith("setAcl `" + f + "'")
        .hasMessageContaining("ACLs are not supported by Braid");
    assertThatThrownBy(() -> fs.getAllStoragePolicies())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("storage policies are not supported by Braid");
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws IOException;
  }
}
