package io.braidfs.mds.access;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * POSIX permission checks for the namespace operations: mode bits, owner and group, the sticky bit,
 * and a configured superuser and supergroup. Pure logic: it reads nothing and changes nothing, so
 * the namespace calls it on its executor before it builds a journal record.
 *
 * <p><b>Which bits apply.</b> Exactly one class of the mode is consulted: the owner bits if the
 * caller's user is the inode's owner, else the group bits if any of the caller's groups is the
 * inode's group, else the other bits. There is no fallthrough: an owner whose owner bits lack write
 * is denied write even if the group or other bits grant it (POSIX, and HDFS).
 *
 * <p><b>Superusers.</b> The configured superuser ({@link MdsSecurityConfigKeys#SUPERUSER}) and
 * every member of the supergroup ({@link MdsSecurityConfigKeys#SUPERGROUP}) pass every check, with
 * one exception taken from POSIX: execute on a non-directory needs at least one execute bit (owner,
 * group or other), as for root on Linux. Search on a directory always passes.
 *
 * <p><b>Switched off.</b> With {@link MdsSecurityConfigKeys#PERMISSIONS} false every check passes,
 * including the superuser-only ones (HDFS {@code dfs.permissions.enabled=false}).
 *
 * <p><b>What each operation checks</b> (HDFS {@code FSPermissionChecker}, POSIX where they differ).
 * Every operation first calls {@link #checkTraverse} with the directories from the root to the
 * parent of the last component. Then:
 *
 * <ul>
 *   <li>getattr, lookup, readlink: nothing more;
 *   <li>readdir: {@code READ_EXECUTE} on the directory ({@code READ} alone with names only);
 *   <li>open for reading: {@code READ}; for writing, truncate, set the size: {@code WRITE};
 *   <li>create, mkdir, symlink, mknod, link: {@code WRITE_EXECUTE} on the parent;
 *   <li>unlink, rmdir, delete: {@code WRITE_EXECUTE} on the parent, then {@link #checkSticky}; a
 *       recursive delete also needs {@code ALL} on every directory below (HDFS);
 *   <li>rename: {@code WRITE_EXECUTE} on both parents, {@link #checkSticky} on the source and, if
 *       it replaces an entry, on the destination;
 *   <li>chmod, and xattrs outside the user namespace: {@link #checkOwnerOrSuper}; chown and chgrp:
 *       {@link #checkSetOwner}; utimes: {@link #checkSetTimes};
 *   <li>user xattrs: {@code READ} to get or list, {@code WRITE} to set or remove.
 * </ul>
 *
 * <p><b>Denials</b> are the {@link Status#PERMISSION_DENIED} exception made by {@link
 * StatusExceptions#toIOException(Status, String)}, whose message names the operation, the path, the
 * user and what was missing, as in {@code mkdir /a/b: user alice lacks WRITE on /a (owner bob,
 * group staff, mode 0755)}.
 *
 * <p>Thread-safety: immutable; safe for concurrent use.
 */
public final class Permissions {
  private final boolean enabled;
  private final String superuser;
  private final String supergroup;

  /**
   * Permission checks with these settings.
   *
   * @param enabled false to let every check pass
   * @param superuser the user that passes every check; empty for none
   * @param supergroup the group whose members pass every check; empty for none
   * @throws NullPointerException if {@code superuser} or {@code supergroup} is null
   */
  public Permissions(boolean enabled, String superuser, String supergroup) {
    this.enabled = enabled;
    this.superuser = Objects.requireNonNull(superuser, "superuser");
    this.supergroup = Objects.requireNonNull(supergroup, "supergroup");
  }

  /** Permission checks configured by the {@link MdsSecurityConfigKeys} of {@code config}. */
  public static Permissions from(BraidConfig config) {
    return new Permissions(
        config.get(MdsSecurityConfigKeys.PERMISSIONS),
        config.get(MdsSecurityConfigKeys.SUPERUSER),
        config.get(MdsSecurityConfigKeys.SUPERGROUP));
  }

  /** Whether checks are made at all. */
  public boolean enabled() {
    return enabled;
  }

  /** The superuser's name; empty if there is none. */
  public String superuser() {
    return superuser;
  }

  /** The supergroup's name; empty if there is none. */
  public String supergroup() {
    return supergroup;
  }

  /**
   * Whether the caller is a superuser: the configured superuser or a member of the supergroup. This
   * ignores {@link #enabled()}. (Caller names are never empty, so an empty setting matches nobody.)
   */
  public boolean isSuperuser(Caller caller) {
    return caller.user().equals(superuser) || caller.isMemberOf(supergroup);
  }

  /**
   * Whether the caller has {@code wanted} on the inode: the rules of the class javadoc as a
   * predicate, for {@code access(2)} and for callers that choose their own error.
   */
  public boolean allows(Caller caller, PermissionStatus inode, Access wanted) {
    return !enabled || missing(caller, inode, wanted) == Access.NONE;
  }

  /**
   * Checks that the caller has {@code wanted} on one inode.
   *
   * @param caller who asks
   * @param op the operation, for the message ({@code mkdir})
   * @param path the path the operation was called with, for the message
   * @param inodePath the path of the inode checked ({@code path} itself, or its parent)
   * @param inode the inode checked
   * @param wanted the access needed
   * @throws IOException with {@link Status#PERMISSION_DENIED} if the caller lacks part of it
   */
  public void check(
      Caller caller,
      String op,
      String path,
      String inodePath,
      PermissionStatus inode,
      Access wanted)
      throws IOException {
    if (!enabled) {
      return;
    }
    Access missing = missing(caller, inode, wanted);
    if (missing != Access.NONE) {
      throw lacks(caller, op, path, inodePath, inode, missing);
    }
  }

  /**
   * Checks search permission on each directory entered to resolve {@code path}, from the root down,
   * and names the first one that lacks it.
   *
   * @param path a normalized absolute path ({@code /a/b/c}); {@code dirs.get(i)} is the directory
   *     named by its first {@code i} components, so {@code dirs.get(0)} is the root
   * @param dirs the directories entered: usually the root through the parent of the last component
   *     (one more, the last component itself, for operations that enter it)
   * @throws IOException with {@link Status#PERMISSION_DENIED} naming the first directory the caller
   *     may not search
   * @throws IllegalArgumentException if {@code path} is not absolute, {@code dirs} is longer than
   *     the path has components plus one, or an element of {@code dirs} is not a directory
   */
  public void checkTraverse(Caller caller, String op, String path, List<PermissionStatus> dirs)
      throws IOException {
    int components = componentCount(path);
    if (dirs.size() > components + 1) {
      throw new IllegalArgumentException(
          op + " " + path + ": " + dirs.size() + " directories for " + components + " components");
    }
    boolean superuser = isSuperuser(caller);
    for (int i = 0; i < dirs.size(); i++) {
      PermissionStatus dir = dirs.get(i);
      if (!dir.directory()) {
        throw new IllegalArgumentException(
            op + " " + path + ": " + prefix(path, i) + " is not a directory");
      }
      if (enabled
          && !superuser
          && !classAccess(caller, dir, Access.SEARCH).implies(Access.SEARCH)) {
        throw lacks(caller, op, path, prefix(path, i), dir, Access.SEARCH);
      }
    }
  }

  /**
   * Checks the sticky-bit rule before an entry is removed from a directory or renamed out of (or
   * over an entry of) it: in a sticky directory only the entry's owner, the directory's owner and a
   * superuser may. Write and search on the directory are checked separately with {@link #check}.
   *
   * @param path the entry's path; its parent is {@code dir}
   * @param dir the directory holding the entry
   * @param entry the entry removed, renamed or replaced
   * @throws IOException with {@link Status#PERMISSION_DENIED} if the directory is sticky and the
   *     caller owns neither it nor the entry and is not a superuser
   * @throws IllegalArgumentException if {@code dir} is not a directory
   */
  public void checkSticky(
      Caller caller, String op, String path, PermissionStatus dir, PermissionStatus entry)
      throws IOException {
    if (!dir.directory()) {
      throw new IllegalArgumentException(op + " " + path + ": the parent is not a directory");
    }
    if (!enabled || !dir.isSticky() || isSuperuser(caller)) {
      return;
    }
    String user = caller.user();
    if (user.equals(entry.owner()) || user.equals(dir.owner())) {
      return;
    }
    throw denied(
        op,
        path,
        "user "
            + user
            + " may not remove or rename "
            + path
            + " in sticky directory "
            + parent(path)
            + " ("
            + dir
            + "): only the entry's owner "
            + entry.owner()
            + ", the directory's owner and a superuser may");
  }

  /**
   * Checks that the caller owns the inode or is a superuser: the rule for chmod, for setting
   * explicit times, and for xattrs outside the user namespace.
   *
   * @throws IOException with {@link Status#PERMISSION_DENIED} if the caller is neither
   */
  public void checkOwnerOrSuper(Caller caller, String op, String path, PermissionStatus inode)
      throws IOException {
    if (!enabled || caller.user().equals(inode.owner()) || isSuperuser(caller)) {
      return;
    }
    throw denied(
        op,
        path,
        "user "
            + caller.user()
            + " is neither the owner of "
            + path
            + " ("
            + inode
            + ") nor a superuser");
  }

  /**
   * Checks a change of owner and group (chown, chgrp, Hadoop setOwner). A superuser may set any
   * owner and group. Anyone else must own the inode, may not give it away (setting the current
   * owner again is allowed), and may set only a group they belong to or the current group again
   * (Linux {@code chown(2)}; HDFS does not allow re-setting a group the owner is not in).
   *
   * @param newOwner the new owner, or null to keep it
   * @param newGroup the new group, or null to keep it
   * @throws IOException with {@link Status#PERMISSION_DENIED} if the change is not allowed
   */
  public void checkSetOwner(
      Caller caller,
      String op,
      String path,
      PermissionStatus inode,
      @Nullable String newOwner,
      @Nullable String newGroup)
      throws IOException {
    if (!enabled || isSuperuser(caller)) {
      return;
    }
    if (newOwner != null && !newOwner.equals(inode.owner())) {
      throw denied(
          op,
          path,
          "user "
              + caller.user()
              + " may not change the owner of "
              + path
              + " ("
              + inode
              + ") to "
              + newOwner
              + ": only a superuser may change owners");
    }
    checkOwnerOrSuper(caller, op, path, inode);
    if (newGroup != null && !newGroup.equals(inode.group()) && !caller.isMemberOf(newGroup)) {
      throw denied(
          op,
          path,
          "user "
              + caller.user()
              + " may not change the group of "
              + path
              + " ("
              + inode
              + ") to "
              + newGroup
              + ": the owner may choose only a group they belong to");
    }
  }

  /**
   * Checks a change of access or modification time (utimes, Hadoop setTimes). Explicit times need
   * the owner or a superuser; setting them to the server's current time ({@code UTIME_NOW}) also
   * suffices with write permission (POSIX {@code utimensat}).
   *
   * @param explicit whether a time other than the current time is set
   * @throws IOException with {@link Status#PERMISSION_DENIED} if the change is not allowed
   */
  public void checkSetTimes(
      Caller caller, String op, String path, PermissionStatus inode, boolean explicit)
      throws IOException {
    if (!enabled || caller.user().equals(inode.owner()) || isSuperuser(caller)) {
      return;
    }
    if (explicit) {
      throw denied(
          op,
          path,
          "user "
              + caller.user()
              + " may set explicit times on "
              + path
              + " ("
              + inode
              + ") only as its owner or a superuser");
    }
    if (!classAccess(caller, inode, Access.WRITE).implies(Access.WRITE)) {
      throw lacks(caller, op, path, path, inode, Access.WRITE);
    }
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** What the caller lacks of {@code wanted}, ignoring the switch; NONE if it has it all. */
  private Access missing(Caller caller, PermissionStatus inode, Access wanted) {
    if (isSuperuser(caller)) {
      boolean noExecuteBit = (inode.mode() & 0111) == 0;
      return wanted.implies(Access.EXECUTE) && !inode.directory() && noExecuteBit
          ? Access.EXECUTE
          : Access.NONE;
    }
    return wanted.without(classAccess(caller, inode, wanted));
  }

  /**
   * The access of the one class that applies to the caller: owner, else group, else other. With an
   * extended ACL (POSIX.1e), the group class is a named user entry naming the caller, else the
   * owning group's or a named group's entry (the first of the caller's that grants {@code wanted}),
   * each limited by the mask.
   */
  private static Access classAccess(Caller caller, PermissionStatus inode, Access wanted) {
    if (caller.user().equals(inode.owner())) {
      return inode.ownerAccess();
    }
    if (!inode.acl().isEmpty()) {
      Access a = Acls.groupClassAccess(caller, inode, wanted, inode.acl());
      return a != null ? a : inode.otherAccess();
    }
    if (caller.isMemberOf(inode.group())) {
      return inode.groupAccess();
    }
    return inode.otherAccess();
  }

  private IOException lacks(
      Caller caller,
      String op,
      String path,
      String inodePath,
      PermissionStatus inode,
      Access missing) {
    String message =
        "user "
            + caller.user()
            + " lacks "
            + missing.describe(inode.directory())
            + " on "
            + inodePath
            + " ("
            + inode
            + ")";
    if (isSuperuser(caller)) {
      message += ": no execute bit is set, and even a superuser needs one to execute a file";
    }
    return denied(op, path, message);
  }

  private static IOException denied(String op, String path, String what) {
    return StatusExceptions.toIOException(Status.PERMISSION_DENIED, op + " " + path + ": " + what);
  }

  /** The number of components of a normalized absolute path: 0 for the root. */
  private static int componentCount(String path) {
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("not an absolute path: '" + path + "'");
    }
    if (path.length() == 1) {
      return 0;
    }
    int count = 0;
    for (int i = 0; i < path.length(); i++) {
      if (path.charAt(i) == '/') {
        count++;
      }
    }
    return count;
  }

  /** The path of the first {@code components} components of {@code path}: "/" for 0. */
  private static String prefix(String path, int components) {
    if (components == 0) {
      return "/";
    }
    int end = 0;
    for (int k = 0; k < components; k++) {
      end = path.indexOf('/', end + 1);
      if (end < 0) {
        return path;
      }
    }
    return path.substring(0, end);
  }

  private static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  @Override
  public String toString() {
    return "Permissions{enabled="
        + enabled
        + ", superuser="
        + superuser
        + ", supergroup="
        + supergroup
        + "}";
  }
}
