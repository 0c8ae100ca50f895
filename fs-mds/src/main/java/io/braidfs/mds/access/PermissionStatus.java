package io.braidfs.mds.access;

import io.braidfs.common.acl.AclEntry;
import java.util.List;
import java.util.Objects;

/**
 * What a permission check needs to know about an inode: its owner, its group, its permission bits
 * and whether it is a directory (HDFS {@code PermissionStatus}, plus the type). Symbolic links have
 * no permissions of their own (POSIX ignores a link's mode); check the directories that hold them
 * and the inode they lead to.
 *
 * <p>Thread-safety: immutable.
 *
 * @param owner the owner's user name
 * @param group the owner group's name
 * @param mode the permission bits, 0 to 07777: setuid 04000, setgid 02000, sticky 01000, then rwx
 *     for owner, group and other; no file-type bits
 * @param directory whether the inode is a directory (execute means search, and the sticky bit
 *     applies to its entries)
 * @param acl the extended access ACL entries as {@link Acls} stores them (named users, the owning
 *     group, named groups; the mode's group bits are then the mask); empty for a mode alone
 */
public record PermissionStatus(
    String owner, String group, int mode, boolean directory, List<AclEntry> acl) {
  /** The setuid bit. */
  public static final int SETUID = 04000;

  /** The setgid bit. */
  public static final int SETGID = 02000;

  /** The sticky bit: in a directory, only owners may remove or rename entries. */
  public static final int STICKY = 01000;

  /**
   * Validates.
   *
   * @throws IllegalArgumentException if {@code mode} has bits outside 07777
   * @throws NullPointerException if {@code owner} or {@code group} is null
   */
  /** Permissions without an extended ACL. */
  public PermissionStatus(String owner, String group, int mode, boolean directory) {
    this(owner, group, mode, directory, List.of());
  }

  public PermissionStatus {
    acl = Acls.scope(acl, false);
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(group, "group");
    if ((mode & ~07777) != 0) {
      throw new IllegalArgumentException(
          "mode must be within 07777 (permission bits only), was 0" + Integer.toOctalString(mode));
    }
  }

  /**
   * A regular file's permissions.
   *
   * @throws IllegalArgumentException if {@code mode} has bits outside 07777
   */
  public static PermissionStatus file(String owner, String group, int mode) {
    return new PermissionStatus(owner, group, mode, false);
  }

  /**
   * A directory's permissions.
   *
   * @throws IllegalArgumentException if {@code mode} has bits outside 07777
   */
  public static PermissionStatus directory(String owner, String group, int mode) {
    return new PermissionStatus(owner, group, mode, true);
  }

  /** Whether the sticky bit is set. */
  public boolean isSticky() {
    return (mode & STICKY) != 0;
  }

  /** The access the owner class grants (mode bits 0700). */
  public Access ownerAccess() {
    return Access.ofBits((mode >>> 6) & 7);
  }

  /** The access the group class grants (mode bits 0070). */
  public Access groupAccess() {
    return Access.ofBits((mode >>> 3) & 7);
  }

  /** The access the other class grants (mode bits 0007). */
  public Access otherAccess() {
    return Access.ofBits(mode & 7);
  }

  /** The mode in octal with a leading zero, at least four digits: {@code 0755}, {@code 01777}. */
  public String octalMode() {
    return String.format("0%03o", mode);
  }

  /** {@code owner bob, group staff, mode 0755}, as in permission messages. */
  @Override
  public String toString() {
    return "owner "
        + owner
        + ", group "
        + group
        + ", mode "
        + octalMode()
        + (acl.isEmpty() ? "" : ", acl " + acl);
  }
}
