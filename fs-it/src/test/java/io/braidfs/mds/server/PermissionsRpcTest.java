package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.AccessRequest;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SymlinkRequest;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Permission checks end to end, with the user and groups each client states in its Hello: write and
 * search on parents, search on every intermediate directory, the sticky bit, chmod and chown rules,
 * and the superuser and supergroup (ARCHITECTURE section 8, {@code mds.access.Permissions}). Every
 * denial is {@code PERMISSION_DENIED} and leaves the tree as it was.
 */
class PermissionsRpcTest {
  @TempDir Path dir;
  private MdsFixture mds;
  private RpcClient root;

  /** A call that is expected to fail. */
  @FunctionalInterface
  private interface Call {
    void run() throws IOException;
  }

  private void start(MdsFixture.Builder builder) throws IOException {
    mds = builder.build().start();
    root = mds.superuser();
  }

  private void start() throws IOException {
    start(MdsFixture.builder(dir));
  }

  @AfterEach
  void stop() {
    if (mds != null) {
      mds.close();
    }
  }

  // ---- helpers ----------------------------------------------------------------------------------

  private Attributes mkdir(RpcClient c, String path, int mode) throws IOException {
    return c.callSync(
            mds.address(),
            RpcMethod.MKDIR,
            MkdirRequest.newBuilder().setPath(path).setMode(mode).build())
        .getAttributes();
  }

  /** Creates and commits an empty file. */
  private Attributes create(RpcClient c, String path, int mode) throws IOException {
    Attributes a =
        c.callSync(
                mds.address(),
                RpcMethod.CREATE,
                CreateRequest.newBuilder().setPath(path).setMode(mode).build())
            .getAttributes();
    return c.callSync(
            mds.address(),
            RpcMethod.COMMIT,
            CommitRequest.newBuilder().setPath(path).setInodeId(a.getInodeId()).build())
        .getAttributes();
  }

