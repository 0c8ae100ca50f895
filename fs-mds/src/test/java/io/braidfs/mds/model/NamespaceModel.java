package io.braidfs.mds.model;

import io.braidfs.common.error.Status;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The reference model of Braid's namespace semantics, as mds.proto specifies them: an executable
 * specification that the metadata server must agree with, result for result and status for status,
 * in the model-based test (issue 3).
 *
 * <p>Plain Java collections, no persistence, no clocks and no permissions (every call acts as the
 * superuser; permission checks are tested separately). Where several errors apply to one call, the
 * first in this order wins, and the MDS must check in the same order: the source path's resolution
 * (missing ancestor {@code NOT_FOUND}, ancestor not a directory {@code NOT_DIRECTORY}, symlink loop
 * {@code TOO_MANY_LINKS}), then the destination's, then the operation's own preconditions in the
 * order each method documents.
 *
 * <p>Implicitly created ancestors: {@code mkdir} with {@code parents} gives each missing ancestor
 * {@code mode | 0300} (owner write and search added, as HDFS does and as {@code MkdirRequest}
 * documents), while {@code create} and {@code symlink} with {@code create_parents} give them {@code
 * 0755}. The directory named by a mkdir itself gets {@code mode} unchanged.
 *
 * <p>Link counts: {@link #linkCount} gives what {@code Attributes.nlink} must say, {@code 2 +
 * subdirectories} for a directory; {@link #dump()} leaves directories' counts out (0).
 *
 * <p>Paths are absolute and already valid (see {@code BraidPath}); names compare as Java strings,
 * which for valid UTF-8 names is the byte order the MDS lists them in only for BMP characters, so
 * model-based tests draw names from ASCII.
 *
 * <p>Thread-safety: not thread-safe.
 */
public final class NamespaceModel {
  /** The root directory's inode id. */
  public static final long ROOT = 1;

  /** Symlinks followed in one resolution before {@code TOO_MANY_LINKS} (as Linux's ELOOP). */
  public static final int MAX_SYMLINK_HOPS = 40;

  /** Marks "do not create missing ancestors" for {@link #slot}. */
  private static final int NO_PARENTS = -1;

  /** The mode {@code create} and {@code symlink} give ancestors made with create_parents. */
  private static final int CREATE_PARENTS_MODE = 0755;

  /** What an inode is. */
  public enum Type {
    DIRECTORY,
    FILE,
    SYMLINK
  }

  /** One inode; directories know their parent, for the rename-into-own-subtree check. */
  public static final class Inode {
    final long id;
    final Type type;
    int mode;
    long size;
    int nlink = 1;
    long parent;
    final TreeMap<String, Long> entries;
    final String target;
    final TreeMap<String, byte[]> xattrs = new TreeMap<>();

    Inode(long id, Type type, int mode, long parent, String target) {
      this.id = id;
      this.type = type;
      this.mode = mode;
      this.parent = parent;
      this.entries = type == Type.DIRECTORY ? new TreeMap<>() : null;
      this.target = target;
      this.size = target == null ? 0 : target.length();
    }

    public long id() {
      return id;
    }

    public Type type() {
      return type;
    }

    public int mode() {
      return mode;
    }

    public long size() {
      return size;
    }

    /** The hard-link count of a file or symlink; see {@link NamespaceModel#linkCount} for all. */
    public int nlink() {
      return nlink;
    }

    /** A symlink's target as given; null for anything else. */
    public String target() {
      return target;
    }

    @Override
    public String toString() {
      return type + "#" + id + "(mode=" + Integer.toOctalString(mode) + ", size=" + size + ")";
    }
  }

  /** A failed operation: the status the MDS must answer. */
  public static final class ModelException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Status status;

    ModelException(Status status, String message) {
      super(status + ": " + message, null, false, false);
      this.status = status;
    }

    public Status status() {
      return status;
    }
  }

  /** A directory and a name in it: where an operation's final component goes. */
  private record Slot(Inode dir, String name) {
    Inode existing(NamespaceModel m) {
      Long id = dir.entries.get(name);
      return id == null ? null : m.inodes.get(id);
    }
  }

  private final Map<Long, Inode> inodes = new HashMap<>();
  private long nextId = ROOT + 1;

  public NamespaceModel() {
    inodes.put(ROOT, new Inode(ROOT, Type.DIRECTORY, 0755, ROOT, null));
  }

  private static ModelException fail(Status status, String what) {
    return new ModelException(status, what);
  }

  private static List<String> components(String path) {
    List<String> out = new ArrayList<>();
    for (String c : path.split("/")) {
      if (!c.isEmpty()) {
        out.add(c);
      }
    }
    return out;
  }

  // ---- resolution -------------------------------------------------------------------------------

  /**
   * Walks {@code comps} from {@code start}, following symlinks in every component and, if asked, in
   * the last one. "." and ".." can appear only through symlink targets.
   */
  private Inode walk(Inode start, List<String> comps, boolean followLast, String path) {
    Inode cur = start;
    Deque<String> todo = new ArrayDeque<>(comps);
    int hops = 0;
    while (!todo.isEmpty()) {
      String c = todo.poll();
      if (cur.type != Type.DIRECTORY) {
        throw fail(Status.NOT_DIRECTORY, path + ": a component is not a directory");
      }
      if (c.equals(".")) {
        continue;
      }
      if (c.equals("..")) {
        cur = inodes.get(cur.parent);
        continue;
      }
      Long id = cur.entries.get(c);
      if (id == null) {
        throw fail(Status.NOT_FOUND, path + ": no entry " + c);
      }
      Inode next = inodes.get(id);
      if (next.type == Type.SYMLINK && (!todo.isEmpty() || followLast)) {
        if (++hops > MAX_SYMLINK_HOPS) {
          throw fail(Status.TOO_MANY_LINKS, path + ": more than " + MAX_SYMLINK_HOPS + " links");
        }
        List<String> target = components(next.target);
        for (int i = target.size() - 1; i >= 0; i--) {
          todo.push(target.get(i));
        }
        if (next.target.startsWith("/")) {
          cur = inodes.get(ROOT);
        }
        continue;
      }
      cur = next;
    }
    return cur;
  }

  private Inode resolve(String path, boolean followLast) {
    return walk(inodes.get(ROOT), components(path), followLast, path);
  }

  /**
   * The directory that holds the last component of {@code path}, and that name.
   *
   * @param parentsMode the mode of missing ancestors to create, or {@link #NO_PARENTS}
   */
  private Slot slot(String path, int parentsMode) {
    List<String> comps = components(path);
    if (comps.isEmpty()) {
      throw fail(Status.INVALID_ARGUMENT, path + ": the root has no parent");
    }
    List<String> parentComps = comps.subList(0, comps.size() - 1);
    Inode dir =
        parentsMode != NO_PARENTS
            ? mkdirs(parentComps, parentsMode, path)
            : walk(root(), parentComps, true, path);
    if (dir.type != Type.DIRECTORY) {
      throw fail(Status.NOT_DIRECTORY, path + ": the parent is not a directory");
    }
    return new Slot(dir, comps.get(comps.size() - 1));
  }

  private Inode root() {
    return inodes.get(ROOT);
  }

  /**
   * Resolves a chain of directories, creating missing ones with {@code mode}: {@code mode | 0300}
   * of the requested directory for mkdir with parents (HDFS), {@link #CREATE_PARENTS_MODE} for
   * create and symlink with create_parents.
   */
  private Inode mkdirs(List<String> comps, int mode, String path) {
    Inode cur = root();
    for (int i = 0; i < comps.size(); i++) {
      Long id = cur.entries.get(comps.get(i));
      if (id == null) {
        Inode dir = newInode(Type.DIRECTORY, mode, cur.id, null);
        cur.entries.put(comps.get(i), dir.id);
        cur = dir;
        continue;
      }
      Inode next = walk(cur, List.of(comps.get(i)), true, path);
      if (next.type != Type.DIRECTORY) {
        throw fail(Status.NOT_DIRECTORY, path + ": " + comps.get(i) + " is not a directory");
      }
      cur = next;
    }
    return cur;
  }

  private Inode newInode(Type type, int mode, long parent, String target) {
    Inode inode = new Inode(nextId++, type, mode & 07777, parent, target);
    inodes.put(inode.id, inode);
    return inode;
  }

  /** Drops one link to {@code inode}, and the inode with its last link. */
  private void unlinkInode(Inode inode) {
    if (--inode.nlink == 0) {
      inodes.remove(inode.id);
    }
  }

  // ---- reads ------------------------------------------------------------------------------------

  /** Lookup: the entry at {@code path}, through a final symlink when {@code follow}. */
  public Inode lookup(String path, boolean follow) {
    return resolve(path, follow);
  }

  /** GetAttr: lstat. */
  public Inode getAttr(String path) {
    return resolve(path, false);
  }

  /** ReadDir: the names and types of a directory's entries in order (final symlink followed). */
  public List<Map.Entry<String, Type>> readDir(String path) {
    Inode dir = resolve(path, true);
    if (dir.type != Type.DIRECTORY) {
      throw fail(Status.NOT_DIRECTORY, path + ": not a directory");
    }
    List<Map.Entry<String, Type>> out = new ArrayList<>();
    dir.entries.forEach((name, id) -> out.add(Map.entry(name, inodes.get(id).type)));
    return out;
  }

  /** ReadLink: a symlink's target; {@code INVALID_ARGUMENT} for anything else. */
  public String readLink(String path) {
    Inode link = resolve(path, false);
    if (link.type != Type.SYMLINK) {
      throw fail(Status.INVALID_ARGUMENT, path + ": not a symlink");
    }
    return link.target;
  }

  /** GetXattr: the value, or empty when absent (not an error). */
  public Optional<byte[]> getXattr(String path, String name) {
    byte[] v = resolve(path, false).xattrs.get(name);
    return Optional.ofNullable(v == null ? null : v.clone());
  }

  /** ListXattrs: the names in order. */
  public List<String> listXattrs(String path) {
    return new ArrayList<>(resolve(path, false).xattrs.keySet());
  }

  /** The number of inodes, root included (StatFs inode_count). */
  public int inodeCount() {
    return inodes.size();
  }

  /**
   * What {@code Attributes.nlink} says for {@code inode}: for a directory 2 plus its subdirectories
   * (its entry in the parent, its own "." and each child's ".."), otherwise the number of names
   * linking to it.
   */
  public int linkCount(Inode inode) {
    if (inode.type != Type.DIRECTORY) {
      return inode.nlink;
    }
    int links = 2;
    for (Long child : inode.entries.values()) {
      if (inodes.get(child).type == Type.DIRECTORY) {
        links++;
      }
    }
    return links;
  }

  // ---- mutations --------------------------------------------------------------------------------

  /**
   * Mkdir. Checks, in order: the root ({@code ALREADY_EXISTS}, or not created with parents); the
   * parent; an existing entry ({@code ALREADY_EXISTS}, unless {@code parents} and it is a
   * directory, which is not created again). With {@code parents}, missing ancestors are created
   * with {@code mode | 0300}.
   *
   * @return whether a directory was created
   */
  public boolean mkdir(String path, int mode, boolean parents) {
    if (components(path).isEmpty()) {
      if (parents) {
        return false;
      }
      throw fail(Status.ALREADY_EXISTS, path + ": exists");
    }
    Slot s = slot(path, parents ? (mode | 0300) & 07777 : NO_PARENTS);
    Inode existing = s.existing(this);
    if (existing != null) {
      if (parents && existing.type == Type.DIRECTORY) {
        return false;
      }
      throw fail(Status.ALREADY_EXISTS, path + ": exists");
    }
    Inode dir = newInode(Type.DIRECTORY, mode, s.dir.id, null);
    s.dir.entries.put(s.name, dir.id);
    return true;
  }

  /**
   * Create. Checks, in order: the root ({@code IS_DIRECTORY}); the parent; an existing directory
   * ({@code IS_DIRECTORY}); an existing other entry without overwrite ({@code ALREADY_EXISTS}).
   * With overwrite an existing file or symlink is unlinked and a new inode takes its name. With
   * {@code createParents}, missing ancestors are created with mode 0755.
   *
   * @return the new file
   */
  public Inode create(String path, int mode, boolean overwrite, boolean createParents) {
    if (components(path).isEmpty()) {
      throw fail(Status.IS_DIRECTORY, path + ": is a directory");
    }
    Slot s = slot(path, createParents ? CREATE_PARENTS_MODE : NO_PARENTS);
    Inode existing = s.existing(this);
    if (existing != null) {
      if (existing.type == Type.DIRECTORY) {
        throw fail(Status.IS_DIRECTORY, path + ": is a directory");
      }
      if (!overwrite) {
        throw fail(Status.ALREADY_EXISTS, path + ": exists");
      }
      unlinkInode(existing);
    }
    Inode file = newInode(Type.FILE, mode, s.dir.id, null);
    s.dir.entries.put(s.name, file.id);
    return file;
  }

  /** Unlink. Checks, in order: the root and directories ({@code IS_DIRECTORY}); absence. */
  public void unlink(String path) {
    if (components(path).isEmpty()) {
      throw fail(Status.IS_DIRECTORY, path + ": is a directory");
    }
    Slot s = slot(path, NO_PARENTS);
    Inode existing = s.existing(this);
    if (existing == null) {
      throw fail(Status.NOT_FOUND, path + ": no such entry");
    }
    if (existing.type == Type.DIRECTORY) {
      throw fail(Status.IS_DIRECTORY, path + ": is a directory");
    }
    s.dir.entries.remove(s.name);
    unlinkInode(existing);
  }

  /**
   * Concat: the target (a final symlink followed) grows by the sources' sizes, in order, and each
   * source is unlinked. Checks, in order: no sources ({@code INVALID_ARGUMENT}); the target's
   * resolution, a directory ({@code IS_DIRECTORY}); then each source in order: the root ({@code
   * IS_DIRECTORY}), its parent's resolution, absence, a directory ({@code IS_DIRECTORY}), a
   * symlink, the target itself or a file named already ({@code INVALID_ARGUMENT}).
   */
  public Inode concat(String target, List<String> sources) {
    if (sources.isEmpty()) {
      throw fail(Status.INVALID_ARGUMENT, target + ": no sources");
    }
    Inode t = resolve(target, true);
    if (t.type == Type.DIRECTORY) {
      throw fail(Status.IS_DIRECTORY, target + ": is a directory");
    }
    List<Slot> slots = new ArrayList<>();
    List<Long> seen = new ArrayList<>();
    for (String p : sources) {
      if (components(p).isEmpty()) {
        throw fail(Status.IS_DIRECTORY, p + ": is a directory");
      }
      Slot s = slot(p, NO_PARENTS);
      Inode src = s.existing(this);
      if (src == null) {
        throw fail(Status.NOT_FOUND, p + ": no such entry");
      }
      if (src.type == Type.DIRECTORY) {
        throw fail(Status.IS_DIRECTORY, p + ": is a directory");
      }
      if (src.type != Type.FILE || src.id == t.id || seen.contains(src.id)) {
        throw fail(
            Status.INVALID_ARGUMENT, p + ": not a distinct regular file other than the target");
      }
      seen.add(src.id);
      slots.add(s);
    }
    for (Slot s : slots) {
      Inode src = s.existing(this);
      t.size += src.size;
      s.dir.entries.remove(s.name);
      unlinkInode(src);
    }
    return t;
  }

  /** Rmdir. Checks, in order: the root ({@code INVALID_ARGUMENT}); absence; type; emptiness. */
  public void rmdir(String path) {
    if (components(path).isEmpty()) {
      throw fail(Status.INVALID_ARGUMENT, path + ": the root cannot be removed");
    }
    Slot s = slot(path, NO_PARENTS);
    Inode existing = s.existing(this);
    if (existing == null) {
      throw fail(Status.NOT_FOUND, path + ": no such entry");
    }
    if (existing.type != Type.DIRECTORY) {
      throw fail(Status.NOT_DIRECTORY, path + ": not a directory");
    }
    if (!existing.entries.isEmpty()) {
      throw fail(Status.NOT_EMPTY, path + ": not empty");
    }
    s.dir.entries.remove(s.name);
    inodes.remove(existing.id);
  }

  /**
   * Delete (Hadoop). Checks, in order: the root ({@code INVALID_ARGUMENT}); absence; a non-empty
   * directory without recursive ({@code NOT_EMPTY}).
   *
   * @return the number of entries removed, the target included
   */
  public long delete(String path, boolean recursive) {
    if (components(path).isEmpty()) {
      throw fail(Status.INVALID_ARGUMENT, path + ": the root cannot be removed");
    }
    Slot s = slot(path, NO_PARENTS);
    Inode existing = s.existing(this);
    if (existing == null) {
      throw fail(Status.NOT_FOUND, path + ": no such entry");
    }
    if (existing.type == Type.DIRECTORY && !existing.entries.isEmpty() && !recursive) {
      throw fail(Status.NOT_EMPTY, path + ": not empty");
    }
    s.dir.entries.remove(s.name);
    return removeTree(existing);
  }

  private long removeTree(Inode inode) {
    long removed = 1;
    if (inode.type == Type.DIRECTORY) {
      for (Long child : inode.entries.values()) {
        removed += removeTree(inodes.get(child));
      }
      inodes.remove(inode.id);
    } else {
      unlinkInode(inode);
    }
    return removed;
  }

  /**
   * Link. Checks, in order: the existing entry's resolution (final symlink not followed); a
   * directory ({@code PERMISSION_DENIED}, POSIX's EPERM); the new path's parent; a taken name
   * ({@code ALREADY_EXISTS}).
   */
  public Inode link(String existingPath, String newPath) {
    Inode target = resolve(existingPath, false);
    if (target.type == Type.DIRECTORY) {
      throw fail(
          Status.PERMISSION_DENIED, existingPath + ": hard links to directories are refused");
    }
    Slot s = slot(newPath, NO_PARENTS);
    if (s.existing(this) != null) {
      throw fail(Status.ALREADY_EXISTS, newPath + ": exists");
    }
    s.dir.entries.put(s.name, target.id);
    target.nlink++;
    return target;
  }

  /**
   * Symlink. Checks, in order: the parent; a taken name ({@code ALREADY_EXISTS}). With {@code
   * createParents}, missing ancestors are created with mode 0755.
   */
  public Inode symlink(String target, String path, boolean createParents) {
    if (components(path).isEmpty()) {
      throw fail(Status.ALREADY_EXISTS, path + ": exists");
    }
    Slot s = slot(path, createParents ? CREATE_PARENTS_MODE : NO_PARENTS);
    if (s.existing(this) != null) {
      throw fail(Status.ALREADY_EXISTS, path + ": exists");
    }
    Inode link = newInode(Type.SYMLINK, 0777, s.dir.id, target);
    s.dir.entries.put(s.name, link.id);
    return link;
  }

  /**
   * SetAttr of mode and size (a final symlink is not followed). A size on a directory is {@code
   * IS_DIRECTORY}, on a symlink {@code INVALID_ARGUMENT}.
   */
  public Inode setAttr(String path, Integer mode, Long size) {
    Inode inode = resolve(path, false);
    if (size != null) {
      if (inode.type == Type.DIRECTORY) {
        throw fail(Status.IS_DIRECTORY, path + ": is a directory");
      }
      if (inode.type == Type.SYMLINK) {
        throw fail(Status.INVALID_ARGUMENT, path + ": a symlink has no settable size");
      }
      inode.size = size;
    }
    if (mode != null) {
      inode.mode = mode & 07777;
    }
    return inode;
  }

  /** How SetXattr treats an existing or missing attribute. */
  public enum XattrMode {
    EITHER,
    CREATE,
    REPLACE
  }

  /**
   * SetXattr: {@code ALREADY_EXISTS} for CREATE of a present name, {@code NOT_FOUND} for REPLACE.
   */
  public void setXattr(String path, String name, byte[] value, XattrMode mode) {
    Inode inode = resolve(path, false);
    boolean present = inode.xattrs.containsKey(name);
    if (mode == XattrMode.CREATE && present) {
      throw fail(Status.ALREADY_EXISTS, path + ": attribute " + name + " exists");
    }
    if (mode == XattrMode.REPLACE && !present) {
      throw fail(Status.NOT_FOUND, path + ": no attribute " + name);
    }
    inode.xattrs.put(name, value.clone());
  }

  /** RemoveXattr: {@code NOT_FOUND} when absent. */
  public void removeXattr(String path, String name) {
    if (resolve(path, false).xattrs.remove(name) == null) {
      throw fail(Status.NOT_FOUND, path + ": no attribute " + name);
    }
  }

  /** The outcome of a rename. */
  public record Renamed(String finalPath, boolean replaced) {}

  /**
   * Rename, POSIX flavour (rename(2) with RENAME_NOREPLACE / RENAME_EXCHANGE). Checks, in order:
   * the root ({@code INVALID_ARGUMENT}); the source's resolution and absence ({@code NOT_FOUND});
   * the destination's parent; moving a directory into its own subtree ({@code INVALID_ARGUMENT});
   * the same inode at both ends (nothing happens); exchange without a destination ({@code
   * NOT_FOUND}); no-replace with a destination ({@code ALREADY_EXISTS}); type conflicts (directory
   * over non-directory {@code NOT_DIRECTORY}, non-directory over directory {@code IS_DIRECTORY}); a
   * non-empty destination directory ({@code NOT_EMPTY}).
   */
  public Renamed rename(String src, String dst, boolean noReplace, boolean exchange) {
    if (components(src).isEmpty() || components(dst).isEmpty()) {
      throw fail(Status.INVALID_ARGUMENT, src + " -> " + dst + ": the root cannot be renamed");
    }
    Slot from = slot(src, NO_PARENTS);
    Inode moving = from.existing(this);
    if (moving == null) {
      throw fail(Status.NOT_FOUND, src + ": no such entry");
    }
    Slot to = slot(dst, NO_PARENTS);
    if (isAncestorOrSelf(moving, to.dir)) {
      throw fail(Status.INVALID_ARGUMENT, src + " -> " + dst + ": into its own subtree");
    }
    Inode replaced = to.existing(this);
    if (replaced == moving) {
      return new Renamed(dst, false);
    }
    if (exchange) {
      if (replaced == null) {
        throw fail(Status.NOT_FOUND, dst + ": no such entry to exchange with");
      }
      if (isAncestorOrSelf(replaced, from.dir)) {
        throw fail(Status.INVALID_ARGUMENT, src + " <-> " + dst + ": into its own subtree");
      }
      from.dir.entries.put(from.name, replaced.id);
      to.dir.entries.put(to.name, moving.id);
      reparent(replaced, from.dir);
      reparent(moving, to.dir);
      return new Renamed(dst, false);
    }
    if (replaced != null) {
      if (noReplace) {
        throw fail(Status.ALREADY_EXISTS, dst + ": exists");
      }
      boolean movingDir = moving.type == Type.DIRECTORY;
      boolean replacedDir = replaced.type == Type.DIRECTORY;
      if (movingDir && !replacedDir) {
        throw fail(Status.NOT_DIRECTORY, dst + ": not a directory");
      }
      if (!movingDir && replacedDir) {
        throw fail(Status.IS_DIRECTORY, dst + ": is a directory");
      }
      if (replacedDir && !replaced.entries.isEmpty()) {
        throw fail(Status.NOT_EMPTY, dst + ": not empty");
      }
      if (replacedDir) {
        inodes.remove(replaced.id);
      } else {
        unlinkInode(replaced);
      }
    }
    from.dir.entries.remove(from.name);
    to.dir.entries.put(to.name, moving.id);
    reparent(moving, to.dir);
    return new Renamed(dst, replaced != null);
  }

  /**
   * Rename, Hadoop flavour (FileSystem.rename): a destination that is an existing directory (final
   * symlink followed) receives the source as {@code dst/<source name>}; an existing file at the
   * final destination is never replaced ({@code ALREADY_EXISTS}); then the POSIX checks apply.
   */
  public Renamed renameHadoop(String src, String dst) {
    String finalDst = dst;
    try {
      Inode d = resolve(dst, true);
      if (d.type == Type.DIRECTORY && !components(src).isEmpty()) {
        List<String> s = components(src);
        finalDst = (dst.equals("/") ? "" : dst) + "/" + s.get(s.size() - 1);
      }
    } catch (ModelException e) {
      if (e.status() != Status.NOT_FOUND) {
        throw e;
      }
    }
    Renamed r = rename(src, finalDst, true, false);
    return new Renamed(finalDst, r.replaced());
  }

  private boolean isAncestorOrSelf(Inode maybeAncestor, Inode dir) {
    if (maybeAncestor.type != Type.DIRECTORY) {
      return false;
    }
    for (Inode cur = dir; ; cur = inodes.get(cur.parent)) {
      if (cur.id == maybeAncestor.id) {
        return true;
      }
      if (cur.id == ROOT) {
        return false;
      }
    }
  }

  private static void reparent(Inode inode, Inode newParent) {
    if (inode.type == Type.DIRECTORY) {
      inode.parent = newParent.id;
    }
  }

  // ---- comparison -------------------------------------------------------------------------------

  /**
   * The whole tree as sorted lines ("path type mode size nlink [target]"), without inode ids, so a
   * model and a server built by the same operations compare equal.
   */
  public List<String> dump() {
    List<String> out = new ArrayList<>();
    dump(root(), "", out);
    return out;
  }

  private void dump(Inode dir, String prefix, List<String> out) {
    for (Map.Entry<String, Long> e : dir.entries.entrySet()) {
      Inode child = inodes.get(e.getValue());
      String path = prefix + "/" + e.getKey();
      out.add(describe(path, child));
      if (child.type == Type.DIRECTORY) {
        dump(child, path, out);
      }
    }
  }

  /** One line of {@link #dump()}. */
  public static String describe(String path, Inode inode) {
    return describe(
        path,
        inode.type,
        inode.mode,
        inode.type == Type.DIRECTORY ? 0 : inode.size,
        inode.type == Type.DIRECTORY ? 0 : inode.nlink,
        inode.target,
        inode.xattrs.keySet().toArray(new String[0]));
  }

  /** One line of {@link #dump()}, from the parts a server reports. */
  public static String describe(
      String path, Type type, int mode, long size, int nlink, String target, String[] xattrs) {
    return path
        + " "
        + type
        + " "
        + Integer.toOctalString(mode)
        + " "
        + size
        + " "
        + nlink
        + (target == null ? "" : " -> " + target)
        + (xattrs.length == 0 ? "" : " " + Arrays.toString(xattrs));
  }
}
