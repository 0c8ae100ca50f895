package io.braidfs.client;

import java.util.Locale;
import java.util.Objects;

/**
 * One POSIX.1e ACL entry (Hadoop's {@code AclEntry}, a line of getfacl).
 *
 * <p>Thread-safety: immutable.
 *
 * @param defaultScope whether it belongs to a directory's default ACL, which new children inherit
 * @param type user, group, mask or other
 * @param name the user or group named; empty for the owner, owning group, mask and other
 * @param permission read 4, write 2, execute 1
 */
public record AclEntry(boolean defaultScope, Type type, String name, int permission) {
  /** The entry types. */
  public enum Type {
    USER,
    GROUP,
    MASK,
    OTHER
  }

  public AclEntry {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(name, "name");
    if (permission < 0 || permission > 7) {
      throw new IllegalArgumentException("permission must be 0 to 7 (rwx), was " + permission);
    }
  }

  /** An access entry. */
  public static AclEntry access(Type type, String name, int permission) {
    return new AclEntry(false, type, name, permission);
  }

  /** A default entry. */
  public static AclEntry ofDefault(Type type, String name, int permission) {
    return new AclEntry(true, type, name, permission);
  }

  /** As getfacl writes it: {@code default:user:alice:r-x}. */
  @Override
  public String toString() {
    return (defaultScope ? "default:" : "")
        + type.name().toLowerCase(Locale.ROOT)
        + ":"
        + name
        + ":"
        + ((permission & 4) != 0 ? "r" : "-")
        + ((permission & 2) != 0 ? "w" : "-")
        + ((permission & 1) != 0 ? "x" : "-");
  }
}
