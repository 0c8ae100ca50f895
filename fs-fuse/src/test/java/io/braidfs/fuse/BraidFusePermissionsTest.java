package io.braidfs.fuse;

import static io.braidfs.fuse.FuseTesting.run;
import static io.braidfs.fuse.FuseTesting.sh;
import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
