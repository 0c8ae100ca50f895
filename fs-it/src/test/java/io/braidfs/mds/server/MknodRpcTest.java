package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.ConcatRequest;
import io.braidfs.proto.ContentSummaryRequest;
import io.braidfs.proto.ContentSummaryResponse;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.FileType;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetXattrRequest;
import io.braidfs.proto.LinkRequest;
import io.braidfs.proto.ListXattrsRequest;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.MknodRequest;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.RemoveXattrRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetXattrRequest;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Special files (FIFOs, character and block devices, sockets) over real RPC: {@code Mknod} makes
 * them as a create would (parent checks, owner, parent times, {@code ALREADY_EXISTS}), every
 * namespace operation treats them as the non-directories they are, and every content operation
 * refuses them with {@code INVALID_ARGUMENT}.
 */
class MknodRpcTest {
  /** makedev(1, 3) as glibc encodes it (/dev/null). */
  private static final long NULL_DEVICE = 0x103;

  /** makedev(259, 70000): a major above 255 and a minor above 255 use the high bits. */
  private static final long BIG_DEVICE =
      ((259L & 0xfff) << 8) | (70000L & 0xff) | ((70000L & ~0xffL) << 12);

  @TempDir Path dir;
  private MdsFixture mds;
  private RpcClient root;

  /** A call that is expected to fail. */
  @FunctionalInterface
  private interface Call {
    void run() throws IOException;
  }

  @BeforeEach
  void start() throws IOException {
    mds = MdsFixture.builder(dir).build().start();
    root = mds.superuser();
    root.callSync(
        at(), RpcMethod.MKDIR, MkdirRequest.newBuilder().setPath("/d").setMode(0777).build());
  }

  @AfterEach
  void stop() {
    mds.close();
  }

  private InetSocketAddress at() {
    return mds.address();
  }

  private Attributes mknod(RpcClient c, String path, FileType type, int mode, long rdev)
      throws IOException {
    return c.callSync(
            at(),
            RpcMethod.MKNOD,
            MknodRequest.newBuilder()
                .setPath(path)
                .setType(type)
                .setMode(mode)
                .setRdev(rdev)
                .build())
        .getAttributes();
  }

