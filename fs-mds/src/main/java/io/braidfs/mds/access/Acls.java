package io.braidfs.mds.access;

import io.braidfs.common.acl.AclEntry;
import io.braidfs.common.acl.AclEntry.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The ACL changes of Hadoop's API and setfacl(1), on an inode's stored form: the permission bits
 * plus the extended entries. Storage follows HDFS: the owner, mask (or, without named entries,
 * owning group) and other entries of the access ACL live in the mode's bits; the stored access
 * entries are the named users, the owning group and the named groups, and only an inode with an
 * extended access ACL stores any; a directory's default ACL is stored whole. So chmod changes the
 * mask, and a minimal ACL is just the mode.
 *
 * <p>Thread-safety: stateless.
 */
public final class Acls {
  /** The most entries in one scope (HDFS's limit). */
  public static final int MAX_ENTRIES = 32;

  /** Which change. */
  public enum Op {
    /** Add or replace the entries given (setfacl -m). */
    MODIFY,
    /** Remove the entries given, whatever their permissions (setfacl -x). */
    REMOVE_ENTRIES,
    /** Remove the default ACL (setfacl -k). */
    REMOVE_DEFAULT,
    /** Remove every extended entry and the default ACL (setfacl -b). */
    REMOVE,
    /** Replace the ACL: each scope the entries include (setfacl --set). */
    SET
  }

  /**
   * An inode's permission bits (setuid, setgid and sticky kept) and stored entries.
   *
   * @param mode the bits 07777
   * @param entries the stored entries, in {@link AclEntry#ORDER}
   */
  public record Stored(int mode, List<AclEntry> entries) {
    public Stored {
      entries = List.copyOf(entries);
    }

    /** Whether the inode has an ACL beyond its mode (getfacl's "+", Hadoop's ACL bit). */
    public boolean extended() {
      return !entries.isEmpty();
    }
  }

  private Acls() {}

  /**
   * The whole ACL, base entries included, as getfacl shows it: access entries, then default ones.
   */
  public static List<AclEntry> logical(Stored s) {
    List<AclEntry> out = new ArrayList<>();
    int mode = s.mode();
    out.add(AclEntry.access(Type.USER, "", (mode >>> 6) & 7));
    List<AclEntry> access = scope(s.entries(), false);
    if (access.isEmpty()) {
      out.add(AclEntry.access(Type.GROUP, "", (mode >>> 3) & 7));
    } else {
      out.addAll(access);
      out.add(AclEntry.access(Type.MASK, "", (mode >>> 3) & 7));
    }
    out.add(AclEntry.access(Type.OTHER, "", mode & 7));
    out.addAll(scope(s.entries(), true));
    out.sort(AclEntry.ORDER);
    return out;
  }

  /**
   * Applies a change.
   *
   * @param s the inode as it is
   * @param directory whether it is a directory (only directories have a default ACL)
   * @param op the change
   * @param spec the entries it names (permissions ignored by REMOVE_ENTRIES)
   * @return the inode's new permission bits and entries
   * @throws IllegalArgumentException naming what is wrong with the spec or the result
   */
  public static Stored apply(Stored s, boolean directory, Op op, List<AclEntry> spec) {
    checkSpec(spec, directory, op);
    List<AclEntry> acl = new ArrayList<>(logical(s));
    switch (op) {
      case MODIFY -> {
        for (AclEntry e : spec) {
          acl.removeIf(e::sameSlot);
          acl.add(e);
        }
      }
      case REMOVE_ENTRIES -> {
        for (AclEntry e : spec) {
          if (e.name().isEmpty() && e.type() != Type.MASK && !e.defaultScope()) {
            throw new IllegalArgumentException(
                "the base entry "
                    + e.type().name().toLowerCase(java.util.Locale.ROOT)
                    + ":: cannot be removed");
          }
          acl.removeIf(e::sameSlot);
        }
      }
      case REMOVE_DEFAULT -> acl.removeIf(AclEntry::defaultScope);
      case REMOVE -> {
        // The owning group's entry, not the mask, becomes the group bits (HDFS).
        int group = find(acl, false, Type.GROUP).permission();
        acl.removeIf(e -> e.defaultScope() || !e.name().isEmpty() || e.type() == Type.MASK);
        acl.removeIf(e -> !e.defaultScope() && e.type() == Type.GROUP);
        acl.add(AclEntry.access(Type.GROUP, "", group));
      }
      case SET -> {
        boolean access = spec.stream().anyMatch(e -> !e.defaultScope());
        boolean dflt = spec.stream().anyMatch(AclEntry::defaultScope);
        acl.removeIf(e -> e.defaultScope() ? dflt : access);
        acl.addAll(spec);
      }
    }
    // Base entries first, then masks (setfacl's and HDFS's order), and only in the scopes the
    // change touched: an untouched scope keeps its mask (a chmod-narrowed one stays narrow).
    completeDefault(acl);
    if (op == Op.MODIFY || op == Op.REMOVE_ENTRIES || op == Op.SET) {
      for (boolean dflt : new boolean[] {false, true}) {
        if (spec.stream().anyMatch(e -> e.defaultScope() == dflt)) {
          // A mask named in a removal is removed, not set.
          recomputeMask(acl, op == Op.REMOVE_ENTRIES ? List.of() : spec, dflt);
        }
      }
    }
    return store(acl, s.mode());
  }

