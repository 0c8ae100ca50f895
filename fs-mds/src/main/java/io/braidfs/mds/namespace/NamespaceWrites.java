package io.braidfs.mds.namespace;

import static java.util.Objects.requireNonNull;

import io.braidfs.common.error.Status;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.path.BraidPath;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.namespace.Resolver.Slot;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.proto.DentryValue;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.InodeType;
import io.braidfs.mds.store.proto.LayoutRecord;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.DeleteResponse;
import io.braidfs.proto.LinkRequest;
import io.braidfs.proto.LinkResponse;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.MkdirResponse;
import io.braidfs.proto.MknodRequest;
import io.braidfs.proto.MknodResponse;
import io.braidfs.proto.RemoveXattrRequest;
import io.braidfs.proto.RemoveXattrResponse;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameResponse;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.proto.RmdirRequest;
import io.braidfs.proto.RmdirResponse;
import io.braidfs.proto.SetLayoutPolicyRequest;
import io.braidfs.proto.SetLayoutPolicyResponse;
import io.braidfs.proto.SetXattrRequest;
import io.braidfs.proto.SetXattrResponse;
import io.braidfs.proto.SymlinkRequest;
import io.braidfs.proto.SymlinkResponse;
import io.braidfs.proto.UnlinkRequest;
import io.braidfs.proto.UnlinkResponse;
import io.braidfs.proto.XattrSetMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The namespace mutations on names: mkdir, unlink, rmdir, delete, link, symlink, mknod (FIFOs,
 * devices, sockets), rename, xattrs and layout policies. Each decides everything into a {@link
 * Mutation}, checking preconditions in the order of the reference model (the parent's resolution,
 * then the operation's own checks), then permissions, before it writes anything.
 *
 * <p>Why it is long: it holds one method per mutation of names (mkdir, unlink, rmdir, delete, link,
 * symlink, mknod, rename, xattrs, layout policy), each checking its preconditions in the reference
 * model's order before it writes. It could be split cleanly, as the operations share only {@code
 * slot} and {@code checkEntryChange}: rename with its exchange helpers (about 150 lines) would make
 * a class of its own, and the xattr and layout-policy writes another.
 *
 * <p>Thread-safety: not thread-safe; runs on the mutation thread.
 */
public final class NamespaceWrites {
  /** Write and search: what adding or removing an entry needs on its directory. */
  static final Access WX = Access.ofBits(Access.WRITE.bits() | Access.SEARCH.bits());

  private final Namespace ns;