  private Attributes getAttr(String path) throws IOException {
    return root.callSync(
            at(), RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  /** The entries (with attributes) of the root and of /d. */
  private List<DirEntry> snapshot() throws IOException {
    List<DirEntry> out = new java.util.ArrayList<>();
    for (String d : List.of("/", "/d")) {
      out.addAll(
          root.callSync(at(), RpcMethod.READ_DIR, ReadDirRequest.newBuilder().setPath(d).build())
              .getEntriesList());
    }
    return out;
  }

  private static void assertStatus(Status expected, String what, Call call) {
    assertStatus(expected, null, what, call);
  }

  private static void assertStatus(Status expected, String message, String what, Call call) {
    try {
      call.run();
    } catch (IOException e) {
      assertThat(StatusExceptions.statusOf(e)).as("%s: %s", what, e).isEqualTo(expected);
      if (message != null) {
        assertThat(e.getMessage()).as(what).contains(message);
      }
      return;
    }
    fail("%s: succeeded, expected %s", what, expected);
  }

  @Test
  void eachTypeIsMadeWithItsModeOwnerDeviceAndTimesAndListedWithItsType() throws IOException {
    RpcClient alice = mds.client("alice", "alice");
    Map<String, FileType> made =
        Map.of(
            "/d/fifo", FileType.FILE_TYPE_FIFO,
            "/d/chr", FileType.FILE_TYPE_CHARACTER_DEVICE,
            "/d/blk", FileType.FILE_TYPE_BLOCK_DEVICE,
            "/d/sock", FileType.FILE_TYPE_SOCKET);
    for (var e : made.entrySet()) {
      boolean device =
          e.getValue() == FileType.FILE_TYPE_CHARACTER_DEVICE
              || e.getValue() == FileType.FILE_TYPE_BLOCK_DEVICE;
      long rdev = e.getValue() == FileType.FILE_TYPE_BLOCK_DEVICE ? BIG_DEVICE : NULL_DEVICE;
      Attributes a = mknod(alice, e.getKey(), e.getValue(), 0640, device ? rdev : 0);
      assertThat(a.getType()).as(e.getKey()).isEqualTo(e.getValue());
      assertThat(a.getMode()).isEqualTo(0640);
      assertThat(a.getUser()).isEqualTo("alice");
      assertThat(a.getGroup())
          .as("the parent's group, as a create")
          .isEqualTo(getAttr("/d").getGroup());
      assertThat(a.getNlink()).isEqualTo(1);
      assertThat(a.getSize()).isZero();
      assertThat(a.getRdev()).isEqualTo(device ? rdev : 0);
      assertThat(a.hasLayout()).as("no layout").isFalse();
      assertThat(a.getMtimeNs()).isEqualTo(a.getCtimeNs()).isEqualTo(a.getAtimeNs());
      Attributes parent = getAttr("/d");
      assertThat(parent.getMtimeNs()).as("parent mtime").isEqualTo(a.getCtimeNs());
      assertThat(parent.getCtimeNs()).as("parent ctime").isEqualTo(a.getCtimeNs());
      assertThat(getAttr(e.getKey())).isEqualTo(a);
      assertThat(
              root.callSync(
                      at(),
                      RpcMethod.LOOKUP,
                      LookupRequest.newBuilder().setPath(e.getKey()).setFollowSymlink(true).build())
                  .getAttributes())
          .isEqualTo(a);
    }

    List<DirEntry> entries =
        root.callSync(at(), RpcMethod.READ_DIR, ReadDirRequest.newBuilder().setPath("/d").build())
            .getEntriesList();
    assertThat(entries.stream().collect(Collectors.toMap(DirEntry::getName, DirEntry::getType)))
        .isEqualTo(
            made.entrySet().stream()
                .collect(Collectors.toMap(e -> e.getKey().substring(3), Map.Entry::getValue)));
    for (DirEntry e : entries) {
      assertThat(e.getAttributes().getType()).isEqualTo(e.getType());
    }

    mds.restart();
    root = mds.superuser();
    assertThat(getAttr("/d/blk").getRdev()).as("kept across a restart").isEqualTo(BIG_DEVICE);
    assertThat(getAttr("/d/fifo").getType()).isEqualTo(FileType.FILE_TYPE_FIFO);
  }

  @Test
  void aTakenNameABadTypeOrDeviceAndADeniedParentAreRefusedAndCreateNothing() throws IOException {
    mknod(root, "/d/p", FileType.FILE_TYPE_FIFO, 0644, 0);
    List<DirEntry> before = snapshot();
    for (String taken : List.of("/d/p", "/d", "/")) {
      assertStatus(
          Status.ALREADY_EXISTS,
          "mknod over " + taken,
          () -> mknod(root, taken, FileType.FILE_TYPE_SOCKET, 0644, 0));
    }
    for (FileType t :
        List.of(
            FileType.FILE_TYPE_REGULAR,
            FileType.FILE_TYPE_DIRECTORY,
            FileType.FILE_TYPE_SYMLINK,
            FileType.FILE_TYPE_UNSPECIFIED)) {
      assertStatus(Status.INVALID_ARGUMENT, "mknod of " + t, () -> mknod(root, "/d/x", t, 0644, 0));
    }
    assertStatus(
        Status.INVALID_ARGUMENT,
        "a FIFO with a device number",
        () -> mknod(root, "/d/x", FileType.FILE_TYPE_FIFO, 0644, NULL_DEVICE));
    assertStatus(
        Status.INVALID_ARGUMENT,
        "type bits in the mode",
        () -> mknod(root, "/d/x", FileType.FILE_TYPE_FIFO, 010644, 0));
    assertStatus(
        Status.NOT_FOUND,
        "a missing parent",
        () -> mknod(root, "/d/no/x", FileType.FILE_TYPE_FIFO, 0644, 0));
    assertStatus(
        Status.NOT_DIRECTORY,
        "a FIFO as a parent",
        () -> mknod(root, "/d/p/x", FileType.FILE_TYPE_FIFO, 0644, 0));
    RpcClient alice = mds.client("alice", "alice");
    assertStatus(
        Status.PERMISSION_DENIED,
        "alice in the root (0755, root's)",
        () -> mknod(alice, "/x", FileType.FILE_TYPE_CHARACTER_DEVICE, 0644, NULL_DEVICE));
    assertThat(snapshot()).as("nothing made or touched").isEqualTo(before);

    Attributes deep =
        root.callSync(
                at(),
                RpcMethod.MKNOD,
                MknodRequest.newBuilder()
                    .setPath("/a/b/s")
                    .setType(FileType.FILE_TYPE_SOCKET)
                    .setMode(0755)
                    .setCreateParents(true)
                    .build())
            .getAttributes();
    assertThat(deep.getType()).isEqualTo(FileType.FILE_TYPE_SOCKET);
    assertThat(getAttr("/a/b").getType()).isEqualTo(FileType.FILE_TYPE_DIRECTORY);
  }

  @Test
  void renameLinkChmodChownTimesAndXattrsWorkAndUnlinkRemovesTheInode() throws IOException {
    Attributes made = mknod(root, "/d/c", FileType.FILE_TYPE_CHARACTER_DEVICE, 0600, NULL_DEVICE);
    root.callSync(
        at(),
        RpcMethod.RENAME,
        RenameRequest.newBuilder()
            .setSourcePath("/d/c")
            .setDestinationPath("/d/c2")
            .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
            .build());
    Attributes linked =
        root.callSync(
                at(),
                RpcMethod.LINK,
                LinkRequest.newBuilder().setExistingPath("/d/c2").setNewPath("/d/c3").build())
            .getAttributes();
    assertThat(linked.getNlink()).isEqualTo(2);
    assertThat(linked.getInodeId()).isEqualTo(made.getInodeId());
    assertThat(linked.getRdev()).isEqualTo(NULL_DEVICE);

    Attributes changed =
        root.callSync(
                at(),
                RpcMethod.SET_ATTR,
                SetAttrRequest.newBuilder()
                    .setPath("/d/c3")
                    .setMode(0660)
                    .setUser("bob")
                    .setGroup("staff")
                    .setAtimeNs(1_000_000_000L)
                    .setMtimeNs(2_000_000_000L)
                    .build())
            .getAttributes();
    changed =
        root.callSync(
                at(),
                RpcMethod.SET_ATTR,
                SetAttrRequest.newBuilder().setPath("/d/c3").setUid(1001).setGid(50).build())
            .getAttributes();
    assertThat(changed.getMode()).isEqualTo(0660);
    assertThat(changed.getUser()).isEqualTo("bob");
    assertThat(changed.getGroup()).isEqualTo("staff");
    assertThat(changed.getUid()).isEqualTo(1001);
    assertThat(changed.getGid()).isEqualTo(50);
    assertThat(changed.getAtimeNs()).isEqualTo(1_000_000_000L);
    assertThat(changed.getMtimeNs()).isEqualTo(2_000_000_000L);
    assertThat(changed.getType()).isEqualTo(FileType.FILE_TYPE_CHARACTER_DEVICE);
    assertThat(changed.getRdev()).isEqualTo(NULL_DEVICE);
    assertThat(getAttr("/d/c2")).as("the other link").isEqualTo(changed);

    root.callSync(
        at(),
        RpcMethod.SET_XATTR,
        SetXattrRequest.newBuilder()
            .setPath("/d/c2")
            .setName("trusted.t")
            .setValue(ByteString.copyFromUtf8("v"))
            .build());
    assertThat(
            root.callSync(
                    at(),
                    RpcMethod.GET_XATTR,
                    GetXattrRequest.newBuilder().setPath("/d/c3").setName("trusted.t").build())
                .getValue()
                .toStringUtf8())
        .isEqualTo("v");
    assertThat(
            root.callSync(
                    at(),
                    RpcMethod.LIST_XATTRS,
                    ListXattrsRequest.newBuilder().setPath("/d/c3").build())
                .getNamesList())
        .containsExactly("trusted.t");
    root.callSync(
        at(),
        RpcMethod.REMOVE_XATTR,
        RemoveXattrRequest.newBuilder().setPath("/d/c3").setName("trusted.t").build());

    root.callSync(at(), RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath("/d/c2").build());
    assertThat(getAttr("/d/c3").getNlink()).isEqualTo(1);
    root.callSync(at(), RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath("/d/c3").build());
    assertStatus(
        Status.STALE_HANDLE,
        "the inode is gone with its last link",
        () ->
            root.callSync(
                at(),
                RpcMethod.GET_ATTR,
                GetAttrRequest.newBuilder().setInodeId(made.getInodeId()).build()));

    // A rename over a special file replaces it, as over any non-directory.
    mknod(root, "/d/s", FileType.FILE_TYPE_SOCKET, 0644, 0);
    mknod(root, "/d/f", FileType.FILE_TYPE_FIFO, 0644, 0);
    root.callSync(
        at(),
        RpcMethod.RENAME,
        RenameRequest.newBuilder()
            .setSourcePath("/d/f")
            .setDestinationPath("/d/s")
            .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
            .build());
    assertThat(getAttr("/d/s").getType()).isEqualTo(FileType.FILE_TYPE_FIFO);
  }

  @Test
  void contentOperationsAreRefusedNamingTheType() throws IOException {
    mknod(root, "/d/p", FileType.FILE_TYPE_FIFO, 0666, 0);
    mknod(root, "/d/b", FileType.FILE_TYPE_BLOCK_DEVICE, 0666, NULL_DEVICE);
    Attributes file =
        root.callSync(
                at(),
                RpcMethod.CREATE,
                CreateRequest.newBuilder().setPath("/d/f").setMode(0644).build())
            .getAttributes();
    root.callSync(
        at(),
        RpcMethod.COMMIT,
        CommitRequest.newBuilder().setPath("/d/f").setInodeId(file.getInodeId()).build());

    assertStatus(
        Status.INVALID_ARGUMENT,
        "not a regular file but a FIFO",
        "open for read",
        () ->
            root.callSync(at(), RpcMethod.OPEN, OpenRequest.newBuilder().setPath("/d/p").build()));
    assertStatus(
        Status.INVALID_ARGUMENT,
        "not a regular file but a block device",
        "open for write",
        () ->
            root.callSync(
                at(),
                RpcMethod.OPEN,
                OpenRequest.newBuilder().setPath("/d/b").setWrite(true).build()));
    assertStatus(
        Status.INVALID_ARGUMENT,
        "a FIFO",
        "locations",
        () ->
            root.callSync(
                at(),
                RpcMethod.GET_CHUNK_LOCATIONS,
                GetChunkLocationsRequest.newBuilder().setPath("/d/p").build()));
    assertStatus(
        Status.INVALID_ARGUMENT,
        "a FIFO",
        "truncate",
        () ->
            root.callSync(
                at(),
                RpcMethod.SET_ATTR,
                SetAttrRequest.newBuilder().setPath("/d/p").setSize(0).build()));
    for (ConcatRequest.Builder concat :
        List.of(
            ConcatRequest.newBuilder().setTargetPath("/d/f").addSourcePaths("/d/p"),
            ConcatRequest.newBuilder().setTargetPath("/d/p").addSourcePaths("/d/f"))) {
      assertStatus(
          Status.INVALID_ARGUMENT,
          "a FIFO",
          "concat " + concat,
          () -> root.callSync(at(), RpcMethod.CONCAT, concat.setCheckOnly(true).build()));
    }
    assertStatus(
        Status.ALREADY_EXISTS,
        "create over a FIFO without overwrite",
        () ->
            root.callSync(
                at(),
                RpcMethod.CREATE,
                CreateRequest.newBuilder().setPath("/d/p").setMode(0644).build()));
  }

  @Test
  void contentSummaryCountsThemAsEmptyFilesAndDeleteRemovesThem() throws IOException {
    root.callSync(
        at(), RpcMethod.MKDIR, MkdirRequest.newBuilder().setPath("/d/sub").setMode(0755).build());
    mknod(root, "/d/p", FileType.FILE_TYPE_FIFO, 0644, 0);
    mknod(root, "/d/sub/c", FileType.FILE_TYPE_CHARACTER_DEVICE, 0644, NULL_DEVICE);
    mknod(root, "/d/sub/s", FileType.FILE_TYPE_SOCKET, 0644, 0);
    ContentSummaryResponse du =
        root.callSync(
            at(),
            RpcMethod.CONTENT_SUMMARY,
            ContentSummaryRequest.newBuilder().setPath("/d").build());
    assertThat(du.getFileCount()).isEqualTo(3);
    assertThat(du.getDirectoryCount()).isEqualTo(2);
    assertThat(du.getLength()).isZero();
    assertThat(du.getSpaceConsumed()).isZero();
    long inodes = mds.server().namespace().inodeCount();
    assertThat(
            root.callSync(
                    at(),
                    RpcMethod.DELETE,
                    DeleteRequest.newBuilder().setPath("/d").setRecursive(true).build())
                .getDeletedCount())
        .isEqualTo(5);
    assertThat(mds.server().namespace().inodeCount()).isEqualTo(inodes - 5);
  }
}