  /**
   * The ACL a new child of a directory with a default ACL gets (POSIX: the umask is not applied):
   * its access ACL is the parent's default ACL with the owner, group-class (mask, or the group
   * entry when there is no mask) and other permissions limited by {@code mode}; a new directory
   * inherits the default ACL too.
   *
   * @param parentDefault the parent's stored default entries (empty: no inheritance)
   * @param mode the mode asked at create, 07777
   * @return null if the parent has no default ACL
   */
  public static @Nullable Stored inherit(
      List<AclEntry> parentDefault, int mode, boolean directory) {
    List<AclEntry> dflt = scope(parentDefault, true);
    if (dflt.isEmpty()) {
      return null;
    }
    List<AclEntry> acl = new ArrayList<>();
    boolean hasMask = dflt.stream().anyMatch(e -> e.type() == Type.MASK);
    for (AclEntry e : dflt) {
      int p = e.permission();
      if (e.name().isEmpty()) {
        switch (e.type()) {
          case USER -> p &= (mode >>> 6) & 7;
          case MASK -> p &= (mode >>> 3) & 7;
          case GROUP -> p = hasMask ? p : p & ((mode >>> 3) & 7);
          case OTHER -> p &= mode & 7;
        }
      }
      acl.add(AclEntry.access(e.type(), e.name(), p));
      if (directory) {
        acl.add(e);
      }
    }
    return store(acl, mode);
  }

  /** The stored entries of one scope. */
  public static List<AclEntry> scope(List<AclEntry> entries, boolean defaultScope) {
    return entries.stream().filter(e -> e.defaultScope() == defaultScope).toList();
  }

  /**
   * The access the entries grant {@code caller} beyond owner and other, or null if none of them
   * names the caller: a named user entry, else the owning group or named groups (the first that
   * implies {@code wanted}, else the widest), each limited by the mask (the mode's group bits).
   */
  static @Nullable Access groupClassAccess(
      Caller caller, PermissionStatus inode, Access wanted, List<AclEntry> access) {
    int mask = (inode.mode() >>> 3) & 7;
    for (AclEntry e : access) {
      if (e.type() == Type.USER && e.name().equals(caller.user())) {
        return Access.ofBits(e.permission() & mask);
      }
    }
    @Nullable Access best = null;
    for (AclEntry e : access) {
      if (e.type() != Type.GROUP) {
        continue;
      }
      String group = e.name().isEmpty() ? inode.group() : e.name();
      if (!caller.isMemberOf(group)) {
        continue;
      }
      Access a = Access.ofBits(e.permission() & mask);
      if (a.implies(wanted)) {
        return a;
      }
      if (best == null || Integer.bitCount(a.bits()) > Integer.bitCount(best.bits())) {
        best = a;
      }
    }
    return best;
  }

