package io.braidfs.fuse;

import io.braidfs.client.XattrSetMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import jnr.ffi.Pointer;

/**
 * The extended-attribute operations of {@link BraidFuse}. Names the kernel asks about on its own
 * (file capabilities on every write, POSIX ACLs) are answered here without a round trip: Braid
 * keeps neither.
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

  XattrOperations(Caller caller, RecentAttributes recent) {
    this.caller = caller;
    this.recent = recent;
  }

  /** Names the kernel asks about on its own (capabilities on every write, ACLs): no round trip. */
  private static boolean local(String xattr) {
    return xattr.equals("security.capability") || xattr.startsWith("system.posix_acl_");
  }

  int get(String path, String xattr, Pointer value, long size) throws IOException {
    if (local(xattr)) {
      return -FuseErrors.ENODATA;
    }
    Optional<byte[]> v = caller.client().getXattr(path, xattr);
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
    recent.forget(path);
    caller.client().removeXattr(path, xattr);
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
