package io.braidfs.mds.access;

import static io.braidfs.common.acl.AclEntry.Type.GROUP;
import static io.braidfs.common.acl.AclEntry.Type.MASK;
import static io.braidfs.common.acl.AclEntry.Type.OTHER;
import static io.braidfs.common.acl.AclEntry.Type.USER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.acl.AclEntry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ACL changes, their stored form, inheritance and the POSIX.1e access check. */
class AclsTest {
  private final Permissions permissions = new Permissions(true, "root", "supergroup");
  private static final Acls.Stored PLAIN = new Acls.Stored(0640, List.of());

  private static List<String> shown(Acls.Stored s) {
    return Acls.logical(s).stream().map(AclEntry::toString).toList();
  }

  private boolean allows(Acls.Stored s, boolean dir, Caller c, Access a) {
    return permissions.allows(
        c, new PermissionStatus("alice", "staff", s.mode(), dir, s.entries()), a);
  }

  @Test
  void aNamedUserGetsTheMaskedAccessOfItsEntry() {
    Acls.Stored s =
        Acls.apply(PLAIN, false, Acls.Op.MODIFY, List.of(AclEntry.access(USER, "bob", 6)));
    assertThat(shown(s))
        .containsExactly("user::rw-", "user:bob:rw-", "group::r--", "mask::rw-", "other::---");
    assertThat(s.mode()).isEqualTo(0660); // group bits are the mask
    assertThat(s.extended()).isTrue();
    Caller bob = Caller.of("bob", "bob");
    assertThat(allows(s, false, bob, Access.READ_WRITE)).isTrue();
    assertThat(allows(s, false, Caller.of("carol", "carol"), Access.READ)).isFalse();
    // A member of the owning group keeps its own entry's access, not the mask's.
    assertThat(allows(s, false, Caller.of("dan", "staff"), Access.WRITE)).isFalse();
    assertThat(allows(s, false, Caller.of("dan", "staff"), Access.READ)).isTrue();
    // chmod g=r sets the mask: bob loses write.
    Acls.Stored chmodded = new Acls.Stored(0640, s.entries());
    assertThat(allows(chmodded, false, bob, Access.WRITE)).isFalse();
    assertThat(allows(chmodded, false, bob, Access.READ)).isTrue();
  }

  @Test
  void groupEntriesGrantOnlyIfOneOfThemGrantsEverything() {
    Acls.Stored s =
        Acls.apply(
            PLAIN,
            false,
            Acls.Op.MODIFY,
            List.of(AclEntry.access(GROUP, "readers", 4), AclEntry.access(GROUP, "writers", 2)));
    Caller both = Caller.of("eve", "readers", "writers");
    assertThat(allows(s, false, both, Access.READ)).isTrue();
    assertThat(allows(s, false, both, Access.WRITE)).isTrue();
    assertThat(allows(s, false, both, Access.READ_WRITE)).isFalse(); // POSIX: no union
  }

  @Test
  void removingTheAclLeavesTheOwningGroupsBits() {
    Acls.Stored s =
        Acls.apply(PLAIN, false, Acls.Op.MODIFY, List.of(AclEntry.access(USER, "bob", 7)));
    assertThat(s.mode()).isEqualTo(0670);
    Acls.Stored back = Acls.apply(s, false, Acls.Op.REMOVE, List.of());
    assertThat(back).isEqualTo(PLAIN);
    Acls.Stored removed =
        Acls.apply(s, false, Acls.Op.REMOVE_ENTRIES, List.of(AclEntry.access(USER, "bob", 0)));
    assertThat(removed.entries()).isEmpty();
    assertThat(removed.mode()).isEqualTo(0640);
  }

  @Test
  void aDefaultAclIsCompletedAndInherited() {
    Acls.Stored dir = new Acls.Stored(02750, List.of());
    Acls.Stored withDefault =
        Acls.apply(dir, true, Acls.Op.MODIFY, List.of(AclEntry.ofDefault(USER, "bob", 5)));
    assertThat(shown(withDefault))
        .containsExactly(
            "user::rwx",
            "group::r-x",
            "other::---",
            "default:user::rwx",
            "default:user:bob:r-x",
            "default:group::r-x",
            "default:mask::r-x",
            "default:other::---");
    assertThat(withDefault.mode()).isEqualTo(02750); // setgid kept; the access ACL unchanged
    Acls.Stored file = Acls.inherit(withDefault.entries(), 0644, false);
    assertThat(shown(file))
        .containsExactly("user::rw-", "user:bob:r-x", "group::r-x", "mask::r--", "other::---");
    Acls.Stored sub = Acls.inherit(withDefault.entries(), 0755, true);
    assertThat(Acls.scope(sub.entries(), true)).isEqualTo(Acls.scope(withDefault.entries(), true));
    assertThat(Acls.inherit(List.of(), 0644, false)).isNull();
  }

