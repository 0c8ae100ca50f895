package io.braidfs.mds.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.ConfigKeyRegistry;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.CallerContext;
import java.net.InetSocketAddress;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class PermissionsTest {
  private static final Permissions ON = new Permissions(true, "root", "supergroup");
  private static final Permissions OFF = new Permissions(false, "root", "supergroup");

  /** Owns the files of the tables; also a member of their group, which must not matter. */
  private static final Caller ALICE = Caller.of("alice", "alice", "staff");

  /** A member of the files' group. */
  private static final Caller BOB = Caller.of("bob", "bob", "staff", "eng");

  /** Neither owner nor group member. */
  private static final Caller CAROL = Caller.of("carol", "carol");

  private static final Caller ROOT = Caller.of("root");

  /** A member of the supergroup. */
  private static final Caller DAVE = Caller.of("dave", "dave", "supergroup");

  private static final Map<String, Caller> CALLERS =
      Map.of("alice", ALICE, "bob", BOB, "carol", CAROL, "root", ROOT, "dave", DAVE);

  private static PermissionStatus file(int mode) {
    return PermissionStatus.file("alice", "staff", mode);
  }

  private static void assertDenied(ThrowingCallable call, String message) {
    assertThatThrownBy(call)
        .isInstanceOf(AccessDeniedException.class)
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessage(message);
  }

  private static void assertDeniedContaining(ThrowingCallable call, String... parts) {
    assertThatThrownBy(call)
        .isInstanceOf(AccessDeniedException.class)
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED))
        .hasMessageContainingAll(parts);
  }

  // ---- the truth table ------------------------------------------------------------------------

  /**
   * The mode as {@code ls} shows it, built letter by letter: the oracle of the table, independent
   * of the shifts and masks of the code under test.
   */
  private static String symbolic(int mode) {
    String letters = "rwxrwxrwx";
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 9; i++) {
      boolean set = (mode & (0400 >> i)) != 0;
      sb.append(set ? letters.charAt(i) : '-');
    }
    return sb.toString();
  }

  /** Whether the letters of {@code wanted} are all set in the class at {@code offset} (0, 3, 6). */
  private static boolean lsAllows(int mode, int offset, Access wanted) {
    String s = symbolic(mode);
    return (!wanted.implies(Access.READ) || s.charAt(offset) == 'r')
        && (!wanted.implies(Access.WRITE) || s.charAt(offset + 1) == 'w')
        && (!wanted.implies(Access.EXECUTE) || s.charAt(offset + 2) == 'x');
  }

  /**
   * Every triplet in the caller's class, with the complement in the two other classes: a check that
   * fell through to another class would be granted a bit its own class lacks.
   */
  static Stream<Arguments> classTable() {
    List<Arguments> rows = new ArrayList<>();
    Caller[] callers = {ALICE, BOB, CAROL};
    for (int cls = 0; cls < 3; cls++) {
      int shift = 6 - 3 * cls;
      for (int triplet = 0; triplet < 8; triplet++) {
        int mode = 0;
        for (int other = 0; other < 3; other++) {
          mode |= (other == cls ? triplet : 7 - triplet) << (6 - 3 * other);
        }
        assertThat((mode >> shift) & 7).isEqualTo(triplet);
        for (Access wanted : Access.values()) {
          if (wanted != Access.NONE) {
            rows.add(Arguments.of(callers[cls], mode, wanted, lsAllows(mode, 3 * cls, wanted)));
          }
        }
      }
    }
    return rows.stream();
  }

  @ParameterizedTest(name = "{0} on {1} wants {2}: {3}")
  @MethodSource("classTable")
  void ownerGroupOtherTruthTable(Caller caller, int mode, Access wanted, boolean allowed) {
    PermissionStatus inode = file(mode);
    assertThat(ON.allows(caller, inode, wanted)).isEqualTo(allowed);
    ThrowingCallable check = () -> ON.check(caller, "op", "/f", "/f", inode, wanted);
    if (allowed) {
      assertThatCode(check).doesNotThrowAnyException();
    } else {
      assertDeniedContaining(check, "op /f: user " + caller.user() + " lacks ");
    }
  }

  @ParameterizedTest(name = "0{0} {1} wants {2}: {3}")
  @CsvSource({
    "640, alice, READ_WRITE, true",
    "640, bob, READ, true",
    "640, bob, WRITE, false",
    "640, carol, READ, false",
    "755, carol, READ_EXECUTE, true",
    // No fallthrough: the owner is refused what group and other may do.
    "077, alice, READ, false",
    // No fallthrough: a group member is refused what other may do.
    "707, bob, READ, false",
    // Superusers: everything but executing a file nobody may execute.
    "000, root, READ_WRITE, true",
    "644, root, WRITE, true",
    "644, root, EXECUTE, false",
    "100, root, EXECUTE, true",
    "001, root, ALL, true",
    "000, dave, WRITE, true",
    "644, dave, EXECUTE, false",
  })
  void handPickedRows(String octal, String who, Access wanted, boolean allowed) {
    assertThat(ON.allows(CALLERS.get(who), file(Integer.parseInt(octal, 8)), wanted))
        .isEqualTo(allowed);
  }

  @Test
  void superusersPassEverythingButExecutingAFileWithNoExecuteBit() {
    for (Caller su : List.of(ROOT, DAVE)) {
      for (int mode = 0; mode <= 07777; mode++) {
        for (boolean directory : new boolean[] {false, true}) {
          PermissionStatus inode = new PermissionStatus("alice", "staff", mode, directory);
          for (Access wanted : Access.values()) {
            boolean expected = directory || !wanted.implies(Access.EXECUTE) || (mode & 0111) != 0;
            assertThat(ON.allows(su, inode, wanted))
                .as("%s %s %s %s", su, inode, directory ? "dir" : "file", wanted)
                .isEqualTo(expected);
          }
        }
      }
    }
    assertThat(ON.isSuperuser(ROOT)).isTrue();
    assertThat(ON.isSuperuser(DAVE)).isTrue();
    assertThat(ON.isSuperuser(Caller.of("alice", "root"))).isFalse(); // a group named root
  }

  @Test
  void aDenialNamesTheOperationThePathTheUserAndWhatIsMissing() {
    PermissionStatus parent = PermissionStatus.directory("bob", "staff", 0755);
    assertDenied(
        () -> ON.check(CAROL, "mkdir", "/a/b", "/a", parent, Access.WRITE_EXECUTE),
        "mkdir /a/b: user carol lacks WRITE on /a (owner bob, group staff, mode 0755)");
    assertDenied(
        () -> ON.check(CAROL, "open", "/a/f", "/a/f", file(0600), Access.READ_WRITE),
        "open /a/f: user carol lacks READ+WRITE on /a/f (owner alice, group staff, mode 0600)");
    assertDenied(
        () -> ON.check(ROOT, "exec", "/bin/x", "/bin/x", file(04644), Access.EXECUTE),
        "exec /bin/x: user root lacks EXECUTE on /bin/x (owner alice, group staff, mode 04644):"
            + " no execute bit is set, and even a superuser needs one to execute a file");
  }

  // ---- traversal ------------------------------------------------------------------------------

  private static final List<PermissionStatus> CHAIN =
      List.of(
          PermissionStatus.directory("root", "root", 0755), // /
          PermissionStatus.directory("bob", "staff", 0711), // /a
          PermissionStatus.directory("bob", "staff", 0750), // /a/b
          PermissionStatus.directory("bob", "staff", 0700)); // /a/b/c

  @Test
  void traverseNamesTheFirstDirectoryWithoutSearch() {
    assertDenied(
        () -> ON.checkTraverse(CAROL, "stat", "/a/b/c/d", CHAIN),
        "stat /a/b/c/d: user carol lacks SEARCH on /a/b (owner bob, group staff, mode 0750)");
    // A group member gets through /a/b and stops at /a/b/c.
    Caller staff = Caller.of("erin", "staff");
    assertDenied(
        () -> ON.checkTraverse(staff, "stat", "/a/b/c/d", CHAIN),
        "stat /a/b/c/d: user erin lacks SEARCH on /a/b/c (owner bob, group staff, mode 0700)");
    // The shorter chain of a shallower path stops before the denying directory.
    assertThatCode(() -> ON.checkTraverse(staff, "stat", "/a/b/c", CHAIN.subList(0, 3)))
        .doesNotThrowAnyException();
    assertDenied(
        () ->
            ON.checkTraverse(
                CAROL, "stat", "/x", List.of(PermissionStatus.directory("root", "root", 0700))),
        "stat /x: user carol lacks SEARCH on / (owner root, group root, mode 0700)");
  }

  @Test
  void traversePassesForTheOwnerSuperusersAndWhenSwitchedOff() throws Exception {
    ON.checkTraverse(BOB, "stat", "/a/b/c/d", CHAIN);
    ON.checkTraverse(ROOT, "stat", "/a/b/c/d", List.of(PermissionStatus.directory("x", "x", 0)));
    ON.checkTraverse(DAVE, "stat", "/a/b/c/d", CHAIN);
    OFF.checkTraverse(CAROL, "stat", "/a/b/c/d", CHAIN);
    ON.checkTraverse(CAROL, "stat", "/", List.of());
  }

  @Test
  void traverseRejectsAChainThatDoesNotFitThePath() {
    assertThatThrownBy(() -> ON.checkTraverse(BOB, "stat", "/a/b", CHAIN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4 directories for 2 components");
    assertThatThrownBy(
            () ->
                ON.checkTraverse(
                    BOB, "stat", "/a/b", List.of(CHAIN.get(0), file(0755), CHAIN.get(2))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("stat /a/b: /a is not a directory");
    assertThatThrownBy(() -> ON.checkTraverse(BOB, "stat", "a/b", List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- the sticky bit -------------------------------------------------------------------------

  private static final PermissionStatus TMP = PermissionStatus.directory("root", "staff", 01777);
  private static final PermissionStatus BOBS = PermissionStatus.file("bob", "staff", 0666);

  @Test
  void inAStickyDirectoryOthersMayNotRemoveOrRename() {
    assertDenied(
        () -> ON.checkSticky(CAROL, "unlink", "/tmp/x", TMP, BOBS),
        "unlink /tmp/x: user carol may not remove or rename /tmp/x in sticky directory /tmp"
            + " (owner root, group staff, mode 01777): only the entry's owner bob, the"
            + " directory's owner and a superuser may");
    // Membership of the entry's and the directory's group does not help.
    assertDeniedContaining(
        () -> ON.checkSticky(ALICE, "rename", "/tmp/x", TMP, BOBS), "sticky directory /tmp");
  }

  @Test
  void inAStickyDirectoryOwnersAndSuperusersMay() throws Exception {
    ON.checkSticky(BOB, "unlink", "/tmp/x", TMP, BOBS);
    ON.checkSticky(ROOT, "unlink", "/tmp/x", TMP, BOBS);
    ON.checkSticky(DAVE, "unlink", "/tmp/x", TMP, BOBS);
    PermissionStatus carols = PermissionStatus.directory("carol", "carol", 01777);
    ON.checkSticky(CAROL, "rmdir", "/shared/x", carols, BOBS);
  }

  @Test
  void withoutTheStickyBitOrWithChecksOffAnyoneMay() throws Exception {
    ON.checkSticky(
        CAROL, "unlink", "/tmp/x", PermissionStatus.directory("root", "root", 0777), BOBS);
    OFF.checkSticky(CAROL, "unlink", "/tmp/x", TMP, BOBS);
    assertThatThrownBy(() -> ON.checkSticky(CAROL, "unlink", "/tmp/x", BOBS, BOBS))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- owner-only changes ---------------------------------------------------------------------

  @Test
  void onlyTheOwnerOrASuperuserMayChmod() throws Exception {
    ON.checkOwnerOrSuper(ALICE, "chmod", "/f", file(0));
    ON.checkOwnerOrSuper(ROOT, "chmod", "/f", file(0));
    ON.checkOwnerOrSuper(DAVE, "chmod", "/f", file(0));
    // Write permission, even all of it, is not ownership.
    assertDenied(
        () -> ON.checkOwnerOrSuper(BOB, "chmod", "/f", file(0777)),
        "chmod /f: user bob is neither the owner of /f (owner alice, group staff, mode 0777) nor"
            + " a superuser");
    OFF.checkOwnerOrSuper(CAROL, "chmod", "/f", file(0));
  }

  @Test
  void onlyASuperuserMayGiveAFileAway() throws Exception {
    PermissionStatus bobs = PermissionStatus.file("bob", "staff", 0644);
    assertDeniedContaining(
        () -> ON.checkSetOwner(BOB, "chown", "/f", bobs, "alice", null),
        "chown /f: user bob may not change the owner of /f",
        "to alice: only a superuser may change owners");
    ON.checkSetOwner(BOB, "chown", "/f", bobs, "bob", null); // unchanged
    ON.checkSetOwner(ROOT, "chown", "/f", bobs, "alice", "wheel");
    ON.checkSetOwner(DAVE, "chown", "/f", bobs, "carol", "carol");
    OFF.checkSetOwner(CAROL, "chown", "/f", bobs, "carol", "carol");
    // Not even a no-op chown by someone else.
    assertDeniedContaining(
        () -> ON.checkSetOwner(CAROL, "chown", "/f", bobs, "bob", null), "is neither the owner");
  }

  @Test
  void theOwnerMayChangeTheGroupOnlyToOneOfTheirs() throws Exception {
    PermissionStatus bobs = PermissionStatus.file("bob", "wheel", 0644);
    ON.checkSetOwner(BOB, "chgrp", "/f", bobs, null, "eng");
    ON.checkSetOwner(BOB, "chgrp", "/f", bobs, null, "wheel"); // current group, as Linux allows
    assertDenied(
        () -> ON.checkSetOwner(BOB, "chgrp", "/f", bobs, null, "ops"),
        "chgrp /f: user bob may not change the group of /f (owner bob, group wheel, mode 0644) to"
            + " ops: the owner may choose only a group they belong to");
    // Belonging to the new group is not enough for someone who is not the owner.
    assertDeniedContaining(
        () -> ON.checkSetOwner(ALICE, "chgrp", "/f", bobs, null, "staff"),
        "user alice is neither the owner");
  }

  @Test
  void explicitTimesNeedTheOwnerAndCurrentTimeNeedsWrite() throws Exception {
    assertDeniedContaining(
        () -> ON.checkSetTimes(BOB, "utimes", "/f", file(0666), true),
        "utimes /f: user bob may set explicit times on /f",
        "only as its owner or a superuser");
    ON.checkSetTimes(BOB, "utimes", "/f", file(0666), false);
    assertDenied(
        () -> ON.checkSetTimes(BOB, "utimes", "/f", file(0646), false),
        "utimes /f: user bob lacks WRITE on /f (owner alice, group staff, mode 0646)");
    ON.checkSetTimes(ALICE, "utimes", "/f", file(0), true);
    ON.checkSetTimes(ROOT, "utimes", "/f", file(0), true);
    OFF.checkSetTimes(CAROL, "utimes", "/f", file(0), true);
  }

  // ---- the switch and the configuration -------------------------------------------------------

  @Test
  void switchedOffEveryCheckPasses() throws Exception {
    for (int mode : new int[] {0, 0644, 07000}) {
      for (Access wanted : Access.values()) {
        assertThat(OFF.allows(CAROL, file(mode), wanted)).isTrue();
        assertThat(OFF.allows(ROOT, file(mode), wanted)).isTrue();
        OFF.check(CAROL, "op", "/f", "/f", file(mode), wanted);
        OFF.check(ROOT, "op", "/f", "/f", file(mode), wanted);
      }
    }
    assertThat(OFF.enabled()).isFalse();
    assertThat(ON.enabled()).isTrue();
  }

  @Test
  void configuredFromTheMdsSecurityKeys() {
    Permissions defaults = Permissions.from(BraidConfig.defaults());
    assertThat(defaults.enabled()).isTrue();
    assertThat(defaults.superuser()).isEqualTo("root");
    assertThat(defaults.supergroup()).isEqualTo("supergroup");

    Permissions custom =
        Permissions.from(
            BraidConfig.builder()
                .set("braid.mds.security.permissions", "false")
                .set("braid.mds.security.superuser", "braid")
                .set("braid.mds.security.supergroup", "admins")
                .build());
    assertThat(custom.enabled()).isFalse();
    assertThat(custom.isSuperuser(Caller.of("braid"))).isTrue();
    assertThat(custom.isSuperuser(Caller.of("root"))).isFalse();
    assertThat(custom.isSuperuser(Caller.of("x", "admins"))).isTrue();

    Permissions nobody = new Permissions(true, "", "");
    assertThat(nobody.isSuperuser(ROOT)).isFalse();
  }

  @Test
  void theKeysAreDiscoveredThroughTheServiceFile() {
    ConfigKeyRegistry registry = ConfigKeyRegistry.discover();
    assertThat(registry.keySets()).anyMatch(s -> s instanceof MdsSecurityConfigKeys);
    assertThat(registry.key("braid.mds.security.permissions"))
        .isSameAs(MdsSecurityConfigKeys.PERMISSIONS);
    assertThat(registry.key("braid.mds.security.superuser"))
        .isSameAs(MdsSecurityConfigKeys.SUPERUSER);
    assertThat(registry.key("braid.mds.security.supergroup"))
        .isSameAs(MdsSecurityConfigKeys.SUPERGROUP);
  }

  // ---- the value types ------------------------------------------------------------------------

  @Test
  void aCallerComesFromTheConnectionsContext() {
    CallerContext context =
        new CallerContext(
            new byte[16],
            "client-1",
            "alice",
            List.of("staff", "eng", "staff"),
            InetSocketAddress.createUnresolved("client", 1));
    Caller caller = Caller.of(context);
    assertThat(caller.user()).isEqualTo("alice");
    assertThat(caller.groups()).containsExactly("staff", "eng");
    assertThat(caller.isMemberOf("eng")).isTrue();
    assertThat(caller.isMemberOf("ops")).isFalse();
    assertThatThrownBy(() -> Caller.of("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Caller.of("a", "")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void modesAndAccessesHaveReadableNames() {
    assertThat(PermissionStatus.directory("a", "b", 01777).octalMode()).isEqualTo("01777");
    assertThat(file(0755).octalMode()).isEqualTo("0755");
    assertThat(file(0).octalMode()).isEqualTo("0000");
    assertThat(file(04751).ownerAccess()).isEqualTo(Access.ALL);
    assertThat(file(04751).groupAccess()).isEqualTo(Access.READ_EXECUTE);
    assertThat(file(04751).otherAccess()).isEqualTo(Access.EXECUTE);
    assertThatThrownBy(() -> file(010000)).isInstanceOf(IllegalArgumentException.class);
    assertThat(Access.SEARCH).isSameAs(Access.EXECUTE);
    assertThat(Access.READ_EXECUTE.describe(true)).isEqualTo("READ+SEARCH");
    assertThat(Access.ALL.describe(false)).isEqualTo("READ+WRITE+EXECUTE");
    assertThat(Access.NONE.describe(false)).isEqualTo("NONE");
    for (int bits = 0; bits < 8; bits++) {
      assertThat(Access.ofBits(bits).bits()).isEqualTo(bits);
    }
    assertThat(Access.READ_WRITE.without(Access.READ_EXECUTE)).isEqualTo(Access.WRITE);
    assertThatThrownBy(() -> Access.ofBits(8)).isInstanceOf(IllegalArgumentException.class);
  }
}
