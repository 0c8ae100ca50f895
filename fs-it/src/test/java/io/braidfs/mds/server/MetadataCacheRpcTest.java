package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RmdirRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SymlinkRequest;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stat and lookup through the MDS's in-memory cache of inodes and entries stay current: one client
 * warms the cache, another changes the namespace (chmod, chown, times, rename, unlink, rmdir and a
 * new directory of the same name), and the first sees every change at once. Each check first shows
 * that the answer came from the cache (its hit count grew), so a stale cache would fail it.
 */
class MetadataCacheRpcTest {
  @TempDir Path dir;

  private MdsFixture mds;
  private RpcClient alice;
  private RpcClient bob;

  @BeforeEach
  void start() throws IOException {
    mds = MdsFixture.builder(dir).build().start();
    alice = mds.client("alice", "staff");
    bob = mds.client("bob", "staff");
    setAttr(mds.superuser(), SetAttrRequest.newBuilder().setPath("/").setMode(0777));
    mkdir(bob, "/d", 0755);
    create(bob, "/d/f", 0644);
  }

  @AfterEach
  void stop() {
    mds.close();
  }

  private void mkdir(RpcClient c, String path, int mode) throws IOException {
    c.callSync(
        mds.address(),
        RpcMethod.MKDIR,
        MkdirRequest.newBuilder().setPath(path).setMode(mode).build());
  }

  private void create(RpcClient c, String path, int mode) throws IOException {
    c.callSync(
        mds.address(),
        RpcMethod.CREATE,
        CreateRequest.newBuilder().setPath(path).setMode(mode).build());
  }