  private static void checkSpec(List<AclEntry> spec, boolean directory, Op op) {
    for (int i = 0; i < spec.size(); i++) {
      AclEntry e = spec.get(i);
      if (e.defaultScope() && !directory) {
        throw new IllegalArgumentException(
            "only a directory has a default ACL: " + e + " is not allowed here");
      }
      for (int j = 0; j < i; j++) {
        if (spec.get(j).sameSlot(e)) {
          throw new IllegalArgumentException("the ACL names " + e + " twice");
        }
      }
    }
    if (op == Op.SET) {
      // A new default ACL without base entries gets them from the access ACL (completeDefault).
      List<AclEntry> part = scope(spec, false);
      if (!part.isEmpty()) {
        for (Type t : new Type[] {Type.USER, Type.GROUP, Type.OTHER}) {
          if (part.stream().noneMatch(e -> e.type() == t && e.name().isEmpty())) {
            throw new IllegalArgumentException(
                "a new access ACL needs its user::, group:: and other:: entries");
          }
        }
      }
    }
  }

  /**
   * The mask of scope {@code dflt} after a change: the one the spec sets, else the union of the
   * scope's group class when it has named entries (so they keep their permissions), else none.
   */
  private static void recomputeMask(List<AclEntry> acl, List<AclEntry> spec, boolean dflt) {
    Predicate<AclEntry> mask = e -> e.defaultScope() == dflt && e.type() == Type.MASK;
    @Nullable AclEntry given = spec.stream().filter(mask).findFirst().orElse(null);
    boolean named = acl.stream().anyMatch(e -> e.defaultScope() == dflt && !e.name().isEmpty());
    boolean any = acl.stream().anyMatch(e -> e.defaultScope() == dflt);
    acl.removeIf(mask);
    if (given != null && any) {
      acl.add(given);
    } else if (named) {
      int union = 0;
      for (AclEntry e : acl) {
        if (e.defaultScope() == dflt && e.inGroupClass()) {
          union |= e.permission();
        }
      }
      acl.add(new AclEntry(dflt, Type.MASK, "", union));
    }
  }

  /** A default ACL without some base entries gets them from the access ACL (HDFS, setfacl). */
  private static void completeDefault(List<AclEntry> acl) {
    if (acl.stream().noneMatch(AclEntry::defaultScope)) {
      return;
    }
    for (Type t : new Type[] {Type.USER, Type.GROUP, Type.OTHER}) {
      if (acl.stream().noneMatch(e -> e.defaultScope() && e.type() == t && e.name().isEmpty())) {
        acl.add(AclEntry.ofDefault(t, "", find(acl, false, t).permission()));
      }
    }
  }

  private static AclEntry find(List<AclEntry> acl, boolean dflt, Type type) {
    for (AclEntry e : acl) {
      if (e.defaultScope() == dflt && e.type() == type && e.name().isEmpty()) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "the ACL has no "
            + (dflt ? "default:" : "")
            + type.name().toLowerCase(java.util.Locale.ROOT)
            + ":: entry");
  }

  /** The stored form of a whole ACL, keeping {@code oldMode}'s setuid, setgid and sticky bits. */
  private static Stored store(List<AclEntry> acl, int oldMode) {
    for (boolean dflt : new boolean[] {false, true}) {
      if (scope(acl, dflt).size() > MAX_ENTRIES) {
        throw new IllegalArgumentException(
            "an ACL has at most " + MAX_ENTRIES + " entries per scope");
      }
    }
    int owner = find(acl, false, Type.USER).permission();
    int other = find(acl, false, Type.OTHER).permission();
    boolean named = acl.stream().anyMatch(e -> !e.defaultScope() && !e.name().isEmpty());
    AclEntry mask =
        acl.stream()
            .filter(e -> !e.defaultScope() && e.type() == Type.MASK)
            .findFirst()
            .orElse(null);
    List<AclEntry> stored = new ArrayList<>();
    int group;
    if (named || mask != null) {
      group = mask != null ? mask.permission() : find(acl, false, Type.GROUP).permission();
      for (AclEntry e : acl) {
        if (!e.defaultScope()
            && e.type() != Type.MASK
            && !(e.name().isEmpty() && e.type() != Type.GROUP)) {
          stored.add(e);
        }
      }
    } else {
      group = find(acl, false, Type.GROUP).permission();
    }
    for (AclEntry e : acl) {
      if (e.defaultScope()) {
        stored.add(e);
      }
    }
    stored.sort(AclEntry.ORDER);
    return new Stored((oldMode & 07000) | owner << 6 | group << 3 | other, stored);
  }
}
