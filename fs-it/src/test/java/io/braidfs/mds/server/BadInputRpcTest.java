package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.TextFormat;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcConnection;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.AccessRequest;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.FileType;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetXattrRequest;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadLinkRequest;
import io.braidfs.proto.RemoveXattrRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.proto.RmdirRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetXattrRequest;
import io.braidfs.proto.SymlinkRequest;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests the MDS must refuse, each with its precise status (mds.proto conventions, {@code
 * BraidPath}'s rules and docs/protocol.md section 5 limits), leaving the tree exactly as it was and
 * the connection open and serving. One server serves the whole class: every case checks that it
 * changed nothing, so the cases cannot disturb each other.
 *
 * <p>Two choices here are not written down in mds.proto and are flagged for review: an unknown
 * xattr namespace is {@code INVALID_ARGUMENT}, and repeated or trailing slashes are collapsed (as
 * {@code BraidPath.parse} documents) rather than refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputRpcTest {
  private static final String LONG_NAME = "x".repeat(256);
  private static final String LONG_UTF8_NAME = "\u00e9".repeat(128); // 128 chars, 256 bytes

  private MdsFixture mds;
  private RpcClient root;
  private List<String> baseline;

  /** One refused request. */
  @FunctionalInterface
  interface BadCall {
    Object call(RpcClient client, InetSocketAddress at) throws IOException;
  }

  /** A named case: the request and the status it must get. */
  record Case(String name, Status expected, BadCall call) {
    @Override
    public String toString() {
      return name + " -> " + expected;
    }
  }

  @BeforeAll
  void start(@TempDir Path dir) throws IOException {
    mds = MdsFixture.builder(dir).build().start();
    root = mds.superuser();
    buildTree();
    baseline = ServerTree.dump(root, mds.address());
  }

  /**
   * Puts the tree back after a case that wrongly succeeded (or a failed limits test), so one server
   * bug is reported once rather than by every later case.
   */
  @AfterEach
  void restoreTree() throws IOException {
    InetSocketAddress at = mds.address();
    if (ServerTree.dump(root, at).equals(baseline)) {
      return;
    }
    for (DirEntry e : ServerTree.readDir(root, at, "/", 100, true)) {
      root.callSync(
          at,
          RpcMethod.DELETE,
          DeleteRequest.newBuilder().setPath("/" + e.getName()).setRecursive(true).build());
    }
    buildTree();
    assertThat(ServerTree.dump(root, at)).as("the tree rebuilt").isEqualTo(baseline);
  }

  private void buildTree() throws IOException {
    InetSocketAddress at = mds.address();
    root.callSync(
        at, RpcMethod.MKDIR, MkdirRequest.newBuilder().setPath("/d").setMode(0755).build());
    commit(create("/d/f", 0644, false));
    root.callSync(
        at, RpcMethod.SYMLINK, SymlinkRequest.newBuilder().setPath("/l").setTarget("/d").build());
    root.callSync(
        at,
        RpcMethod.SET_XATTR,
        SetXattrRequest.newBuilder()
            .setPath("/d/f")
            .setName("user.x")
            .setValue(ByteString.copyFromUtf8("v"))
            .build());
  }

  @AfterAll
  void stop() {
    if (mds != null) {
      mds.close();
    }
  }

  private Attributes create(String path, int mode, boolean parents) throws IOException {
    return root.callSync(
            mds.address(),
            RpcMethod.CREATE,
            CreateRequest.newBuilder()
                .setPath(path)
                .setMode(mode)
                .setCreateParents(parents)
                .build())
        .getAttributes();
  }

  private void commit(Attributes created) throws IOException {
    root.callSync(
        mds.address(),
        RpcMethod.COMMIT,
        CommitRequest.newBuilder().setInodeId(created.getInodeId()).setLength(0).build());
  }

  private Attributes getAttr(String path) throws IOException {
    return root.callSync(
            mds.address(), RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  // ---- the cases --------------------------------------------------------------------------------

  private static MkdirRequest mkdir(String path, boolean parents) {
    return MkdirRequest.newBuilder().setPath(path).setMode(0755).setParents(parents).build();
  }

  private static CreateRequest createRequest(String path, boolean overwrite) {
    return CreateRequest.newBuilder().setPath(path).setMode(0644).setOverwrite(overwrite).build();
  }

  private static GetAttrRequest getAttrRequest(String path) {
    return GetAttrRequest.newBuilder().setPath(path).build();
  }

  private static RenameRequest rename(String from, String to) {
    return RenameRequest.newBuilder()
        .setSourcePath(from)
        .setDestinationPath(to)
        .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
        .build();
  }

  private static SetXattrRequest setXattr(String name, int valueBytes) {
    return SetXattrRequest.newBuilder()
        .setPath("/d/f")
        .setName(name)
        .setValue(ByteString.copyFrom(new byte[valueBytes]))
        .build();
  }

  /** A path of {@code names} components of 250 bytes each. */
  private static String longPath(int names) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < names; i++) {
      b.append('/').append(Character.toString('a' + i % 26).repeat(250));
    }
    return b.toString();
  }

  private static Case c(String name, Status expected, BadCall call) {
    return new Case(name, expected, call);
  }

  static Stream<Case> invalidPaths() {
    Status invalid = Status.INVALID_ARGUMENT;
    return Stream.of(
        c(
            "mkdir relative",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("d2", false))),
        c(
            "create relative",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.CREATE, createRequest("d/g", false))),
        c(
            "getattr empty path",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.GET_ATTR, getAttrRequest(""))),
        c(
            "mkdir with ..",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("/d/../e", false))),
        c(
            "create with .",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.CREATE, createRequest("/d/./g", false))),
        c(
            "unlink ending in ..",
            invalid,
            (k, at) ->
                k.callSync(
                    at, RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath("/d/f/..").build())),
        c(
            "rename to a path with ..",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.RENAME, rename("/d/f", "/d/../g"))),
        c(
            "mkdir with a NUL in a name",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("/d/a\u0000b", false))),
        c(
            "lookup by parent inode with a name holding '/'",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.LOOKUP,
                    LookupRequest.newBuilder().setParentInodeId(1).setName("d/f").build())));
  }

  static Stream<Case> tooLong() {
    Status tooLong = Status.NAME_TOO_LONG;
    return Stream.of(
        c(
            "create a 256-byte name",
            tooLong,
            (k, at) -> k.callSync(at, RpcMethod.CREATE, createRequest("/d/" + LONG_NAME, false))),
        c(
            "mkdir a 128-char, 256-byte name",
            tooLong,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("/d/" + LONG_UTF8_NAME, true))),
        c(
            "getattr a 5020-byte path (missing, but too long first)",
            tooLong,
            (k, at) -> k.callSync(at, RpcMethod.GET_ATTR, getAttrRequest(longPath(20)))),
        c(
            "mkdir parents of a 5020-byte path",
            tooLong,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir(longPath(20), true))),
        c(
            "rename to a too-long name",
            tooLong,
            (k, at) -> k.callSync(at, RpcMethod.RENAME, rename("/d/f", "/d/" + LONG_NAME))),
        c(
            "lookup by parent inode of a 256-byte name",
            tooLong,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.LOOKUP,
                    LookupRequest.newBuilder().setParentInodeId(1).setName(LONG_NAME).build())),
        c(
            "symlink with a 4097-byte target",
            tooLong,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.SYMLINK,
                    SymlinkRequest.newBuilder()
                        .setPath("/d/s")
                        .setTarget("t".repeat(4097))
                        .build())),
        c(
            "setxattr with a 256-byte name",
            tooLong,
            (k, at) -> k.callSync(at, RpcMethod.SET_XATTR, setXattr("user." + "n".repeat(251), 1))),
        c(
            "setxattr with a 64 KiB + 1 value",
            Status.OUT_OF_RANGE,
            (k, at) -> k.callSync(at, RpcMethod.SET_XATTR, setXattr("user.big", 65537))));
  }

  static Stream<Case> badXattrNamespaces() {
    Status invalid = Status.INVALID_ARGUMENT;
    return Stream.of(
        c(
            "setxattr in an unknown namespace",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.SET_XATTR, setXattr("foo.bar", 1))),
        c(
            "setxattr without a namespace",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.SET_XATTR, setXattr("plain", 1))),
        c(
            "getxattr in an unknown namespace",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.GET_XATTR,
                    GetXattrRequest.newBuilder().setPath("/d/f").setName("foo.x").build())),
        c(
            "removexattr in an unknown namespace",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.REMOVE_XATTR,
                    RemoveXattrRequest.newBuilder().setPath("/d/f").setName("bogus.x").build())));
  }

  static Stream<Case> rootAndTypeConflicts() {
    Status invalid = Status.INVALID_ARGUMENT;
    return Stream.of(
        c(
            "rename the root",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.RENAME, rename("/", "/x"))),
        c(
            "rename onto the root",
            invalid,
            (k, at) -> k.callSync(at, RpcMethod.RENAME, rename("/d", "/"))),
        c(
            "rmdir the root",
            invalid,
            (k, at) ->
                k.callSync(at, RpcMethod.RMDIR, RmdirRequest.newBuilder().setPath("/").build())),
        c(
            "delete the root recursively",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.DELETE,
                    DeleteRequest.newBuilder().setPath("/").setRecursive(true).build())),
        c(
            "unlink the root",
            Status.IS_DIRECTORY,
            (k, at) ->
                k.callSync(at, RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath("/").build())),
        c(
            "mkdir over a file",
            Status.ALREADY_EXISTS,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("/d/f", false))),
        c(
            "mkdir parents over a file",
            Status.ALREADY_EXISTS,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("/d/f", true))),
        c(
            "mkdir below a file",
            Status.NOT_DIRECTORY,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("/d/f/x", false))),
        c(
            "mkdir parents below a file",
            Status.NOT_DIRECTORY,
            (k, at) -> k.callSync(at, RpcMethod.MKDIR, mkdir("/d/f/x/y", true))),
        c(
            "create over a directory",
            Status.IS_DIRECTORY,
            (k, at) -> k.callSync(at, RpcMethod.CREATE, createRequest("/d", false))),
        c(
            "create overwrite over a directory",
            Status.IS_DIRECTORY,
            (k, at) -> k.callSync(at, RpcMethod.CREATE, createRequest("/d", true))),
        c(
            "setattr size of a directory",
            Status.IS_DIRECTORY,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.SET_ATTR,
                    SetAttrRequest.newBuilder().setPath("/d").setSize(0).setMode(0700).build())),
        c(
            "readlink of a file",
            invalid,
            (k, at) ->
                k.callSync(
                    at, RpcMethod.READ_LINK, ReadLinkRequest.newBuilder().setPath("/d/f").build())),
        c(
            "readdir of a file",
            Status.NOT_DIRECTORY,
            (k, at) ->
                k.callSync(
                    at, RpcMethod.READ_DIR, ReadDirRequest.newBuilder().setPath("/d/f").build())),
        c(
            "getattr of an inode id never issued",
            Status.STALE_HANDLE,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.GET_ATTR,
                    GetAttrRequest.newBuilder().setInodeId(1L << 40).build())));
  }

  static Stream<Case> badFields() {
    Status invalid = Status.INVALID_ARGUMENT;
    return Stream.of(
        c(
            "rename with an unknown semantics value",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.RENAME,
                    rename("/d/f", "/d/g").toBuilder().setSemanticsValue(9).build())),
        c(
            "setxattr with an unknown mode value",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.SET_XATTR,
                    setXattr("user.y", 1).toBuilder().setModeValue(9).build())),
        c(
            "setattr with both user and uid",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.SET_ATTR,
                    SetAttrRequest.newBuilder().setPath("/d/f").setUser("root").setUid(0).build())),
        c(
            "setattr with both atime_ns and atime_now",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.SET_ATTR,
                    SetAttrRequest.newBuilder()
                        .setPath("/d/f")
                        .setAtimeNs(1)
                        .setAtimeNow(true)
                        .build())),
        c(
            "create with a block size above 2^63 - 1",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.CREATE,
                    createRequest("/d/g", false).toBuilder().setBlockSize(-1L).build())),
        c(
            "access with a mask above 7",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.ACCESS,
                    AccessRequest.newBuilder().setPath("/d/f").setMask(8).build())),
        c(
            "open with truncate but not write",
            invalid,
            (k, at) ->
                k.callSync(
                    at,
                    RpcMethod.OPEN,
                    OpenRequest.newBuilder().setPath("/d/f").setTruncate(true).build())));
  }

  static Stream<Case> cases() {
    return Stream.of(
            invalidPaths(), tooLong(), badXattrNamespaces(), rootAndTypeConflicts(), badFields())
        .flatMap(s -> s);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void isRefusedWithItsStatusAndChangesNothing(Case bad) throws IOException {
    InetSocketAddress at = mds.address();
    List<String> before = ServerTree.dump(root, at);
    Attributes file = getAttr("/d/f");
    RpcConnection connection = root.connection(at);
    Status status;
    String outcome;
    try {
      Object answer = bad.call().call(root, at);
      status = Status.OK;
      outcome = "answered " + TextFormat.shortDebugString((MessageOrBuilder) answer);
    } catch (IOException e) {
      status = StatusExceptions.statusOf(e);
      outcome = e.toString();
    }
    List<String> now = ServerTree.dump(root, at);
    assertThat(status)
        .as(
            "%s: %s; tree %s",
            bad.name(),
            outcome,
            now.equals(before) ? "unchanged" : "CHANGED from " + before + " to " + now)
        .isEqualTo(bad.expected());
    assertThat(root.connection(at)).as("the same connection, still open").isSameAs(connection);
    assertThat(connection.isOpen()).isTrue();
    assertThat(ServerTree.dump(root, at)).as("%s changed the tree", bad.name()).isEqualTo(before);
    Attributes after = getAttr("/d/f");
    assertThat(after.getInodeId()).isEqualTo(file.getInodeId());
    assertThat(after.getMode()).isEqualTo(file.getMode());
    assertThat(after.getUser()).isEqualTo(file.getUser());
    assertThat(after.getGroup()).isEqualTo(file.getGroup());
    assertThat(after.getAtimeNs()).as("atime of /d/f").isEqualTo(file.getAtimeNs());
  }

  /**
   * BraidPath's rule ("repeated slashes and a trailing slash are collapsed"), which the brief
   * listed as invalid input: flagged for the lead. mds.proto only says paths are sent normalised.
   */
  @Test
  void repeatedAndTrailingSlashesNameTheCanonicalPath() throws IOException {
    assertThat(getAttr("//d//f").getInodeId()).isEqualTo(getAttr("/d/f").getInodeId());
    assertThat(getAttr("/d/").getInodeId()).isEqualTo(getAttr("/d").getInodeId());
    Attributes made =
        root.callSync(mds.address(), RpcMethod.MKDIR, mkdir("/d/trail/", false)).getAttributes();
    assertThat(getAttr("/d/trail").getInodeId()).isEqualTo(made.getInodeId());
    root.callSync(
        mds.address(), RpcMethod.RMDIR, RmdirRequest.newBuilder().setPath("/d/trail").build());
  }

  @Test
  void namesPathsTargetsAndXattrsAtTheirLimitsAreAccepted() throws IOException {
    InetSocketAddress at = mds.address();
    String name255 = "y".repeat(255);
    commit(create("/d/" + name255, 0644, false));
    String utf8Name255 = "\u00e9".repeat(127) + "z"; // 255 bytes
    root.callSync(at, RpcMethod.MKDIR, mkdir("/d/" + utf8Name255, false));
    assertThat(ServerTree.readDir(root, at, "/d", 10, true))
        .extracting(e -> e.getName())
        .contains(name255, utf8Name255);

    String path4096 = "/d/" + "q".repeat(250) + longPath(16).substring(0, 4096 - 3 - 250);
    assertThat(path4096.getBytes(StandardCharsets.UTF_8)).hasSize(4096);
    try {
      getAttr(path4096);
      fail("a missing 4096-byte path was found");
    } catch (IOException e) {
      assertThat(StatusExceptions.statusOf(e)).as(e.toString()).isEqualTo(Status.NOT_FOUND);
    }

    String target4096 = "t".repeat(4096);
    Attributes link =
        root.callSync(
                at,
                RpcMethod.SYMLINK,
                SymlinkRequest.newBuilder().setPath("/d/long").setTarget(target4096).build())
            .getAttributes();
    assertThat(link.getType()).isEqualTo(FileType.FILE_TYPE_SYMLINK);
    assertThat(link.getSize()).isEqualTo(4096);
    assertThat(
            root.callSync(
                    at,
                    RpcMethod.READ_LINK,
                    ReadLinkRequest.newBuilder().setPath("/d/long").build())
                .getTarget())
        .isEqualTo(target4096);

    String xattr255 = "user." + "n".repeat(250);
    root.callSync(at, RpcMethod.SET_XATTR, setXattr(xattr255, 65536));
    assertThat(
            root.callSync(
                    at,
                    RpcMethod.GET_XATTR,
                    GetXattrRequest.newBuilder().setPath("/d/f").setName(xattr255).build())
                .getValue()
                .size())
        .isEqualTo(65536);

    // Back to the tree the other cases expect.
    root.callSync(
        at,
        RpcMethod.REMOVE_XATTR,
        RemoveXattrRequest.newBuilder().setPath("/d/f").setName(xattr255).build());
    for (String n : List.of(name255, "long")) {
      root.callSync(at, RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath("/d/" + n).build());
    }
    root.callSync(
        at, RpcMethod.RMDIR, RmdirRequest.newBuilder().setPath("/d/" + utf8Name255).build());
  }
}