  @Test
  void badSpecsAreRefusedByName() {
    assertThatThrownBy(
            () ->
                Acls.apply(
                    PLAIN, false, Acls.Op.MODIFY, List.of(AclEntry.ofDefault(USER, "bob", 5))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only a directory has a default ACL");
    assertThatThrownBy(
            () ->
                Acls.apply(
                    PLAIN,
                    false,
                    Acls.Op.MODIFY,
                    List.of(AclEntry.access(USER, "bob", 5), AclEntry.access(USER, "bob", 4))))
        .hasMessageContaining("twice");
    assertThatThrownBy(
            () -> Acls.apply(PLAIN, false, Acls.Op.SET, List.of(AclEntry.access(USER, "", 7))))
        .hasMessageContaining("needs its user::, group:: and other::");
    assertThatThrownBy(
            () ->
                Acls.apply(
                    PLAIN, false, Acls.Op.REMOVE_ENTRIES, List.of(AclEntry.access(OTHER, "", 0))))
        .hasMessageContaining("cannot be removed");
    assertThatThrownBy(() -> AclEntry.access(MASK, "bob", 7)).hasMessageContaining("names nobody");
  }

  @Test
  void setReplacesTheAccessAclAndComputesTheMask() {
    Acls.Stored s =
        Acls.apply(
            PLAIN,
            false,
            Acls.Op.SET,
            List.of(
                AclEntry.access(USER, "", 7),
                AclEntry.access(GROUP, "", 0),
                AclEntry.access(GROUP, "eng", 5),
                AclEntry.access(OTHER, "", 4)));
    assertThat(shown(s))
        .containsExactly("user::rwx", "group::---", "group:eng:r-x", "mask::r-x", "other::r--");
    assertThat(s.mode()).isEqualTo(0754);
  }

  @Test
  void aChangeToOneScopeLeavesTheOtherScopesMask() {
    Acls.Stored dir = new Acls.Stored(0750, List.of());
    Acls.Stored bob =
        Acls.apply(dir, true, Acls.Op.MODIFY, List.of(AclEntry.access(USER, "bob", 7)));
    assertThat(bob.mode()).isEqualTo(0770);
    Acls.Stored narrowed = new Acls.Stored(0750, bob.entries()); // chmod 750: mask r-x
    Acls.Stored withDefault =
        Acls.apply(narrowed, true, Acls.Op.MODIFY, List.of(AclEntry.ofDefault(USER, "carol", 5)));
    assertThat(withDefault.mode()).as("the access mask stays r-x").isEqualTo(0750);
    // A default mask is computed after the default's base entries are filled in.
    Acls.Stored open = new Acls.Stored(0775, List.of());
    Acls.Stored d =
        Acls.apply(open, true, Acls.Op.MODIFY, List.of(AclEntry.ofDefault(USER, "bob", 4)));
    assertThat(shown(d)).contains("default:group::rwx", "default:mask::rwx");
    // setAcl with default entries alone keeps the access ACL and completes the default one.
    Acls.Stored set =
        Acls.apply(open, true, Acls.Op.SET, List.of(AclEntry.ofDefault(USER, "bob", 5)));
    assertThat(set.mode()).isEqualTo(0775);
    assertThat(shown(set))
        .contains("default:user::rwx", "default:user:bob:r-x", "default:other::r-x");
    // Removing the mask with -x: it is recomputed from the named entries, not kept.
    Acls.Stored removedMask =
        Acls.apply(
            new Acls.Stored(0740, bob.entries()),
            true,
            Acls.Op.REMOVE_ENTRIES,
            List.of(AclEntry.access(MASK, "", 0)));
    assertThat(removedMask.mode()).isEqualTo(0770);
  }
}
