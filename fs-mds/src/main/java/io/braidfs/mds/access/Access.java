package io.braidfs.mds.access;

import java.util.ArrayList;
import java.util.List;

/**
 * An access wanted or granted: a combination of read, write and execute, one constant per
 * combination (HDFS {@code FsAction}). The {@link #bits()} are those of one class (owner, group or
 * other) of a POSIX mode: read 4, write 2, execute 1. On a directory, execute is search: the right
 * to look names up in it ({@link #SEARCH}).
 *
 * <p>Thread-safety: immutable.
 */
public enum Access {
  // Declared in bit order, so that ordinal() == bits() and ofBits can index values().
  NONE,
  EXECUTE,
  WRITE,
  WRITE_EXECUTE,
  READ,
  READ_EXECUTE,
  READ_WRITE,
  ALL;

  /** Search permission on a directory: the execute bit. */
  public static final Access SEARCH = EXECUTE;

  private static final Access[] BY_BITS = values();

  /** The mode bits of this access within one class: read 4, write 2, execute 1. */
  public int bits() {
    return ordinal();
  }

  /** Whether this access includes all of {@code other}. */
  public boolean implies(Access other) {
    return (bits() & other.bits()) == other.bits();
  }

  /** The parts of this access that {@code granted} lacks. */
  public Access without(Access granted) {
    return ofBits(bits() & ~granted.bits());
  }

  /**
   * The access with these bits.
   *
   * @throws IllegalArgumentException if {@code bits} is outside 0 to 7
   */
  public static Access ofBits(int bits) {
    if (bits < 0 || bits > 7) {
      throw new IllegalArgumentException("access bits must be 0 to 7, was " + bits);
    }
    return BY_BITS[bits];
  }

  /**
   * A readable name for messages: the parts joined by {@code +}, such as {@code READ+WRITE}, with
   * execute called {@code SEARCH} on a directory; {@code NONE} if empty.
   *
   * @param directory whether the access is on a directory
   */
  public String describe(boolean directory) {
    if (this == NONE) {
      return "NONE";
    }
    List<String> parts = new ArrayList<>(3);
    if (implies(READ)) {
      parts.add("READ");
    }
    if (implies(WRITE)) {
      parts.add("WRITE");
    }
    if (implies(EXECUTE)) {
      parts.add(directory ? "SEARCH" : "EXECUTE");
    }
    return String.join("+", parts);
  }
}
