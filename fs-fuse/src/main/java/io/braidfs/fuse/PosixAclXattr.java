package io.braidfs.fuse;

import io.braidfs.client.AclStatus;
import io.braidfs.common.acl.AclEntry;
import io.braidfs.common.acl.AclEntry.Type;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Linux's binary form of a POSIX ACL in the {@code system.posix_acl_access} and {@code
 * system.posix_acl_default} attributes ({@code posix_acl_xattr.h}): a little-endian version 2
 * header, then per entry a 16-bit tag, 16-bit permission and 32-bit uid or gid, sorted by tag and
 * id as the kernel requires. Names map to ids through {@link Identities}.
 *
 * <p>Thread-safety: stateless.
 */
final class PosixAclXattr {
  static final String ACCESS = "system.posix_acl_access";
  static final String DEFAULT = "system.posix_acl_default";

  private static final int VERSION = 2;
  private static final int USER_OBJ = 0x01;
  private static final int USER = 0x02;
  private static final int GROUP_OBJ = 0x04;
  private static final int GROUP = 0x08;
  private static final int MASK = 0x10;
  private static final int OTHER = 0x20;
  private static final int UNDEFINED_ID = -1;

  private PosixAclXattr() {}

  /** One entry on the wire. */
  private record Raw(int tag, int perm, int id) {}

  /**
   * The access ACL (base entries from the mode) or the default ACL of {@code s}, or null when it
   * has none beyond the mode (the attribute is then absent, as on a local file system).
   */
  static byte @Nullable [] encode(AclStatus s, boolean dflt, Identities ids) {
    List<AclEntry> stored = s.entries().stream().filter(e -> e.defaultScope() == dflt).toList();
    if (stored.isEmpty()) {
      return null;
    }
    List<Raw> raw = new ArrayList<>();
    if (dflt) {
      for (AclEntry e : stored) {
        raw.add(toRaw(e, ids));
      }
    } else {
      int mode = s.mode();
      raw.add(new Raw(USER_OBJ, (mode >>> 6) & 7, UNDEFINED_ID));
      for (AclEntry e : stored) {
        raw.add(toRaw(e, ids));
      }
      raw.add(new Raw(MASK, (mode >>> 3) & 7, UNDEFINED_ID));
      raw.add(new Raw(OTHER, mode & 7, UNDEFINED_ID));
    }
    raw.sort(Comparator.comparingInt(Raw::tag).thenComparingInt(r -> r.id));
    ByteBuffer b =
        ByteBuffer.allocate(4 + 8 * raw.size()).order(ByteOrder.LITTLE_ENDIAN).putInt(VERSION);
    for (Raw r : raw) {
      b.putShort((short) r.tag).putShort((short) r.perm).putInt(r.id);
    }
    return b.array();
  }

  /**
   * The entries of an attribute value, in scope {@code dflt}.
   *
   * @throws IllegalArgumentException if the value is not a version-2 ACL
   */
  static List<AclEntry> decode(byte[] value, boolean dflt, Identities ids) {
    if (value.length < 4 || (value.length - 4) % 8 != 0) {
      throw new IllegalArgumentException("not a POSIX ACL: " + value.length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
    int version = b.getInt();
    if (version != VERSION) {
      throw new IllegalArgumentException("POSIX ACL version " + version + ", not " + VERSION);
    }
    List<AclEntry> out = new ArrayList<>();
    while (b.hasRemaining()) {
      int tag = b.getShort() & 0xFFFF;
      int perm = b.getShort() & 7;
      int id = b.getInt();
      AclEntry e =
          switch (tag) {
            case USER_OBJ -> new AclEntry(dflt, Type.USER, "", perm);
            case USER -> new AclEntry(dflt, Type.USER, ids.userName(id), perm);
            case GROUP_OBJ -> new AclEntry(dflt, Type.GROUP, "", perm);
            case GROUP -> new AclEntry(dflt, Type.GROUP, ids.groupName(id), perm);
            case MASK -> new AclEntry(dflt, Type.MASK, "", perm);
            case OTHER -> new AclEntry(dflt, Type.OTHER, "", perm);
            default -> throw new IllegalArgumentException("POSIX ACL tag " + tag);
          };
      out.add(e);
    }
    return out;
  }

  private static final int NOBODY = Identities.NOBODY;

  /**
   * {@code id}, unless the name has none on this host (it maps to nobody, and a setfacl that reads
   * the ACL and writes it back would rename the entry to nobody).
   *
   * @throws IllegalArgumentException naming the entry
   */
  private static int known(int id, AclEntry e, String nobodyName) {
    if (id == NOBODY && !e.name().equals(nobodyName)) {
      throw new IllegalArgumentException(
          "the entry " + e + " names no one with an id on this host");
    }
    return id;
  }

  private static Raw toRaw(AclEntry e, Identities ids) {
    boolean named = !e.name().isEmpty();
    return switch (e.type()) {
      case USER ->
          named
              ? new Raw(USER, e.permission(), known(ids.uid(e.name()), e, ids.userName(NOBODY)))
              : new Raw(USER_OBJ, e.permission(), UNDEFINED_ID);
      case GROUP ->
          named
              ? new Raw(GROUP, e.permission(), known(ids.gid(e.name()), e, ids.groupName(NOBODY)))
              : new Raw(GROUP_OBJ, e.permission(), UNDEFINED_ID);
      case MASK -> new Raw(MASK, e.permission(), UNDEFINED_ID);
      case OTHER -> new Raw(OTHER, e.permission(), UNDEFINED_ID);
    };
  }
}