  private Attributes stat(RpcClient c, String path) throws IOException {
    return c.callSync(
            mds.address(), RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  private Attributes lookup(RpcClient c, String path) throws IOException {
    return c.callSync(
            mds.address(),
            RpcMethod.LOOKUP,
            LookupRequest.newBuilder().setPath(path).setFollowSymlink(true).build())
        .getAttributes();
  }

  private void setAttr(RpcClient c, SetAttrRequest.Builder r) throws IOException {
    c.callSync(mds.address(), RpcMethod.SET_ATTR, r.build());
  }

  private long hits() {
    return mds.server().cache().hits();
  }

  /** Stats {@code path} twice as alice; the second answer must come from the cache. */
  private Attributes warm(String path) throws IOException {
    stat(alice, path);
    long before = hits();
    Attributes a = stat(alice, path);
    assertThat(hits()).as("answered from the cache").isGreaterThan(before);
    return a;
  }

  private static Status statusOf(Throwable t) {
    return StatusExceptions.statusOf(t);
  }

  @Test
  void chmodChownAndTimesAreSeenAtOnce() throws IOException {
    assertThat(warm("/d/f").getMode()).isEqualTo(0644);
    setAttr(bob, SetAttrRequest.newBuilder().setPath("/d/f").setMode(0600));
    assertThat(stat(alice, "/d/f").getMode()).isEqualTo(0600);

    warm("/d/f");
    setAttr(
        mds.superuser(),
        SetAttrRequest.newBuilder().setPath("/d/f").setUser("carol").setGroup("x"));
    Attributes owned = stat(alice, "/d/f");
    assertThat(owned.getUser()).isEqualTo("carol");
    assertThat(owned.getGroup()).isEqualTo("x");

    warm("/d/f");
    setAttr(mds.superuser(), SetAttrRequest.newBuilder().setPath("/d/f").setMtimeNs(123_000L));
    assertThat(stat(alice, "/d/f").getMtimeNs()).isEqualTo(123_000L);
    assertThat(lookup(alice, "/d/f").getMtimeNs()).isEqualTo(123_000L);
  }

  @Test
  void aDirectoryThatLosesSearchPermissionStopsResolution() throws IOException {
    warm("/d/f");
    setAttr(bob, SetAttrRequest.newBuilder().setPath("/d").setMode(0700));
    assertThatThrownBy(() -> stat(alice, "/d/f"))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
    assertThat(stat(bob, "/d/f").getMode()).isEqualTo(0644);
  }

  @Test
  void renameAndUnlinkAreSeenAtOnce() throws IOException {
    long id = warm("/d/f").getInodeId();
    bob.callSync(
        mds.address(),
        RpcMethod.RENAME,
        RenameRequest.newBuilder().setSourcePath("/d/f").setDestinationPath("/d/g").build());
    assertThatThrownBy(() -> stat(alice, "/d/f"))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.NOT_FOUND));
    assertThat(stat(alice, "/d/g").getInodeId()).isEqualTo(id);

    warm("/d/g");
    bob.callSync(
        mds.address(), RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath("/d/g").build());
    assertThatThrownBy(() -> stat(alice, "/d/g"))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.NOT_FOUND));
    assertThatThrownBy(() -> lookup(alice, "/d/g"))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.NOT_FOUND));
  }

  @Test
  void aDirectoryReplacedByANewOneOfTheSameNameIsSeen() throws IOException {
    mkdir(bob, "/d/sub", 0755);
    long old = warm("/d/sub").getInodeId();
    bob.callSync(
        mds.address(), RpcMethod.RMDIR, RmdirRequest.newBuilder().setPath("/d/sub").build());
    assertThatThrownBy(() -> stat(alice, "/d/sub"))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.NOT_FOUND));
    mkdir(bob, "/d/sub", 0700);
    Attributes fresh = stat(alice, "/d/sub");
    assertThat(fresh.getInodeId()).isNotEqualTo(old);
    assertThat(fresh.getMode()).isEqualTo(0700);
  }

  @Test
  void aNewEntryInACachedDirectoryIsSeenAndTheDirectoryTimesMove() throws IOException {
    long mtime = warm("/d").getMtimeNs();
    warm("/d/f");
    create(bob, "/d/h", 0640);
    assertThat(stat(alice, "/d/h").getMode()).isEqualTo(0640);
    assertThat(stat(alice, "/d").getMtimeNs()).isGreaterThanOrEqualTo(mtime);
    assertThat(stat(alice, "/d").getNlink()).isEqualTo(2);
    mkdir(bob, "/d/e", 0755);
    assertThat(stat(alice, "/d").getNlink()).isEqualTo(3);
  }

  @Test
  void aSymlinkIsFollowedThroughTheCache() throws IOException {
    bob.callSync(
        mds.address(),
        RpcMethod.SYMLINK,
        SymlinkRequest.newBuilder().setPath("/l").setTarget("/d").build());
    lookup(alice, "/l/f");
    assertThat(lookup(alice, "/l/f").getMode()).isEqualTo(0644);
    bob.callSync(
        mds.address(),
        RpcMethod.RENAME,
        RenameRequest.newBuilder().setSourcePath("/d/f").setDestinationPath("/d/moved").build());
    assertThatThrownBy(() -> lookup(alice, "/l/f"))
        .satisfies(e -> assertThat(statusOf(e)).isEqualTo(Status.NOT_FOUND));
    assertThat(lookup(alice, "/l/moved").getMode()).isEqualTo(0644);
  }

  @Test
  void withTheCacheOffEverythingStillWorks() throws IOException {
    mds.close();
    mds =
        MdsFixture.builder(dir.resolve("nocache"))
            .config("braid.mds.store.cache-entries", "0")
            .build()
            .start();
    RpcClient c = mds.superuser();
    mkdir(c, "/x", 0755);
    create(c, "/x/f", 0644);
    assertThat(stat(c, "/x/f").getMode()).isEqualTo(0644);
    setAttr(c, SetAttrRequest.newBuilder().setPath("/x/f").setMode(0600));
    assertThat(stat(c, "/x/f").getMode()).isEqualTo(0600);
    assertThat(lookup(c, "/x/f").getMode()).isEqualTo(0600);
    assertThat(mds.server().cache().hits()).isZero();
  }
}
