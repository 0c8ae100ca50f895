package io.braidfs.fuse;

import io.braidfs.client.AclChange;
import io.braidfs.client.BraidClient;
import io.braidfs.client.XattrSetMode;
import io.braidfs.common.acl.AclEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import jnr.ffi.Pointer;

/**
 * The extended-attribute operations of {@link BraidFuse}. The file-capability attribute the kernel
 * asks about on every write is answered here without a round trip (Braid keeps none). The POSIX ACL
 * attributes (getfacl, setfacl) are the inode's ACL in Linux's binary form ({@link PosixAclXattr}).
 *
 * <p>The client answers NOT_FOUND both for a missing file and a missing name; {@link #noData} tells
 * them apart for the errno.
 *
 * <p>Each operation throws what the client throws; {@link BraidFuse} makes it an errno.
 *
 * <p>Thread-safety: thread-safe; it keeps no state of its own.
 */
final class XattrOperations {
  private static final int XATTR_CREATE = 1;
  private static final int XATTR_REPLACE = 2;

  private final Caller caller;
  private final RecentAttributes recent;
  private final Identities ids;

  XattrOperations(Caller caller, RecentAttributes recent, Identities ids) {
    this.caller = caller;
    this.recent = recent;
    this.ids = ids;
  }

  /** The name the kernel asks about on every write (file capabilities): no round trip. */
  private static boolean local(String xattr) {
    return xattr.equals("security.capability");
  }

  private static boolean acl(String xattr) {
    return xattr.equals(PosixAclXattr.ACCESS) || xattr.equals(PosixAclXattr.DEFAULT);
  }

  int get(String path, String xattr, Pointer value, long size) throws IOException {
    if (local(xattr)) {
      return -FuseErrors.ENODATA;
    }
    Optional<byte[]> v;
    try {
      v = acl(xattr) ? getAcl(path, xattr) : caller.client().getXattr(path, xattr);
    } catch (IllegalArgumentException e) {
      // An ACL naming someone with no id on this host: shown as nobody, a setfacl would write it
      // back as nobody, so it is not shown at all.
      return -FuseErrors.EOPNOTSUPP;
    }
    if (v.isEmpty()) {
      return -FuseErrors.ENODATA;
    }
    byte[] b = v.get();
    if (size == 0) {
      return b.length;
    }
    if (size < b.length) {
      return -FuseErrors.ERANGE;
    }
    value.put(0, b, 0, b.length);
    return b.length;
  }

  int set(String path, String xattr, Pointer value, long size, int flags) throws IOException {
    if (local(xattr)) {
      return -FuseErrors.EOPNOTSUPP;
    }
    byte[] b = new byte[(int) size];
    value.get(0, b, 0, b.length);
    if (acl(xattr)) {
      return setAcl(path, xattr, b);
    }
    XattrSetMode mode =
        (flags & XATTR_CREATE) != 0
            ? XattrSetMode.CREATE
            : (flags & XATTR_REPLACE) != 0 ? XattrSetMode.REPLACE : XattrSetMode.CREATE_OR_REPLACE;
    recent.forget(path);
    caller.client().setXattr(path, xattr, b, mode);
    return 0;
  }

  int list(String path, Pointer list, long size) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String n : caller.client().listXattrs(path)) {
      sb.append(n).append('\0');
    }
    byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
    if (size == 0) {
      return b.length;
    }
    if (size < b.length) {
      return -FuseErrors.ERANGE;
    }
    list.put(0, b, 0, b.length);
    return b.length;
  }

  int remove(String path, String xattr) throws IOException {
    if (local(xattr)) {
      return -FuseErrors.ENODATA;
    }
    if (acl(xattr)) {
      return removeAcl(path, xattr);
    }
    recent.forget(path);
    caller.client().removeXattr(path, xattr);
    return 0;
  }

  /**
   * A POSIX ACL attribute (getfacl): asked of the MDS only for an inode whose attributes say it has
   * an extended ACL, so ls -l's question costs no round trip on the rest.
   */
  private Optional<byte[]> getAcl(String path, String xattr) throws IOException {
    BraidClient c = caller.client();
    if (!c.stat(path).hasAcl()) {
      return Optional.empty();
    }
    return Optional.ofNullable(
        PosixAclXattr.encode(c.getAcl(path), xattr.equals(PosixAclXattr.DEFAULT), ids));
  }

  /** setfacl: the attribute's ACL replaces that scope's (the access ACL sets the mode too). */
  private int setAcl(String path, String xattr, byte[] value) throws IOException {
    boolean dflt = xattr.equals(PosixAclXattr.DEFAULT);
    List<AclEntry> entries;
    try {
      entries = PosixAclXattr.decode(value, dflt, ids);
    } catch (IllegalArgumentException e) {
      return -FuseErrors.EINVAL;
    }
    recent.forget(path);
    BraidClient c = caller.client();
    if (entries.isEmpty()) {
      c.setAcl(path, dflt ? AclChange.REMOVE_DEFAULT : AclChange.REMOVE, List.of());
    } else {
      c.setAcl(path, AclChange.SET, dflt ? entries : minimalIfUnnamed(entries));
    }
    return 0;
  }

  /**
   * An access ACL without named entries is the mode alone, as the kernel sees it: its mask, if it
   * has one, becomes the group bits.
   */
  private static List<AclEntry> minimalIfUnnamed(List<AclEntry> entries) {
    if (entries.stream().anyMatch(e -> !e.name().isEmpty())) {
      return entries;
    }
    AclEntry mask =
        entries.stream().filter(e -> e.type() == AclEntry.Type.MASK).findFirst().orElse(null);
    if (mask == null) {
      return entries;
    }
    List<AclEntry> out = new java.util.ArrayList<>();
    for (AclEntry e : entries) {
      if (e.type() == AclEntry.Type.GROUP) {
        out.add(AclEntry.access(AclEntry.Type.GROUP, "", mask.permission()));
      } else if (e.type() != AclEntry.Type.MASK) {
        out.add(e);
      }
    }
    return out;
  }

  /**
   * Removing an ACL attribute: the access ACL's removal keeps the mode (its group bits, the mask)
   * and the default ACL; the default ACL's removal keeps the access ACL.
   */
  private int removeAcl(String path, String xattr) throws IOException {
    recent.forget(path);
    BraidClient c = caller.client();
    if (xattr.equals(PosixAclXattr.DEFAULT)) {
      c.setAcl(path, AclChange.REMOVE_DEFAULT, List.of());
      return 0;
    }
    // The access ACL becomes the mode as it is (group bits: the mask), as on ext4.
    int mode = c.getAcl(path).mode();
    c.setAcl(
        path,
        AclChange.SET,
        List.of(
            AclEntry.access(AclEntry.Type.USER, "", (mode >>> 6) & 7),
            AclEntry.access(AclEntry.Type.GROUP, "", (mode >>> 3) & 7),
            AclEntry.access(AclEntry.Type.OTHER, "", mode & 7)));
    return 0;
  }

  /**
   * The errno of a get, or of a remove: ENOENT for a file that exists means the name is missing,
   * ENODATA.
   */
  int noData(String path, int errno) {
    return errno == -FuseErrors.ENOENT && fileExists(path) ? -FuseErrors.ENODATA : errno;
  }

  /** The errno of a set: as {@link #noData}, but only for XATTR_REPLACE, which needs the name. */
  int noData(String path, int errno, int flags) {
    return (flags & XATTR_REPLACE) != 0 ? noData(path, errno) : errno;
  }

  private boolean fileExists(String path) {
    try {
      caller.client().lstat(path);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
