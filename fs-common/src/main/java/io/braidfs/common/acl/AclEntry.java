package io.braidfs.common.acl;

import java.util.Comparator;
import java.util.Objects;

/**
 * One POSIX.1e ACL entry (Hadoop's {@code AclEntry}), as the MDS checks it and clients send it: its
 * scope (a directory's default ACL, or the access ACL), its type, the user or group it names (empty
 * for the owner, the owning group, the mask and other) and its permission bits.
 *
 * <p>Thread-safety: immutable.
 *
 * @param defaultScope whether the entry belongs to the default ACL new children inherit
 * @param type user, group, mask or other
 * @param name the user or group named; empty for the unnamed entries
 * @param permission read 4, write 2, execute 1
 */
public record AclEntry(boolean defaultScope, Type type, String name, int permission) {
  /** The entry types, in the order getfacl lists them. */
  public enum Type {
    USER,
    GROUP,
    MASK,
    OTHER
  }

  /** Access entries first; then by type; unnamed before named; names in order (getfacl's). */
  public static final Comparator<AclEntry> ORDER =
      Comparator.comparing(AclEntry::defaultScope)
          .thenComparing(AclEntry::type)
          .thenComparing(e -> !e.name.isEmpty())
          .thenComparing(AclEntry::name);

  /**
   * Validates.
   *
   * @throws IllegalArgumentException if the permission is outside 0 to 7, or a mask or other entry
   *     has a name
   */
  public AclEntry {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(name, "name");
    if (permission < 0 || permission > 7) {
      throw new IllegalArgumentException(
          "an ACL entry's permission is 0 to 7 (rwx), not " + permission);
    }
    if (!name.isEmpty() && (type == Type.MASK || type == Type.OTHER)) {
      throw new IllegalArgumentException(
          "a " + type.name().toLowerCase(java.util.Locale.ROOT) + " entry names nobody: " + name);
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

  /** Whether this entry and {@code other} are the same slot (scope, type, name). */
  public boolean sameSlot(AclEntry other) {
    return defaultScope == other.defaultScope && type == other.type && name.equals(other.name);
  }

  /** This entry with another permission. */
  public AclEntry withPermission(int bits) {
    return new AclEntry(defaultScope, type, name, bits);
  }

  /** Whether the entry counts in the group class the mask limits: named users, groups. */
  public boolean inGroupClass() {
    return type == Type.GROUP || (type == Type.USER && !name.isEmpty());
  }

  /** As getfacl writes it: {@code default:user:alice:r-x}. */
  @Override
  public String toString() {
    return (defaultScope ? "default:" : "")
        + type.name().toLowerCase(java.util.Locale.ROOT)
        + ":"
        + name
        + ":"
        + ((permission & 4) != 0 ? "r" : "-")
        + ((permission & 2) != 0 ? "w" : "-")
        + ((permission & 1) != 0 ? "x" : "-");
  }
}