  public NamespaceWrites(Namespace ns) {
    this.ns = ns;
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /**
   * The slot of {@code path}, creating missing parent directories with {@code intermediateMode} and
   * {@code group} (see Namespace.newRecord) when {@code parents} (following symlinks in existing
   * ones).
   */
  Slot slot(
      Mutation m,
      Caller caller,
      String op,
      BraidPath path,
      boolean parents,
      int intermediateMode,
      String group)
      throws IOException {
    if (!parents) {
      return ns.resolver.slot(m, caller, op, path);
    }
    List<String> comps = path.components();
    Inode cur = Tree.named(m, Tree.ROOT, "the root");
    StringBuilder walked = new StringBuilder();
    for (int i = 0; i < comps.size() - 1; i++) {
      String c = comps.get(i);
      Slot s = ns.resolver.slotIn(m, caller, op, path.toString(), cur, c);
      walked.append('/').append(c);
      if (s.existing() == null) {
        ns.permissions.check(
            caller,
            op,
            path.toString(),
            Resolver.parentOf(walked.toString()),
            cur.permission(),
            WX);
        cur = ns.mkdirIn(m, caller, cur, c, intermediateMode, group);
        continue;
      }
      cur = ns.resolver.walk(m, caller, op, path.toString(), cur, List.of(c), true);
      if (!cur.isDirectory()) {
        throw Resolver.fail(
            Status.NOT_DIRECTORY, op + " " + path + ": " + walked + " is not a directory");
      }
    }
    return ns.resolver.slotIn(m, caller, op, path.toString(), cur, path.name());
  }

  /** Checks write and search on the slot's directory, and the sticky rule for what it replaces. */
  private void checkEntryChange(Caller caller, String op, String path, Slot s) throws IOException {
    ns.permissions.check(caller, op, path, Resolver.parentOf(path), s.dir().permission(), WX);
    if (s.existing() != null) {
      ns.permissions.checkSticky(caller, op, path, s.dir().permission(), s.existing().permission());
    }
  }

  // ---- mkdir ------------------------------------------------------------------------------------

  public MkdirResponse mkdir(Mutation m, Client client, MkdirRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath path = BraidPath.parse(req.getPath());
    if (path.isRoot()) {
      if (req.getParents()) {
        return MkdirResponse.newBuilder()
            .setAttributes(Attrs.of(Tree.named(m, Tree.ROOT, "the root")))
            .setCreated(false)
            .build();
      }
      throw Resolver.fail(Status.ALREADY_EXISTS, "mkdir /: exists");
    }
    // HDFS: implicitly created parents get the mode with owner write and search added.
    Slot s =
        slot(
            m,
            caller,
            "mkdir",
            path,
            req.getParents(),
            (req.getMode() | 0300) & 07777,
            req.getGroup());
    if (s.existing() != null) {
      if (req.getParents() && s.existing().isDirectory()) {
        return MkdirResponse.newBuilder()
            .setAttributes(Attrs.of(s.existing()))
            .setCreated(false)
            .build();
      }
      throw Resolver.fail(Status.ALREADY_EXISTS, "mkdir " + path + ": exists");
    }
    checkEntryChange(caller, "mkdir", path.toString(), s);
    Inode dir = ns.mkdirIn(m, caller, s.dir(), s.name(), req.getMode(), req.getGroup());
    return MkdirResponse.newBuilder().setAttributes(Attrs.of(dir)).setCreated(true).build();
  }

  /**
   * The slot of an entry to remove: the root is refused with {@code rootStatus}, a missing entry is
   * {@code NOT_FOUND}.
   */
  private Slot removal(Mutation m, Caller caller, String op, BraidPath path, Status rootStatus)
      throws IOException {
    if (path.isRoot()) {
      throw Resolver.fail(
          rootStatus,
          op
              + " /: "
              + (rootStatus == Status.IS_DIRECTORY
                  ? "is a directory"
                  : "the root cannot be removed"));
    }
    Slot s = ns.resolver.slot(m, caller, op, path);
    if (s.existing() == null) {
      throw Resolver.fail(Status.NOT_FOUND, op + " " + path + ": no such entry");
    }
    return s;
  }

  // ---- unlink, rmdir, delete --------------------------------------------------------------------

  public UnlinkResponse unlink(Mutation m, Client client, UnlinkRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath path = BraidPath.parse(req.getPath());
    Slot s = removal(m, caller, "unlink", path, Status.IS_DIRECTORY);
    Inode victim = requireNonNull(s.existing()); // removal() refused a missing entry
    if (victim.isDirectory()) {
      throw Resolver.fail(Status.IS_DIRECTORY, "unlink " + path + ": is a directory");
    }
    checkEntryChange(caller, "unlink", path.toString(), s);
    ns.unlinkEntry(m, s.dir(), s.name(), victim);
    ns.dropLink(m, victim);
    return UnlinkResponse.getDefaultInstance();
  }

  public RmdirResponse rmdir(Mutation m, Client client, RmdirRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath path = BraidPath.parse(req.getPath());
    Slot s = removal(m, caller, "rmdir", path, Status.INVALID_ARGUMENT);
    Inode victim = requireNonNull(s.existing()); // removal() refused a missing entry
    if (!victim.isDirectory()) {
      throw Resolver.fail(Status.NOT_DIRECTORY, "rmdir " + path + ": not a directory");
    }
    if (!Tree.isEmptyDirectory(m, victim.id())) {
      throw Resolver.fail(Status.NOT_EMPTY, "rmdir " + path + ": not empty");
    }
    checkEntryChange(caller, "rmdir", path.toString(), s);
    ns.unlinkEntry(m, s.dir(), s.name(), victim);
    ns.removeInode(m, victim);
    return RmdirResponse.getDefaultInstance();
  }

  public DeleteResponse delete(Mutation m, Client client, DeleteRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath path = BraidPath.parse(req.getPath());
    Slot s = removal(m, caller, "delete", path, Status.INVALID_ARGUMENT);
    Inode victim = requireNonNull(s.existing()); // removal() refused a missing entry
    if (victim.isDirectory() && !req.getRecursive() && !Tree.isEmptyDirectory(m, victim.id())) {
      throw Resolver.fail(Status.NOT_EMPTY, "delete " + path + ": not empty");
    }
    checkEntryChange(caller, "delete", path.toString(), s);
    // Read the whole subtree and check it before writing anything: a refusal deletes nothing.
    List<Inode> dirs = new ArrayList<>();
    List<Inode> others = new ArrayList<>();
    Deque<Inode> todo = new ArrayDeque<>();
    todo.push(victim);
    while (!todo.isEmpty()) {
      Inode cur = todo.pop();
      if (!cur.isDirectory()) {
        others.add(cur);
        continue;
      }
      dirs.add(cur);
      byte[] cursor = null;
      boolean any = false;
      do {
        ScanPage page = m.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(cur.id()), cursor, 1024);
        for (ScanPage.Entry e : page.entries()) {
          any = true;
          DentryValue d = Records.decodeDentry(e.key(), e.value());
          todo.push(Tree.named(m, d.getChildId(), "entry '" + Keys.dentryName(e.key()) + "'"));
        }
        cursor = page.hasMore() ? page.cursor() : null;
      } while (cursor != null);
      if (any) {
        ns.permissions.check(
            caller, "delete", path.toString(), path.toString(), cur.permission(), WX);
      }
    }
    ns.unlinkEntry(m, s.dir(), s.name(), victim);
    for (Inode d : dirs) {
      byte[] cursor = null;
      do {
        ScanPage page = m.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(d.id()), cursor, 1024);
        for (ScanPage.Entry e : page.entries()) {
          m.delete(ColumnFamily.DENTRIES, e.key());
        }
        cursor = page.hasMore() ? page.cursor() : null;
      } while (cursor != null);
      ns.removeInode(m, d);
    }
    for (Inode f : others) {
      ns.dropLink(m, f);
    }
    return DeleteResponse.newBuilder().setDeletedCount(dirs.size() + others.size()).build();
  }

  // ---- link, symlink ----------------------------------------------------------------------------

  public LinkResponse link(Mutation m, Client client, LinkRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath existingPath = BraidPath.parse(req.getExistingPath());
    BraidPath newPath = BraidPath.parse(req.getNewPath());
    Inode target = ns.resolver.resolve(m, caller, "link", existingPath, false);
    if (target.isDirectory()) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          "link " + existingPath + ": hard links to directories are refused");
    }
    if (newPath.isRoot()) {
      throw Resolver.fail(Status.ALREADY_EXISTS, "link " + newPath + ": exists");
    }
    Slot s = ns.resolver.slot(m, caller, "link", newPath);
    if (s.existing() != null) {
      throw Resolver.fail(Status.ALREADY_EXISTS, "link " + newPath + ": exists");
    }
    checkEntryChange(caller, "link", newPath.toString(), s);
    Inode linked =
        target.with(
            target.record().toBuilder()
                .setNlink(target.record().getNlink() + 1)
                .setCtimeNs(m.nowNs())
                .build());
    m.putInode(linked);
    ns.link(m, s.dir(), s.name(), linked);
    return LinkResponse.newBuilder().setAttributes(Attrs.of(linked)).build();
  }

  public SymlinkResponse symlink(Mutation m, Client client, SymlinkRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath path = BraidPath.parse(req.getPath());
    String target = req.getTarget();
    int targetBytes = target.getBytes(StandardCharsets.UTF_8).length;
    if (targetBytes > BraidPath.MAX_PATH_BYTES) {
      throw Resolver.fail(
          Status.NAME_TOO_LONG,
          "symlink "
              + path
              + ": a target of "
              + targetBytes
              + " bytes, at most "
              + BraidPath.MAX_PATH_BYTES);
    }
    if (target.isEmpty() || target.indexOf('\0') >= 0) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "symlink "
              + path
              + ": the target must be 1 to "
              + BraidPath.MAX_PATH_BYTES
              + " bytes without NUL");
    }
    if (path.isRoot()) {
      throw Resolver.fail(Status.ALREADY_EXISTS, "symlink /: exists");
    }
    Slot s = slot(m, caller, "symlink", path, req.getCreateParents(), 0755, req.getGroup());
    if (s.existing() != null) {
      throw Resolver.fail(Status.ALREADY_EXISTS, "symlink " + path + ": exists");
    }
    checkEntryChange(caller, "symlink", path.toString(), s);
    long id = ns.counters.newInode(m);
    Inode link =
        new Inode(
            id,
            ns.newRecord(m, caller, InodeType.INODE_TYPE_SYMLINK, 0777, s.dir(), req.getGroup())
                .setNlink(1)
                .setSize(targetBytes)
                .setSymlinkTarget(target)
                .build());
    m.putInode(link);
    ns.link(m, s.dir(), s.name(), link);
    return SymlinkResponse.newBuilder().setAttributes(Attrs.of(link)).build();
  }

  // ---- mknod ------------------------------------------------------------------------------------

  /**
   * A FIFO, device node or socket: an inode with type, mode, owner, times and device number, and
   * nothing else (the kernel that opens it does its I/O). Checked as a create is.
   */
  public MknodResponse mknod(Mutation m, Client client, MknodRequest req) throws IOException {
    Caller caller = client.caller();
    BraidPath path = BraidPath.parse(req.getPath());
    InodeType type = Attrs.inodeType(req.getType());
    if (!Inode.isSpecial(type)) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "mknod "
              + path
              + ": type "
              + req.getTypeValue()
              + " is not a FIFO, a device or a socket (regular files are made by create)");
    }
    boolean device =
        type == InodeType.INODE_TYPE_CHARACTER_DEVICE || type == InodeType.INODE_TYPE_BLOCK_DEVICE;
    if (!device && req.getRdev() != 0) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, "mknod " + path + ": a device number for a FIFO or socket");
    }
    if ((req.getMode() & ~07777) != 0) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          "mknod " + path + ": mode " + Integer.toOctalString(req.getMode()) + " beyond 07777");
    }
    if (path.isRoot()) {
      throw Resolver.fail(Status.ALREADY_EXISTS, "mknod /: exists");
    }
    Slot s = slot(m, caller, "mknod", path, req.getCreateParents(), 0755, req.getGroup());
    if (s.existing() != null) {
      throw Resolver.fail(Status.ALREADY_EXISTS, "mknod " + path + ": exists");
    }
    checkEntryChange(caller, "mknod", path.toString(), s);
    long id = ns.counters.newInode(m);
    Inode node =
        new Inode(
            id,
            ns.newRecord(m, caller, type, req.getMode(), s.dir(), req.getGroup())
                .setNlink(1)
                .setRdev(req.getRdev())
                .build());
    m.putInode(node);
    ns.link(m, s.dir(), s.name(), node);
    return MknodResponse.newBuilder().setAttributes(Attrs.of(node)).build();
  }

  // ---- rename -----------------------------------------------------------------------------------

  public RenameResponse rename(Mutation m, Client client, RenameRequest req) throws IOException {
    Caller caller = client.caller();
    if (req.getSemanticsValue() < 0
        || req.getSemanticsValue() > RenameSemantics.RENAME_SEMANTICS_HADOOP_VALUE) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, "rename: unknown semantics " + req.getSemanticsValue());
    }
    BraidPath src = BraidPath.parse(req.getSourcePath());
    BraidPath dst = BraidPath.parse(req.getDestinationPath());
    if (req.getSemantics() == RenameSemantics.RENAME_SEMANTICS_HADOOP) {
      if (req.getExchange()) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT, "rename " + src + ": exchange is a POSIX rename flag only");
      }
      BraidPath finalDst = dst;
      try {
        Inode d = ns.resolver.resolve(m, caller, "rename", dst, true);
        if (d.isDirectory() && !src.isRoot()) {
          finalDst = dst.child(src.name());
        }
      } catch (IOException e) {
        if (io.braidfs.common.error.StatusExceptions.statusOf(e) != Status.NOT_FOUND) {
          throw e;
        }
      }
      return rename(m, caller, src, finalDst, true, false);
    }
    return rename(m, caller, src, dst, req.getNoReplace(), req.getExchange());
  }

  private RenameResponse rename(
      Mutation m, Caller caller, BraidPath src, BraidPath dst, boolean noReplace, boolean exchange)
      throws IOException {
    String what = "rename " + src + " -> " + dst;
    if (src.isRoot() || dst.isRoot()) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, what + ": the root cannot be renamed");
    }
    Slot from = ns.resolver.slot(m, caller, "rename", src);
    Inode moving = from.existing();
    if (moving == null) {
      throw Resolver.fail(Status.NOT_FOUND, what + ": no such entry " + src);
    }
    Slot to = ns.resolver.slot(m, caller, "rename", dst);
    if (isAncestorOrSelf(m, moving, to.dir())) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, what + ": a directory cannot move into itself");
    }
    Inode replaced = to.existing();
    RenameResponse.Builder out = RenameResponse.newBuilder().setFinalPath(dst.toString());
    if (replaced != null && replaced.id() == moving.id()) {
      return out.build();
    }
    if (exchange) {
      if (replaced == null) {
        throw Resolver.fail(Status.NOT_FOUND, what + ": no entry " + dst + " to exchange with");
      }
      if (isAncestorOrSelf(m, replaced, from.dir())) {
        throw Resolver.fail(
            Status.INVALID_ARGUMENT, what + ": a directory cannot move into itself");
      }
      checkEntryChange(caller, "rename", src.toString(), from);
      checkEntryChange(caller, "rename", dst.toString(), to);
      m.putEntry(from.dir().id(), from.name(), replaced);
      m.putEntry(to.dir().id(), to.name(), moving);
      moveInto(m, replaced, from.dir().id(), to.dir().id());
      moveInto(m, moving, to.dir().id(), from.dir().id());
      touch(m, from.dir().id());
      touch(m, to.dir().id());
      return out.build();
    }
    if (replaced != null) {
      if (noReplace) {
        throw Resolver.fail(Status.ALREADY_EXISTS, what + ": " + dst + " exists");
      }
      if (moving.isDirectory() && !replaced.isDirectory()) {
        throw Resolver.fail(Status.NOT_DIRECTORY, what + ": " + dst + " is not a directory");
      }
      if (!moving.isDirectory() && replaced.isDirectory()) {
        throw Resolver.fail(Status.IS_DIRECTORY, what + ": " + dst + " is a directory");
      }
      if (replaced.isDirectory() && !Tree.isEmptyDirectory(m, replaced.id())) {
        throw Resolver.fail(Status.NOT_EMPTY, what + ": " + dst + " is not empty");
      }
    }
    checkEntryChange(caller, "rename", src.toString(), from);
    checkEntryChange(caller, "rename", dst.toString(), to);
    if (replaced != null) {
      ns.unlinkEntry(m, to.dir(), to.name(), replaced);
      if (replaced.isDirectory()) {
        ns.removeInode(m, replaced);
      } else {
        ns.dropLink(m, replaced);
      }
    }
    ns.unlinkEntry(m, from.dir(), from.name(), moving);
    Inode fresh = Tree.named(m, moving.id(), "renamed entry");
    InodeRecord.Builder r = fresh.record().toBuilder().setCtimeNs(m.nowNs());
    if (fresh.isDirectory()) {
      r.setParentId(to.dir().id());
    }
    Inode moved = fresh.with(r.build());
    m.putInode(moved);
    ns.link(m, to.dir(), to.name(), moved);
    return out.setReplaced(replaced != null).build();
  }

  /** Moves {@code inode} (now entered in {@code newParent}) out of {@code oldParent}. */
  private void moveInto(Mutation m, Inode inode, long newParent, long oldParent)
      throws IOException {
    Inode fresh = Tree.named(m, inode.id(), "exchanged entry");
    InodeRecord.Builder r = fresh.record().toBuilder().setCtimeNs(m.nowNs());
    if (fresh.isDirectory() && newParent != oldParent) {
      r.setParentId(newParent);
      adjustLinks(m, newParent, 1);
      adjustLinks(m, oldParent, -1);
    }
    m.putInode(fresh.with(r.build()));
  }

  private void adjustLinks(Mutation m, long dir, int delta) throws IOException {
    Inode d = Tree.named(m, dir, "directory");
    m.putInode(d.with(d.record().toBuilder().setNlink(d.record().getNlink() + delta).build()));
  }

  private void touch(Mutation m, long dir) throws IOException {
    Inode d = Tree.named(m, dir, "directory");
    m.putInode(d.with(d.record().toBuilder().setMtimeNs(m.nowNs()).setCtimeNs(m.nowNs()).build()));
  }

  /** Whether {@code maybeAncestor} is a directory on the way from {@code dir} up to the root. */
  private static boolean isAncestorOrSelf(Mutation m, Inode maybeAncestor, Inode dir)
      throws IOException {
    if (!maybeAncestor.isDirectory()) {
      return false;
    }
    Inode cur = dir;
    for (int depth = 0; depth < 1 << 16; depth++) {
      if (cur.id() == maybeAncestor.id()) {
        return true;
      }
      if (cur.id() == Tree.ROOT) {
        return false;
      }
      cur = Tree.named(m, cur.record().getParentId(), "the parent of " + cur);
    }
    throw Resolver.fail(Status.INTERNAL, "corrupt metadata: a directory cycle above " + dir);
  }

  // ---- xattrs -----------------------------------------------------------------------------------

  public SetXattrResponse setXattr(Mutation m, Client client, SetXattrRequest req)
      throws IOException {
    Caller caller = client.caller();
    String path = req.getPath();
    Xattrs.Space space = Xattrs.space("setxattr", path, req.getName());
    if (req.getModeValue() < 0 || req.getModeValue() > XattrSetMode.XATTR_SET_MODE_REPLACE_VALUE) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT, "setxattr " + path + ": unknown mode " + req.getModeValue());
    }
    if (req.getValue().size() > Xattrs.MAX_VALUE_BYTES) {
      throw Resolver.fail(
          Status.OUT_OF_RANGE,
          "setxattr "
              + path
              + ": value of "
              + req.getValue().size()
              + " bytes, at most "
              + Xattrs.MAX_VALUE_BYTES);
    }
    Inode inode = ns.target(m, caller, "setxattr", path, req.getInodeId(), false);
    byte[] key = Keys.xattr(inode.id(), req.getName());
    boolean present = m.get(ColumnFamily.XATTRS, key) != null;
    if (req.getMode() == XattrSetMode.XATTR_SET_MODE_CREATE && present) {
      throw Resolver.fail(
          Status.ALREADY_EXISTS, "setxattr " + path + ": attribute " + req.getName() + " exists");
    }
    if (req.getMode() == XattrSetMode.XATTR_SET_MODE_REPLACE && !present) {
      throw Resolver.fail(Status.NOT_FOUND, "setxattr " + path + ": no attribute " + req.getName());
    }
    Xattrs.checkWrite(ns, caller, "setxattr", path, inode, space);
    m.put(ColumnFamily.XATTRS, key, req.getValue().toByteArray());
    m.putInode(inode.with(inode.record().toBuilder().setCtimeNs(m.nowNs()).build()));
    return SetXattrResponse.getDefaultInstance();
  }

  public RemoveXattrResponse removeXattr(Mutation m, Client client, RemoveXattrRequest req)
      throws IOException {
    Caller caller = client.caller();
    String path = req.getPath();
    Xattrs.Space space = Xattrs.space("removexattr", path, req.getName());
    Inode inode = ns.target(m, caller, "removexattr", path, req.getInodeId(), false);
    byte[] key = Keys.xattr(inode.id(), req.getName());
    if (m.get(ColumnFamily.XATTRS, key) == null) {
      throw Resolver.fail(
          Status.NOT_FOUND, "removexattr " + path + ": no attribute " + req.getName());
    }
    Xattrs.checkWrite(ns, caller, "removexattr", path, inode, space);
    m.delete(ColumnFamily.XATTRS, key);
    m.putInode(inode.with(inode.record().toBuilder().setCtimeNs(m.nowNs()).build()));
    return RemoveXattrResponse.getDefaultInstance();
  }

  // ---- layout policy ----------------------------------------------------------------------------

  public SetLayoutPolicyResponse setLayoutPolicy(
      Mutation m, Client client, SetLayoutPolicyRequest req) throws IOException {
    Caller caller = client.caller();
    String path = req.getPath();
    Inode dir = ns.resolver.resolve(m, caller, "setlayout", BraidPath.parse(path), true);
    if (!dir.isDirectory()) {
      throw Resolver.fail(Status.NOT_DIRECTORY, "setlayout " + path + ": not a directory");
    }
    ns.permissions.checkOwnerOrSuper(caller, "setlayout", path, dir.permission());
    InodeRecord.Builder r = dir.record().toBuilder().setCtimeNs(m.nowNs());
    if (req.getClear()) {
      r.clearLayoutPolicy();
    } else {
      r.setLayoutPolicy(Attrs.record(req.getPolicy()));
    }
    Inode updated = dir.with(r.build());
    LayoutRecord effective = ns.effectiveLayout(m, updated);
    validLayout("setlayout " + path, effective);
    m.putInode(updated);
    return SetLayoutPolicyResponse.newBuilder().setEffective(Attrs.spec(effective)).build();
  }

  /** Checks that {@code l} is a valid layout; INVALID_ARGUMENT naming the problem otherwise. */
  static Layout validLayout(String what, LayoutRecord l) throws IOException {
    try {
      return Attrs.layout(l);
    } catch (IllegalArgumentException e) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, what + ": invalid layout: " + e.getMessage());
    }
  }
}
