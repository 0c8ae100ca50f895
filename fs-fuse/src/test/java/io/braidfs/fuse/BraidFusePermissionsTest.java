package io.braidfs.fuse;

import static io.braidfs.fuse.FuseTesting.run;
import static io.braidfs.fuse.FuseTesting.sh;
import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Permissions as Linux does them, for processes of other users (issue 24): as root, each check runs
 * a shell through setpriv(1) with a uid, gid and supplementary groups no account has, as
 * pjdfstest's tests do. Skipped, saying so, where /dev/fuse, libfuse 2, root or setpriv is missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BraidFusePermissionsTest {
  private static final String USER = "setpriv --reuid=5001 --regid=5001 --groups=5001,5002 -- ";

  @TempDir static Path tmp;

  private MiniCluster cluster;
  private BraidMount mount;
  private Path dir;

  @BeforeAll
  void mountIt() throws IOException {
    FuseTesting.assumeFuse();
    Assumptions.assumeTrue(FuseTesting.isRoot(), "skipped: switching users needs root");
    Assumptions.assumeTrue(FuseTesting.installed("setpriv"), "skipped: setpriv is not installed");
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    cluster = MiniCluster.builder(tmp.resolve("cluster")).dataServers(3).build();
    cluster.start();
    mount =
        BraidMount.mount(
            Files.createDirectories(tmp.resolve("mnt")),
            BraidFusePosixTest.config(cluster),
            MountOptions.defaults());
  }

  @AfterAll
  void unmount() {
    if (mount != null) {
      mount.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void testDir(TestInfo info) throws IOException {
    dir =
        Files.createDirectory(
            mount.directory().resolve(info.getTestMethod().orElseThrow().getName()));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
  }

  /**
   * Waits for {@code ls -l name} to show {@code mode}: a change of ACL changes the mode behind the
   * kernel's back (libfuse 2 cannot tell it), so it shows the old one until its attribute timeout.
   */
  private static void awaitMode(Path dir, String name, String mode) {
    Await.until(
        "ls -l " + name + " to show " + mode,
        Duration.ofSeconds(5),
        () -> {
          try {
            return sh(dir, "ls -l " + name).startsWith(mode);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
          }
        });
  }

  @Test
  void getfaclAndSetfaclWorkThroughTheMount() throws Exception {
    Assumptions.assumeTrue(
        FuseTesting.installed("setfacl"), "skipped: setfacl is not installed (Debian: acl)");
    sh(dir, "touch f && chmod 640 f && setfacl -m u:5003:r f");
    assertThat(sh(dir, "getfacl -n f"))
        .contains("user::rw-", "user:5003:r--", "group::r--", "mask::r--", "other::---");
    awaitMode(dir, "f", "-rw-r-----+");
    // The mask is the group bits: chmod changes it, as on ext4.
    sh(dir, "chmod 600 f");
    assertThat(sh(dir, "getfacl -n f")).contains("user:5003:r--", "#effective:---", "mask::---");

    // A default ACL is inherited by files and directories made below, through the mount.
    sh(dir, "mkdir d && setfacl -d -m g:5002:rwx d && touch d/x && mkdir d/sub");
    assertThat(sh(dir, "getfacl -n d")).contains("default:group:5002:rwx", "default:mask::rwx");
    assertThat(sh(dir, "getfacl -n d/x")).contains("group:5002:rwx");
    assertThat(sh(dir, "getfacl -n d/sub")).contains("default:group:5002:rwx");

    // Removing: -x an entry, -k the default ACL, -b everything.
    sh(dir, "setfacl -x u:5003 f");
    assertThat(sh(dir, "getfacl -n f")).doesNotContain("5003");
    sh(dir, "setfacl -k d");
    assertThat(sh(dir, "getfacl -n d")).doesNotContain("default:");
    sh(dir, "setfacl -m u:5003:rw f && setfacl -b f");
    assertThat(sh(dir, "getfacl -n f")).doesNotContain("5003").doesNotContain("mask");
    // The owning group's entry (r--) is the group bits again, as with setfacl -b on ext4.
    awaitMode(dir, "f", "-rw-r----- ");
    // Without named entries the ACL is the mode alone (no +), whatever the mask was.
    sh(dir, "setfacl -m u:5003:rw f && setfacl -x u:5003 f");
    awaitMode(dir, "f", "-rw-r----- ");
    // Removing the attribute keeps the mode as it is, the chmod-narrowed mask included.
    sh(dir, "setfacl -m u:5003:rw f && chmod 640 f && setfattr -x system.posix_acl_access f");
    awaitMode(dir, "f", "-rw-r----- ");
    assertThat(sh(dir, "getfacl -n f")).doesNotContain("5003");
    // Only the owner may change an ACL.
    FuseTesting.Run r = run(dir, USER + "setfacl -m u:5001:rwx f");
    assertThat(r.exit()).as(r.out()).isNotZero();
    assertThat(r.out()).contains("Operation not permitted");
  }

  @Test
  void chgrpToOneOfTheCallersSupplementaryGroups() throws Exception {
    sh(dir, USER + "sh -c 'touch f && chgrp 5002 f'");
    assertThat(sh(dir, "stat -c '%u %g' f").strip()).isEqualTo("5001 5002");
    // a group the process is not in is refused, as on a local disk
    FuseTesting.Run r = run(dir, USER + "chgrp 5003 f");
    assertThat(r.exit()).as(r.out()).isNotZero();
    assertThat(r.out()).contains("Operation not permitted");
  }

  @Test
  void aWriteByANonOwnerClearsSetIdBits() throws Exception {
    sh(dir, "echo x > f && chmod 6777 f");
    sh(dir, USER + "sh -c 'echo y >> f'");
    assertThat(sh(dir, "stat -c '%a' f").strip()).isEqualTo("777");
    assertThat(sh(dir, "cat f")).isEqualTo("x\ny\n");
  }

  @Test
  void aNonOwnerWithWriteAccessMayTouchButNotSetTimes() throws Exception {
    sh(dir, "echo x > f && chmod 666 f && touch -d @1000000000 f");
    sh(dir, USER + "touch f");
    long mtime = Long.parseLong(sh(dir, "stat -c %Y f").strip());
    assertThat(mtime).isGreaterThan(1_700_000_000L);
    FuseTesting.Run r = run(dir, USER + "touch -d @1000000000 f");
    assertThat(r.exit()).as(r.out()).isNotZero();
    assertThat(r.out()).contains("Operation not permitted");
  }

  @Test
  void newInodesTakeTheCreatorsGroup() throws Exception {
    sh(dir, "touch byroot");
    assertThat(sh(dir, "stat -c '%u %g' byroot").strip()).isEqualTo("0 0");
    sh(dir, USER + "sh -c 'touch f && mkdir d && ln -s f l'");
    assertThat(sh(dir, "stat -c '%u %g' f d && stat -c '%u %g' l").strip())
        .isEqualTo("5001 5001\n5001 5001\n5001 5001");
  }

  @Test
  void aSetGroupIdDirectoryGivesItsGroupAndItsBitToNewDirectories() throws Exception {
    sh(dir, "mkdir sg && chgrp 5002 sg && chmod 2777 sg");
    sh(dir, "setpriv --reuid=5003 --regid=5003 --groups=5003 -- sh -c 'touch sg/f && mkdir sg/d'");
    assertThat(sh(dir, "stat -c '%g' sg/f sg/d").strip()).isEqualTo("5002\n5002");
    assertThat(sh(dir, "stat -c '%a' sg/d").strip()).startsWith("2");
    assertThat(sh(dir, "stat -c '%a' sg/f").strip()).doesNotStartWith("2");
  }
}