  private Attributes getAttr(RpcClient c, String path) throws IOException {
    return c.callSync(
            mds.address(), RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  private Attributes setAttr(RpcClient c, SetAttrRequest.Builder request) throws IOException {
    return c.callSync(mds.address(), RpcMethod.SET_ATTR, request.build()).getAttributes();
  }

  private Attributes chown(String path, String user) throws IOException {
    return setAttr(root, SetAttrRequest.newBuilder().setPath(path).setUser(user));
  }

  private void unlink(RpcClient c, String path) throws IOException {
    c.callSync(mds.address(), RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath(path).build());
  }

  private void rename(RpcClient c, String from, String to) throws IOException {
    c.callSync(
        mds.address(),
        RpcMethod.RENAME,
        RenameRequest.newBuilder()
            .setSourcePath(from)
            .setDestinationPath(to)
            .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
            .build());
  }

  private List<String> tree() throws IOException {
    return ServerTree.dump(root, mds.address());
  }

  private static void assertStatus(Status expected, String what, Call call) {
    try {
      call.run();
    } catch (IOException e) {
      assertThat(StatusExceptions.statusOf(e)).as("%s: %s", what, e).isEqualTo(expected);
      return;
    }
    fail("%s: succeeded, expected %s", what, expected);
  }

  private static void assertDenied(String what, Call call) {
    assertStatus(Status.PERMISSION_DENIED, what, call);
  }

  // ---- tests ------------------------------------------------------------------------------------

  @Test
  void creatingInADirectoryOwnedBySomeoneElseIsDeniedAndCreatesNothing() throws IOException {
    start();
    assertThat(getAttr(root, "/").getUser()).isEqualTo("root");
    mkdir(root, "/home", 0755);
    mkdir(root, "/home/bob", 0755);
    chown("/home/bob", "bob");
    RpcClient alice = mds.client("alice", "alice");
    List<String> before = tree();

    assertDenied("alice creates in bob's 0755 dir", () -> create(alice, "/home/bob/f", 0644));
    assertDenied("alice mkdirs in bob's 0755 dir", () -> mkdir(alice, "/home/bob/d", 0755));
    assertDenied(
        "alice makes a symlink in bob's 0755 dir",
        () ->
            alice.callSync(
                mds.address(),
                RpcMethod.SYMLINK,
                SymlinkRequest.newBuilder().setPath("/home/bob/l").setTarget("/home").build()));
    assertDenied(
        "alice creates with parents under bob's 0755 dir",
        () ->
            alice.callSync(
                mds.address(),
                RpcMethod.CREATE,
                CreateRequest.newBuilder()
                    .setPath("/home/bob/x/y")
                    .setMode(0644)
                    .setCreateParents(true)
                    .build()));
    assertDenied("alice creates in the root (0755, root's)", () -> create(alice, "/f", 0644));
    assertThat(tree()).as("nothing created by the denied calls").isEqualTo(before);

    RpcClient bob = mds.client("bob", "bob");
    assertThat(create(bob, "/home/bob/f", 0644).getUser()).isEqualTo("bob");
  }

  @Test
  void searchPermissionIsNeededOnEveryIntermediateDirectory() throws IOException {
    start();
    mkdir(root, "/secret", 0700);
    mkdir(root, "/secret/pub", 0777);
    create(root, "/secret/pub/f", 0666);
    RpcClient alice = mds.client("alice", "alice");
    List<String> before = tree();

    assertDenied("getattr below a 0700 dir", () -> getAttr(alice, "/secret/pub/f"));
    assertDenied(
        "getattr of a missing name below a 0700 dir (not NOT_FOUND: existence is not revealed)",
        () -> getAttr(alice, "/secret/nothing"));
    assertDenied("create below a 0700 dir", () -> create(alice, "/secret/pub/g", 0644));
    assertDenied(
        "readdir below a 0700 dir",
        () -> ServerTree.readDir(alice, mds.address(), "/secret/pub", 10, false));
    assertThat(tree()).isEqualTo(before);

    setAttr(root, SetAttrRequest.newBuilder().setPath("/secret").setMode(0711));
    assertThat(getAttr(alice, "/secret/pub/f").getMode()).isEqualTo(0666);
    assertThat(create(alice, "/secret/pub/g", 0644).getUser()).isEqualTo("alice");
    assertStatus(Status.NOT_FOUND, "search allowed now", () -> getAttr(alice, "/secret/nothing"));
    assertDenied(
        "readdir of a 0711 dir (search but no read)",
        () -> ServerTree.readDir(alice, mds.address(), "/secret", 10, false));
  }

  @Test
  void theStickyBitKeepsOtherUsersFromRemovingOrRenamingEntries() throws IOException {
    start();
    mkdir(root, "/tmp", 01777);
    RpcClient alice = mds.client("alice", "alice");
    RpcClient bob = mds.client("bob", "bob");
    create(alice, "/tmp/a", 0666);
    create(bob, "/tmp/b", 0666);
    List<String> before = tree();

    assertDenied("bob unlinks alice's file", () -> unlink(bob, "/tmp/a"));
    assertDenied(
        "bob deletes alice's file",
        () ->
            bob.callSync(
                mds.address(),
                RpcMethod.DELETE,
                DeleteRequest.newBuilder().setPath("/tmp/a").build()));
    assertDenied("bob renames alice's file", () -> rename(bob, "/tmp/a", "/tmp/c"));
    assertDenied("bob renames over alice's file", () -> rename(bob, "/tmp/b", "/tmp/a"));
    assertThat(tree()).as("nothing changed by the denied calls").isEqualTo(before);
    assertThat(getAttr(root, "/tmp/a").getUser()).isEqualTo("alice");

    rename(alice, "/tmp/a", "/tmp/a2");
    unlink(alice, "/tmp/a2");
    unlink(root, "/tmp/b");

    chown("/tmp", "carol");
    create(alice, "/tmp/d", 0666);
    RpcClient carol = mds.client("carol", "carol");
    unlink(carol, "/tmp/d"); // the sticky directory's owner may
    assertThat(ServerTree.readDir(root, mds.address(), "/tmp", 10, true)).isEmpty();
  }

  @Test
  void chmodNeedsTheOwnerOrASuperuser() throws IOException {
    start();
    mkdir(root, "/pub", 0777);
    RpcClient alice = mds.client("alice", "alice");
    RpcClient bob = mds.client("bob", "bob");
    RpcClient dave = mds.client("dave", "dave", "supergroup");
    create(alice, "/pub/f", 0644);

    assertDenied(
        "bob chmods alice's file",
        () -> setAttr(bob, SetAttrRequest.newBuilder().setPath("/pub/f").setMode(0777)));
    assertThat(getAttr(root, "/pub/f").getMode()).isEqualTo(0644);
    assertThat(
            setAttr(alice, SetAttrRequest.newBuilder().setPath("/pub/f").setMode(0600)).getMode())
        .isEqualTo(0600);
    assertThat(setAttr(root, SetAttrRequest.newBuilder().setPath("/pub/f").setMode(0640)).getMode())
        .isEqualTo(0640);
    assertThat(setAttr(dave, SetAttrRequest.newBuilder().setPath("/pub/f").setMode(0604)).getMode())
        .as("a supergroup member")
        .isEqualTo(0604);
  }

  @Test
  void theSuperuserAndSupergroupMembersPassEveryCheck() throws IOException {
    start();
    mkdir(root, "/home", 0755);
    mkdir(root, "/home/bob", 0700);
    create(root, "/home/bob/f", 0);
    chown("/home/bob/f", "bob");
    chown("/home/bob", "bob");
    RpcClient dave = mds.client("dave", "dave", "supergroup");
    RpcClient eve = mds.client("eve", "eve", "staff");

    assertDenied("eve looks below bob's 0700 dir", () -> getAttr(eve, "/home/bob/f"));
    assertThat(getAttr(dave, "/home/bob/f").getUser()).isEqualTo("bob");
    assertThat(create(dave, "/home/bob/g", 0644).getUser()).isEqualTo("dave");
    assertThat(ServerTree.readDir(dave, mds.address(), "/home/bob", 10, false)).hasSize(2);
    unlink(dave, "/home/bob/f");
    assertThat(create(root, "/home/bob/h", 0).getMode()).isZero();
    unlink(root, "/home/bob/g");
    assertThat(ServerTree.readDir(root, mds.address(), "/home/bob", 10, true))
        .extracting(e -> e.getName())
        .containsExactly("h");
  }

  private void access(RpcClient c, String path, int mask) throws IOException {
    c.callSync(
        mds.address(),
        RpcMethod.ACCESS,
        AccessRequest.newBuilder().setPath(path).setMask(mask).build());
  }

  @Test
  void accessAnswersWithTheChecksEveryCallMakes() throws IOException {
    start();
    mkdir(root, "/data", 0755);
    create(root, "/data/f", 0);
    setAttr(root, SetAttrRequest.newBuilder().setPath("/data/f").setUser("bob").setGroup("staff"));
    RpcClient alice = mds.client("alice", "alice", "staff");
    RpcClient bob = mds.client("bob", "bob");
    RpcClient dave = mds.client("dave", "dave", "supergroup");
    RpcClient eve = mds.client("eve", "eve");
    int r = 4;
    int w = 2;
    int x = 1;

    // Mode 000, owned by bob: the superuser and a supergroup member may read and write, and
    // nobody may execute a file without an x bit.
    access(root, "/data/f", r | w);
    access(dave, "/data/f", r | w);
    assertDenied("the superuser executes a file with no x bit", () -> access(root, "/data/f", x));
    assertDenied("bob reads his 000 file", () -> access(bob, "/data/f", r));
    assertDenied("alice reads bob's 000 file", () -> access(alice, "/data/f", r));
    assertDenied("alice writes bob's 000 file", () -> access(alice, "/data/f", w));
    access(alice, "/data/f", 0); // F_OK: she can reach it

    // One class applies: owner, else group, else other.
    setAttr(root, SetAttrRequest.newBuilder().setPath("/data/f").setMode(0640));
    access(bob, "/data/f", r | w);
    access(alice, "/data/f", r);
    assertDenied("alice (group) writes a 0640 file", () -> access(alice, "/data/f", w));
    assertDenied("eve (other) reads a 0640 file", () -> access(eve, "/data/f", r));

    // A final symlink is followed; every directory on the way needs search.
    root.callSync(
        mds.address(),
        RpcMethod.SYMLINK,
        SymlinkRequest.newBuilder().setPath("/data/l").setTarget("/data/f").build());
    access(alice, "/data/l", r);
    assertDenied("eve reads through a symlink", () -> access(eve, "/data/l", r));
    mkdir(root, "/secret", 0700);
    create(root, "/secret/g", 0777);
    assertDenied("alice reaches below a 0700 dir", () -> access(alice, "/secret/g", 0));
    access(root, "/secret/g", r | w | x);
    access(alice, "/data", r | x);
    assertDenied("alice writes root's 0755 dir", () -> access(alice, "/data", w));

    assertStatus(Status.NOT_FOUND, "a missing path", () -> access(alice, "/data/none", 0));
    assertStatus(Status.INVALID_ARGUMENT, "mask 8", () -> access(root, "/data/f", 8));
  }

  @Test
  void aConfiguredSuperuserOwnsTheRootAndRootIsNobodySpecial() throws IOException {
    start(MdsFixture.builder(dir).config("braid.mds.security.superuser", "admin"));
    assertThat(getAttr(root, "/").getUser()).isEqualTo("admin");
    RpcClient plainRoot = mds.client("root", "root");
    assertDenied("user root creates in admin's 0755 root", () -> mkdir(plainRoot, "/r", 0755));
    assertThat(mkdir(root, "/a", 0700).getUser()).isEqualTo("admin");
  }

  @Test
  void ownerChangesFollowChownRules() throws IOException {
    start();
    mkdir(root, "/pub", 0777);
    RpcClient alice = mds.client("alice", "alice", "staff");
    RpcClient bob = mds.client("bob", "bob", "staff");
    create(alice, "/pub/f", 0644);

    assertDenied(
        "alice gives her file away",
        () -> setAttr(alice, SetAttrRequest.newBuilder().setPath("/pub/f").setUser("bob")));
    assertThat(getAttr(root, "/pub/f").getUser()).isEqualTo("alice");
    assertThat(
            setAttr(alice, SetAttrRequest.newBuilder().setPath("/pub/f").setUser("alice"))
                .getUser())
        .as("setting the current owner again")
        .isEqualTo("alice");
    assertThat(
            setAttr(alice, SetAttrRequest.newBuilder().setPath("/pub/f").setGroup("staff"))
                .getGroup())
        .as("a group alice belongs to")
        .isEqualTo("staff");
    assertDenied(
        "alice sets a group she is not in",
        () -> setAttr(alice, SetAttrRequest.newBuilder().setPath("/pub/f").setGroup("wheel")));
    assertDenied(
        "bob, not the owner, sets the group",
        () -> setAttr(bob, SetAttrRequest.newBuilder().setPath("/pub/f").setGroup("bob")));
    assertThat(getAttr(root, "/pub/f").getGroup()).isEqualTo("staff");

    Attributes given =
        setAttr(
            root, SetAttrRequest.newBuilder().setPath("/pub/f").setUser("bob").setGroup("wheel"));
    assertThat(given.getUser()).isEqualTo("bob");
    assertThat(given.getGroup()).isEqualTo("wheel");
  }

  @Test
  void withPermissionsOffEveryCallerMayDoEverything() throws IOException {
    start(MdsFixture.builder(dir).config("braid.mds.security.permissions", "false"));
    mkdir(root, "/home", 0755);
    mkdir(root, "/home/bob", 0700);
    chown("/home/bob", "bob");
    RpcClient alice = mds.client("alice", "alice");
    assertThat(create(alice, "/home/bob/f", 0644).getUser()).isEqualTo("alice");
    assertThat(
            setAttr(alice, SetAttrRequest.newBuilder().setPath("/home/bob").setMode(0777))
                .getMode())
        .isEqualTo(0777);
  }
}
