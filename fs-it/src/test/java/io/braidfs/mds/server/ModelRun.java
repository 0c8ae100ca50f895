package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.model.NamespaceModel;
import io.braidfs.mds.model.NamespaceModel.Inode;
import io.braidfs.mds.model.NamespaceModel.ModelException;
import io.braidfs.mds.model.NamespaceModel.Renamed;
import io.braidfs.mds.model.NamespaceModel.Type;
import io.braidfs.mds.model.NamespaceModel.XattrMode;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.ConcatRequest;
import io.braidfs.proto.ConcatResponse;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetXattrRequest;
import io.braidfs.proto.GetXattrResponse;
import io.braidfs.proto.LinkRequest;
import io.braidfs.proto.ListXattrsRequest;
import io.braidfs.proto.LookupRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.ReadLinkRequest;
import io.braidfs.proto.RemoveXattrRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.RmdirRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetXattrRequest;
import io.braidfs.proto.StatFsRequest;
import io.braidfs.proto.StatFsResponse;
import io.braidfs.proto.SymlinkRequest;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.proto.XattrSetMode;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One model-based run: random namespace operations, drawn from a seed over three names and at most
 * three levels so that collisions, symlink loops and errors are frequent, applied to a {@link
 * NamespaceModel} and over RPC (as the superuser) to a real MDS. Every operation must give the same
 * status, and on success the same results; {@link #compareTrees} then reads the whole server tree
 * back and compares it with the model's.
 *
 * <p>Server inode ids are matched with the model's: the first time a model inode is seen its server
 * id is recorded, and from then on the pair must stay one-to-one (catching a link, rename or
 * exchange that lands on the wrong inode, and ids reused after a restart).
 *
 * <p>Every failure message names the seed, the operation's number and the last operations before
 * it; {@code -Dbraid.model.seed=<seed>} replays one seed (see {@link NamespaceModelRpcTest}).
 *
 * <p>Thread-safety: not thread-safe.
 */
final class ModelRun {
  private static final String[] NAMES = {"a", "b", "c"};
  private static final String[] XATTRS = {"user.a", "user.b", "user.c"};
  private static final int[] DIR_MODES = {0755, 0700, 0750, 0711, 01777, 0555, 0775, 0500};
  private static final int[] FILE_MODES = {0644, 0600, 0640, 0755, 0444, 0700};
  private static final int[] CHMOD_MODES = {0755, 0700, 0644, 0600, 01777, 04755, 02750, 0};
  private static final long[] SIZES = {0, 1, 4096, 3L << 20};
  private static final int HISTORY = 25;

  /** A model call: its result, or a {@link ModelException} carrying the expected status. */
  @FunctionalInterface
  private interface ModelCall<M> {
    M call();
  }

  /** The same operation over RPC. */
  @FunctionalInterface
  private interface ServerCall<S> {
    S call() throws IOException;
  }

  /** Compares the two successful results (and may make follow-up calls, such as Commit). */
  @FunctionalInterface
  private interface Agreement<M, S> {
    void check(M model, S server) throws IOException;
  }

  private final long seed;
  private final Random random;
  private final NamespaceModel model = new NamespaceModel();
  private final Map<Long, Long> modelToServer = new HashMap<>();
  private final Map<Long, Long> serverToModel = new HashMap<>();
  private final Deque<String> history = new ArrayDeque<>();
  private final MdsFixture mds;
  private RpcClient client;
  private int opIndex;
  private String op = "";

  ModelRun(long seed, MdsFixture mds) {
    this.seed = seed;
    this.random = new Random(seed);
    this.mds = mds;
    this.client = mds.superuser();
    modelToServer.put(NamespaceModel.ROOT, 1L);
    serverToModel.put(1L, NamespaceModel.ROOT);
  }

  /** Takes a fresh superuser client from the fixture (after a restart closed the old one). */
  void reconnect() {
    client = mds.superuser();
  }

  /** Runs {@code count} random operations, each checked against the model. */
  void run(int count) throws IOException {
    for (int i = 0; i < count; i++) {
      step();
    }
  }

  // ---- generation -------------------------------------------------------------------------------

  private void step() throws IOException {
    opIndex++;
    int dice = random.nextInt(100);
    if (dice < 8) {
      mkdir();
    } else if (dice < 22) {
      create();
    } else if (dice < 27) {
      unlink();
    } else if (dice < 31) {
      rmdir();
    } else if (dice < 35) {
      delete();
    } else if (dice < 40) {
      link();
    } else if (dice < 48) {
      symlink();
    } else if (dice < 55) {
      renamePosix();
    } else if (dice < 59) {
      renameHadoop();
    } else if (dice < 64) {
      setAttr();
    } else if (dice < 70) {
      setXattr();
    } else if (dice < 73) {
      removeXattr();
    } else if (dice < 76) {
      lookup();
    } else if (dice < 79) {
      concat();
    } else if (dice < 84) {
      getAttr();
    } else if (dice < 90) {
      readDir();
    } else if (dice < 93) {
      readLink();
    } else if (dice < 97) {
      getXattr();
    } else {
      listXattrs();
    }
  }

  private String name() {
    return NAMES[random.nextInt(NAMES.length)];
  }

  /**
   * Half the time an entry that exists in the model, or a name below it (so that operations on real
   * entries, such as links to files and removals of empty directories, are not rare), otherwise
   * {@link #path()}.
   */
  private String somePath() {
    if (random.nextBoolean()) {
      List<String> lines = model.dump();
      if (!lines.isEmpty()) {
        String line = lines.get(random.nextInt(lines.size()));
        String existing = line.substring(0, line.indexOf(' '));
        boolean shallow = existing.chars().filter(c -> c == '/').count() < 3;
        return shallow && random.nextInt(3) == 0 ? existing + "/" + name() : existing;
      }
    }
    return path();
  }

  /**
   * Half the time an existing entry whose {@link NamespaceModel#dump()} line matches {@code wanted}
   * (such as a symlink for readlink), otherwise {@link #somePath()}.
   */
  private String some(Predicate<String> wanted) {
    if (random.nextBoolean()) {
      List<String> lines = model.dump().stream().filter(wanted).toList();
      if (!lines.isEmpty()) {
        String line = lines.get(random.nextInt(lines.size()));
        return line.substring(0, line.indexOf(' '));
      }
    }
    return somePath();
  }

  /** Mostly an existing file (so that concats succeed often enough), else {@link #somePath()}. */
  private String aFile() {
    List<String> files = model.dump().stream().filter(ofType(Type.FILE)).toList();
    if (!files.isEmpty() && random.nextInt(4) != 0) {
      String line = files.get(random.nextInt(files.size()));
      return line.substring(0, line.indexOf(' '));
    }
    return somePath();
  }

  private static Predicate<String> ofType(Type... types) {
    return line -> {
      String type = line.split(" ")[1];
      return Arrays.stream(types).anyMatch(t -> t.name().equals(type));
    };
  }

  /** A path of one to three names; now and then the root. */
  private String path() {
    if (random.nextInt(40) == 0) {
      return "/";
    }
    int depth = 1 + random.nextInt(3);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      b.append('/').append(name());
    }
    return b.toString();
  }

  /** A symlink target: absolute or relative, with ".." and "." now and then, or a loop. */
  private String target(String linkPath) {
    String last = linkPath.substring(linkPath.lastIndexOf('/') + 1);
    return switch (random.nextInt(10)) {
      case 0, 1, 2 -> path();
      case 3 -> name();
      case 4 -> "../" + name();
      case 5 -> name() + "/" + name();
      case 6 -> "../../" + name() + "/" + name();
      case 7 -> linkPath.equals("/") ? "/" : linkPath;
      case 8 -> last.isEmpty() ? "." : last;
      default -> random.nextBoolean() ? "." : "..";
    };
  }

  private static int pick(Random random, int[] values) {
    return values[random.nextInt(values.length)];
  }

  private byte[] value() {
    byte[] v = new byte[random.nextInt(7)];
    random.nextBytes(v);
    return v;
  }

  // ---- mutations --------------------------------------------------------------------------------

  private record Made(boolean created, Inode inode) {}

  private void mkdir() throws IOException {
    String p = somePath();
    int mode = pick(random, DIR_MODES);
    boolean parents = random.nextInt(3) == 0;
    check(
        "mkdir " + p + " " + oct(mode) + (parents ? " parents" : ""),
        () -> new Made(model.mkdir(p, mode, parents), model.getAttr(p)),
        () ->
            rpc(
                RpcMethod.MKDIR,
                MkdirRequest.newBuilder().setPath(p).setMode(mode).setParents(parents).build()),
        (m, s) -> {
          assertThat(s.getCreated()).as(at("created")).isEqualTo(m.created());
          sameInode("mkdir", m.inode(), s.getAttributes());
        });
  }

  private void create() throws IOException {
    String p = somePath();
    int mode = pick(random, FILE_MODES);
    boolean overwrite = random.nextBoolean();
    boolean parents = random.nextInt(3) == 0;
    check(
        "create "
            + p
            + " "
            + oct(mode)
            + (overwrite ? " overwrite" : "")
            + (parents ? " parents" : ""),
        () -> model.create(p, mode, overwrite, parents),
        () ->
            rpc(
                RpcMethod.CREATE,
                CreateRequest.newBuilder()
                    .setPath(p)
                    .setMode(mode)
                    .setOverwrite(overwrite)
                    .setCreateParents(parents)
                    .build()),
        (m, s) -> {
          sameInode("create", m, s.getAttributes());
          checkPlacement(s);
          Attributes committed =
              rpc(
                      RpcMethod.COMMIT,
                      CommitRequest.newBuilder()
                          .setPath(p)
                          .setInodeId(s.getAttributes().getInodeId())
                          .setLength(0)
                          .build())
                  .getAttributes();
          sameInode("commit", m, committed);
        });
  }

  /** Create's one-round-trip promise: chunk set 0 on registered servers, a token, the lease. */
  private void checkPlacement(CreateResponse s) {
    long inode = s.getAttributes().getInodeId();
    assertThat(s.getFirstChunkSet().getSetIndex()).as(at("first chunk set index")).isZero();
    assertThat(s.getFirstChunkSet().getChunksList()).as(at("chunks of set 0")).isNotEmpty();
    List<Integer> registered = Arrays.stream(mds.dataServerIds()).boxed().toList();
    for (ChunkLocation c : s.getFirstChunkSet().getChunksList()) {
      List<Integer> replicas =
          c.getReplicasList().stream().map(ReplicaLocation::getServerId).toList();
      assertThat(c.getId().getInodeId()).as(at("chunk's inode id")).isEqualTo(inode);
      assertThat(replicas)
          .as(at("replicas of chunk " + c.getId()))
          .isNotEmpty()
          .doesNotHaveDuplicates();
      assertThat(registered).as(at("replica servers are registered ones")).containsAll(replicas);
    }
    assertThat(s.getToken().isEmpty()).as(at("create returns a token")).isFalse();
    assertThat(s.getLease().getInodeId()).as(at("lease inode id")).isEqualTo(inode);
  }

  private void unlink() throws IOException {
    String p = some(ofType(Type.FILE, Type.SYMLINK));
    check(
        "unlink " + p,
        () -> {
          model.unlink(p);
          return Boolean.TRUE;
        },
        () -> rpc(RpcMethod.UNLINK, UnlinkRequest.newBuilder().setPath(p).build()),
        (m, s) -> {});
  }

  /**
   * Concat as a client makes it: the check, then (what the copy would do) the target opened for
   * writing, then the concat with the commit of a copy of the sources' lengths.
   */
  private void concat() throws IOException {
    String target = aFile();
    List<String> sources = new ArrayList<>();
    int count = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(3);
    for (int i = 0; i < count; i++) {
      sources.add(aFile());
    }
    ConcatRequest request =
        ConcatRequest.newBuilder().setTargetPath(target).addAllSourcePaths(sources).build();
    check(
        "concat " + target + " " + sources,
        () -> model.concat(target, sources),
        () -> {
          ConcatResponse checked =
              rpc(RpcMethod.CONCAT, request.toBuilder().setCheckOnly(true).build());
          long length = checked.getAttributes().getSize();
          for (Attributes a : checked.getSourcesList()) {
            length += a.getSize();
          }
          long inode =
              rpc(RpcMethod.OPEN, OpenRequest.newBuilder().setPath(target).setWrite(true).build())
                  .getAttributes()
                  .getInodeId();
          return rpc(
              RpcMethod.CONCAT,
              request.toBuilder()
                  .setCommit(CommitRequest.newBuilder().setInodeId(inode).setLength(length))
                  .addAllCopiedSources(checked.getSourcesList())
                  .build());
        },
        (m, s) -> sameInode("concat", m, s.getAttributes()));
  }

  private void rmdir() throws IOException {
    String p = some(ofType(Type.DIRECTORY));
    check(
        "rmdir " + p,
        () -> {
          model.rmdir(p);
          return Boolean.TRUE;
        },
        () -> rpc(RpcMethod.RMDIR, RmdirRequest.newBuilder().setPath(p).build()),
        (m, s) -> {});
  }

  private void delete() throws IOException {
    String p = somePath();
    boolean recursive = random.nextBoolean();
    check(
        "delete " + p + (recursive ? " recursive" : ""),
        () -> model.delete(p, recursive),
        () ->
            rpc(
                RpcMethod.DELETE,
                DeleteRequest.newBuilder().setPath(p).setRecursive(recursive).build()),
        (m, s) -> assertThat(s.getDeletedCount()).as(at("deleted_count")).isEqualTo(m));
  }

  private void link() throws IOException {
    String existing = some(ofType(Type.FILE, Type.SYMLINK));
    String p = somePath();
    if (p.equals("/")) {
      return; // the model answers INVALID_ARGUMENT (no parent), POSIX EEXIST; not settled
    }
    check(
        "link " + existing + " " + p,
        () -> model.link(existing, p),
        () ->
            rpc(
                RpcMethod.LINK,
                LinkRequest.newBuilder().setExistingPath(existing).setNewPath(p).build()),
        (m, s) -> sameInode("link", m, s.getAttributes()));
  }

  private void symlink() throws IOException {
    String p = somePath();
    String target = target(p);
    boolean parents = random.nextInt(4) == 0;
    check(
        "symlink " + p + " -> " + target + (parents ? " parents" : ""),
        () -> model.symlink(target, p, parents),
        () ->
            rpc(
                RpcMethod.SYMLINK,
                SymlinkRequest.newBuilder()
                    .setTarget(target)
                    .setPath(p)
                    .setCreateParents(parents)
                    .build()),
        (m, s) -> sameInode("symlink", m, s.getAttributes()));
  }

  private void renamePosix() throws IOException {
    String src = somePath();
    String dst = random.nextInt(4) == 0 ? src + "/" + name() : somePath();
    boolean noReplace = random.nextInt(5) == 0;
    boolean exchange = !noReplace && random.nextInt(6) == 0;
    check(
        "rename "
            + src
            + " "
            + dst
            + (noReplace ? " no_replace" : "")
            + (exchange ? " exchange" : ""),
        () -> model.rename(src, dst, noReplace, exchange),
        () ->
            rpc(
                RpcMethod.RENAME,
                RenameRequest.newBuilder()
                    .setSourcePath(src)
                    .setDestinationPath(dst)
                    .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
                    .setNoReplace(noReplace)
                    .setExchange(exchange)
                    .build()),
        (m, s) -> sameRename(m, s.getFinalPath(), s.getReplaced()));
  }

  private void renameHadoop() throws IOException {
    String src = somePath();
    String dst = somePath();
    check(
        "rename-hadoop " + src + " " + dst,
        () -> model.renameHadoop(src, dst),
        () ->
            rpc(
                RpcMethod.RENAME,
                RenameRequest.newBuilder()
                    .setSourcePath(src)
                    .setDestinationPath(dst)
                    .setSemantics(RenameSemantics.RENAME_SEMANTICS_HADOOP)
                    .build()),
        (m, s) -> sameRename(m, s.getFinalPath(), s.getReplaced()));
  }

  private void sameRename(Renamed m, String finalPath, boolean replaced) {
    assertThat(finalPath).as(at("final_path")).isEqualTo(m.finalPath());
    assertThat(replaced).as(at("replaced")).isEqualTo(m.replaced());
  }

  private void setAttr() throws IOException {
    String p = somePath();
    int kind = random.nextInt(10);
    Integer mode = kind < 7 ? pick(random, CHMOD_MODES) : null;
    Long size = kind >= 4 ? SIZES[random.nextInt(SIZES.length)] : null;
    SetAttrRequest.Builder request = SetAttrRequest.newBuilder().setPath(p);
    if (mode != null) {
      request.setMode(mode);
    }
    if (size != null) {
      request.setSize(size);
    }
    check(
        "setattr "
            + p
            + (mode == null ? "" : " mode=" + oct(mode))
            + (size == null ? "" : " size=" + size),
        () -> model.setAttr(p, mode, size),
        () -> rpc(RpcMethod.SET_ATTR, request.build()),
        (m, s) -> sameInode("setattr", m, s.getAttributes()));
  }

  private void setXattr() throws IOException {
    String p = somePath();
    String name = XATTRS[random.nextInt(XATTRS.length)];
    byte[] value = value();
    XattrMode mode = XattrMode.values()[random.nextInt(3)];
    XattrSetMode wire =
        switch (mode) {
          case EITHER -> XattrSetMode.XATTR_SET_MODE_UNSPECIFIED;
          case CREATE -> XattrSetMode.XATTR_SET_MODE_CREATE;
          case REPLACE -> XattrSetMode.XATTR_SET_MODE_REPLACE;
        };
    check(
        "setxattr " + p + " " + name + "=" + hex(value) + " " + mode,
        () -> {
          model.setXattr(p, name, value, mode);
          return Boolean.TRUE;
        },
        () ->
            rpc(
                RpcMethod.SET_XATTR,
                SetXattrRequest.newBuilder()
                    .setPath(p)
                    .setName(name)
                    .setValue(ByteString.copyFrom(value))
                    .setMode(wire)
                    .build()),
        (m, s) -> {});
  }

  private void removeXattr() throws IOException {
    String p = some(line -> line.contains("[user."));
    String name = XATTRS[random.nextInt(XATTRS.length)];
    check(
        "removexattr " + p + " " + name,
        () -> {
          model.removeXattr(p, name);
          return Boolean.TRUE;
        },
        () ->
            rpc(
                RpcMethod.REMOVE_XATTR,
                RemoveXattrRequest.newBuilder().setPath(p).setName(name).build()),
        (m, s) -> {});
  }

  // ---- reads ------------------------------------------------------------------------------------

  private void lookup() throws IOException {
    String p = somePath();
    boolean follow = random.nextBoolean();
    check(
        "lookup " + p + (follow ? " follow" : ""),
        () -> model.lookup(p, follow),
        () ->
            rpc(
                RpcMethod.LOOKUP,
                LookupRequest.newBuilder().setPath(p).setFollowSymlink(follow).build()),
        (m, s) -> sameInode("lookup", m, s.getAttributes()));
  }

  private void getAttr() throws IOException {
    String p = somePath();
    check(
        "getattr " + p,
        () -> model.getAttr(p),
        () -> rpc(RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(p).build()),
        (m, s) -> sameInode("getattr", m, s.getAttributes()));
  }

  private void readDir() throws IOException {
    String p = somePath();
    int pageSize = 1 + random.nextInt(3);
    boolean namesOnly = random.nextInt(3) == 0;
    check(
        "readdir " + p + " pages of " + pageSize + (namesOnly ? " names_only" : ""),
        () -> model.readDir(p),
        () -> ServerTree.readDir(client, mds.address(), p, pageSize, namesOnly),
        (m, s) -> {
          assertThat(s.stream().map(e -> e.getName() + " " + ServerTree.type(e.getType())).toList())
              .as(at("entries"))
              .containsExactlyElementsOf(
                  m.stream().map(e -> e.getKey() + " " + e.getValue()).toList());
          for (DirEntry e : s) {
            Inode child = model.getAttr(ServerTree.child(p, e.getName()));
            sameId("readdir entry " + e.getName(), child, e.getInodeId());
            if (!namesOnly) {
              sameInode("readdir entry " + e.getName(), child, e.getAttributes());
            }
          }
        });
  }

  private void readLink() throws IOException {
    String p = some(ofType(Type.SYMLINK));
    check(
        "readlink " + p,
        () -> model.readLink(p),
        () -> rpc(RpcMethod.READ_LINK, ReadLinkRequest.newBuilder().setPath(p).build()),
        (m, s) -> assertThat(s.getTarget()).as(at("target")).isEqualTo(m));
  }

  private void getXattr() throws IOException {
    String p = somePath();
    String name = XATTRS[random.nextInt(XATTRS.length)];
    check(
        "getxattr " + p + " " + name,
        () -> model.getXattr(p, name),
        () ->
            rpc(RpcMethod.GET_XATTR, GetXattrRequest.newBuilder().setPath(p).setName(name).build()),
        (m, s) -> sameValue(m, s));
  }

  private void sameValue(Optional<byte[]> m, GetXattrResponse s) {
    assertThat(s.hasValue()).as(at("value present")).isEqualTo(m.isPresent());
    if (m.isPresent()) {
      assertThat(s.getValue().toByteArray()).as(at("value")).isEqualTo(m.get());
    }
  }

  private void listXattrs() throws IOException {
    String p = somePath();
    check(
        "listxattrs " + p,
        () -> model.listXattrs(p),
        () -> rpc(RpcMethod.LIST_XATTRS, ListXattrsRequest.newBuilder().setPath(p).build()),
        (m, s) -> assertThat(s.getNamesList()).as(at("names")).containsExactlyElementsOf(m));
  }

  // ---- whole-tree comparison --------------------------------------------------------------------

  /**
   * Reads the whole server tree back (ReadDir pages of one to three entries, GetAttr, ReadLink,
   * ListXattrs, and GetXattr of every name) and compares it with the model's, and StatFs's inode
   * count with the model's.
   */
  void compareTrees(String when) throws IOException {
    op = "tree comparison " + when;
    history.addLast(op);
    int pageSize = 1 + random.nextInt(3);
    List<ServerTree.Entry> entries = ServerTree.walk(client, mds.address(), pageSize);
    assertThat(entries.stream().map(ServerTree.Entry::describe).toList())
        .as(at("the whole tree (ReadDir pages of " + pageSize + ")"))
        .containsExactlyElementsOf(model.dump());
    Attributes root =
        rpc(RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath("/").build()).getAttributes();
    sameInode("the root", model.getAttr("/"), root);
    for (ServerTree.Entry e : entries) {
      Inode m = model.getAttr(e.path());
      sameInode(e.path(), m, e.attributes());
      for (String name : e.xattrs()) {
        GetXattrResponse v =
            rpc(
                RpcMethod.GET_XATTR,
                GetXattrRequest.newBuilder().setPath(e.path()).setName(name).build());
        sameValue(model.getXattr(e.path(), name), v);
      }
    }
    StatFsResponse statFs = rpc(RpcMethod.STAT_FS, StatFsRequest.newBuilder().setPath("/").build());
    assertThat(statFs.getInodeCount()).as(at("StatFs inode_count")).isEqualTo(model.inodeCount());
  }

  // ---- comparison machinery ---------------------------------------------------------------------

  private <M, S> void check(
      String what, ModelCall<M> modelCall, ServerCall<S> serverCall, Agreement<M, S> agreement)
      throws IOException {
    op = "#" + opIndex + " " + what;
    history.addLast(op);
    if (history.size() > HISTORY) {
      history.removeFirst();
    }
    M expected = null;
    Status expectedStatus = Status.OK;
    String modelSaid = "OK";
    try {
      expected = modelCall.call();
    } catch (ModelException e) {
      expectedStatus = e.status();
      modelSaid = e.getMessage();
    }
    S actual = null;
    Status actualStatus = Status.OK;
    String serverSaid = "OK";
    try {
      actual = serverCall.call();
    } catch (IOException e) {
      actualStatus = StatusExceptions.statusOf(e);
      serverSaid = String.valueOf(e.getMessage());
    }
    String model = modelSaid;
    String server = serverSaid;
    assertThat(actualStatus)
        .as(at("status (model: " + model + "; server: " + server + ")"))
        .isEqualTo(expectedStatus);
    if (expectedStatus.isOk()) {
      agreement.check(expected, actual);
    }
  }

  private <Q extends com.google.protobuf.Message, R extends com.google.protobuf.Message> R rpc(
      RpcMethod<Q, R> method, Q request) throws IOException {
    return client.callSync(mds.address(), method, request);
  }

  /** The attributes the server reports for what the model says is {@code m}. */
  private void sameInode(String what, Inode m, Attributes a) {
    assertThat(ServerTree.type(a.getType())).as(at(what + ": type")).isEqualTo(m.type());
    assertThat(oct(a.getMode())).as(at(what + ": mode")).isEqualTo(oct(m.mode()));
    assertThat(a.getSize()).as(at(what + ": size")).isEqualTo(m.size());
    assertThat(a.getNlink()).as(at(what + ": nlink")).isEqualTo(model.linkCount(m));
    assertThat(a.getSymlinkTarget())
        .as(at(what + ": symlink_target"))
        .isEqualTo(m.type() == Type.SYMLINK ? m.target() : "");
    assertThat(a.getUser()).as(at(what + ": owner")).isEqualTo(mds.superuserName());
    sameId(what, m, a.getInodeId());
  }

  /** Records or checks the one-to-one match of model and server inode ids. */
  private void sameId(String what, Inode m, long serverId) {
    Long known = modelToServer.putIfAbsent(m.id(), serverId);
    assertThat(known == null ? serverId : known)
        .as(at(what + ": server inode id of model " + m))
        .isEqualTo(serverId);
    Long back = serverToModel.putIfAbsent(serverId, m.id());
    assertThat(back == null ? m.id() : back)
        .as(at(what + ": model inode of server inode " + serverId + " (one server id, two inodes)"))
        .isEqualTo(m.id());
  }

  /** A lazy description naming the seed, the operation and the ones before it. */
  private Supplier<String> at(String what) {
    String current = op;
    return () ->
        "seed "
            + seed
            + ", "
            + current
            + ": "
            + what
            + "\n  (replay with -Dbraid.model.seed="
            + seed
            + "; last operations, oldest first:\n    "
            + String.join("\n    ", history)
            + ")";
  }

  private static String oct(int mode) {
    return "0" + Integer.toOctalString(mode);
  }

  private static String hex(byte[] v) {
    StringBuilder b = new StringBuilder();
    for (byte x : v) {
      b.append(String.format("%02x", x));
    }
    return b.length() == 0 ? "''" : b.toString();
  }

  @Override
  public String toString() {
    return "ModelRun{seed=" + seed + ", ops=" + opIndex + "}";
  }
}
