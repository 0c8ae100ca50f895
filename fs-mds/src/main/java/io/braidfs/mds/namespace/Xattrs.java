package io.braidfs.mds.namespace;

import io.braidfs.common.error.Status;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Caller;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The rules of extended attribute names and who may touch them, as Linux and HDFS have them: {@code
 * user.*} follows the inode's read and write permission, {@code trusted.*} is for superusers only,
 * {@code security.*} is readable by all and writable by the owner, {@code system.*} cannot be set
 * (no ACLs yet).
 *
 * <p>Thread-safety: stateless.
 */
final class Xattrs {
  static final int MAX_NAME_BYTES = 255;
  static final int MAX_VALUE_BYTES = 64 * 1024;

  private Xattrs() {}

  enum Space {
    USER,
    TRUSTED,
    SECURITY,
    SYSTEM
  }

  static Space space(String op, String path, String name) throws IOException {
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
      throw Resolver.fail(
          Status.NAME_TOO_LONG,
          op + " " + path + ": attribute name longer than " + MAX_NAME_BYTES + " bytes");
    }
    for (Space s : Space.values()) {
      String prefix = s.name().toLowerCase(java.util.Locale.ROOT) + ".";
      if (name.startsWith(prefix) && name.length() > prefix.length() && name.indexOf('\0') < 0) {
        return s;
      }
    }
    throw Resolver.fail(
        Status.INVALID_ARGUMENT,
        op
            + " "
            + path
            + ": attribute name '"
            + name
            + "' needs one of the prefixes user., trusted., security., system.");
  }

  /** Whether {@code caller} may read attributes of {@code space} on {@code inode}. */
  static boolean mayRead(Namespace ns, Caller caller, Inode inode, Space space) {
    return switch (space) {
      case USER -> ns.permissions.allows(caller, inode.permission(), Access.READ);
      case TRUSTED -> !ns.permissions.enabled() || ns.permissions.isSuperuser(caller);
      case SECURITY, SYSTEM -> true;
    };
  }

  static void checkRead(Namespace ns, Caller caller, String op, String path, Inode inode, Space s)
      throws IOException {
    if (!mayRead(ns, caller, inode, s)) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          op + " " + path + ": user " + caller.user() + " may not read " + s + " attributes");
    }
  }

  static void checkWrite(Namespace ns, Caller caller, String op, String path, Inode inode, Space s)
      throws IOException {
    switch (s) {
      case USER -> ns.check(caller, op, path, inode, Access.WRITE);
      case TRUSTED -> {
        if (ns.permissions.enabled() && !ns.permissions.isSuperuser(caller)) {
          throw Resolver.fail(
              Status.PERMISSION_DENIED,
              op + " " + path + ": only a superuser may set trusted.* attributes");
        }
      }
      case SECURITY -> ns.permissions.checkOwnerOrSuper(caller, op, path, inode.permission());
      case SYSTEM ->
          throw Resolver.fail(
              Status.UNSUPPORTED,
              op + " " + path + ": system.* attributes (ACLs) are not supported");
    }
  }
}
