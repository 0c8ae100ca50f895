package io.braidfs.fuse;

import static io.braidfs.fuse.FuseTesting.run;
import static io.braidfs.fuse.FuseTesting.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * POSIX semantics of a real FUSE mount of a MiniCluster, through java.nio.file and plain shell
 * tools. Skipped, saying so, only where /dev/fuse or libfuse 2 is missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BraidFusePosixTest {
  @TempDir static Path tmp;

  private MiniCluster cluster;
  private BraidMount mount;
  private Path mnt;
  private Path dir;
  private Path local;

  @BeforeAll
  void mountIt() throws IOException {
    FuseTesting.assumeFuse();
    cluster = MiniCluster.builder(tmp.resolve("cluster")).dataServers(3).build();
    cluster.start();
    mnt = Files.createDirectories(tmp.resolve("mnt"));
    mount = BraidMount.mount(mnt, config(cluster), MountOptions.defaults());
  }

  static BraidConfig config(MiniCluster c) {
    return BraidConfig.fromMap(
        Map.of(ClientConfigKeys.MDS.name(), HostPort.of(c.mdsAddress()).toString()));
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
    String name = info.getTestMethod().orElseThrow().getName();
    dir = Files.createDirectory(mnt.resolve(name));
    local = Files.createDirectories(tmp.resolve("local").resolve(name));
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void createWriteReadThroughJava() throws IOException {
    byte[] data = random(3 * 1024 * 1024 + 17, 1);
    Path f = dir.resolve("a.bin");
    Files.write(f, data);
    assertThat(Files.size(f)).isEqualTo(data.length);
    assertThat(Files.readAllBytes(f)).isEqualTo(data);
    assertThat(Files.isRegularFile(f)).isTrue();
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("a.bin");
    }
  }

  @Test
  void appendWithOAppend() throws IOException, InterruptedException {
    Path f = dir.resolve("log");
    Files.writeString(f, "one\n");
    Files.writeString(f, "two\n", StandardOpenOption.APPEND);
    sh(dir, "echo three >> log");
    assertThat(Files.readString(f)).isEqualTo("one\ntwo\nthree\n");
    // O_APPEND writes go to the end even after a seek
    try (FileChannel ch =
        FileChannel.open(f, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ch.write(ByteBuffer.wrap("four\n".getBytes(StandardCharsets.UTF_8)));
    }
    assertThat(Files.readString(f)).isEqualTo("one\ntwo\nthree\nfour\n");
  }

  @Test
  void createNewRefusesAnExistingFile() throws IOException {
    Path f = dir.resolve("x");
    Files.writeString(f, "first");
    assertThatThrownBy(
            () ->
                Files.newByteChannel(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                    .close())
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.readString(f)).isEqualTo("first");
  }

  @Test
  void truncateOnOpenAndTruncateTool() throws IOException, InterruptedException {
    Path f = dir.resolve("t");
    Files.write(f, random(100_000, 2));
    Files.writeString(f, "short", StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
    assertThat(Files.readString(f)).isEqualTo("short");
    sh(dir, "truncate -s 2 t");
    assertThat(Files.readString(f)).isEqualTo("sh");
    sh(dir, "truncate -s 10 t");
    assertThat(Files.readAllBytes(f)).isEqualTo(new byte[] {'s', 'h', 0, 0, 0, 0, 0, 0, 0, 0});
    // ftruncate on an open, written file
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
      ch.write(ByteBuffer.wrap("0123456789abcdef".getBytes(StandardCharsets.UTF_8)), 0);
      ch.truncate(4);
      ch.write(ByteBuffer.wrap("XY".getBytes(StandardCharsets.UTF_8)), 4);
      ByteBuffer back = ByteBuffer.allocate(16);
      int n = ch.read(back, 0);
      assertThat(new String(back.array(), 0, n, StandardCharsets.UTF_8)).isEqualTo("0123XY");
    }
    assertThat(Files.readString(f)).isEqualTo("0123XY");
  }

  @Test
  void randomWritesWithDdMatchTheLocalDisk() throws IOException, InterruptedException {
    byte[] data = random(2 * 1024 * 1024, 3);
    Files.write(local.resolve("r"), data);
    sh(local, "cp r " + dir.resolve("r"));
    String patch =
        "dd if=/dev/urandom of=patch bs=1k count=300 status=none && "
            + "for spec in 'r 7 1' 'r 1000 3' 'r 0 1' 'r 2040 20'; do set -- $spec; "
            + "dd if=patch of=$D/$1 bs=1k seek=$2 count=$3 conv=notrunc status=none; "
            + "dd if=patch of="
            + local
            + "/$1 bs=1k seek=$2 count=$3 conv=notrunc status=none; done";
    sh(local, "D=" + dir + "; " + patch);
    sh(local, "cmp r " + dir.resolve("r"));
    assertThat(Files.size(dir.resolve("r"))).isEqualTo(2060 * 1024);
  }

  @Test
  void sparseFilesReadBackZeros() throws IOException {
    Path f = dir.resolve("sparse");
    try (FileChannel ch =
        FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap("end".getBytes(StandardCharsets.UTF_8)), 5_000_000);
    }
    byte[] back = Files.readAllBytes(f);
    assertThat(back).hasSize(5_000_003);
    byte[] zeros = new byte[5_000_000];
    assertThat(Arrays.equals(back, 0, 5_000_000, zeros, 0, 5_000_000)).isTrue();
    assertThat(new String(back, 5_000_000, 3, StandardCharsets.UTF_8)).isEqualTo("end");
  }

  @Test
  void renameOverAnExistingFile() throws IOException, InterruptedException {
    Files.writeString(dir.resolve("a"), "A");
    Files.writeString(dir.resolve("b"), "B");
    sh(dir, "mv a b");
    assertThat(Files.exists(dir.resolve("a"))).isFalse();
    assertThat(Files.readString(dir.resolve("b"))).isEqualTo("A");
    Files.writeString(dir.resolve("c"), "C");
    Files.move(
        dir.resolve("c"),
        dir.resolve("b"),
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    assertThat(Files.readString(dir.resolve("b"))).isEqualTo("C");
    Files.createDirectory(dir.resolve("d"));
    Files.move(dir.resolve("b"), dir.resolve("d/b"));
    assertThat(Files.readString(dir.resolve("d/b"))).isEqualTo("C");
  }

  @Test
  void renameOverAnOpenFileKeepsItReadable() throws IOException {
    Files.writeString(dir.resolve("old"), "old contents");
    Files.writeString(dir.resolve("new"), "new contents");
    try (FileChannel ch = FileChannel.open(dir.resolve("old"), StandardOpenOption.READ)) {
      Files.move(dir.resolve("new"), dir.resolve("old"), StandardCopyOption.REPLACE_EXISTING);
      ByteBuffer b = ByteBuffer.allocate(64);
      int n = ch.read(b, 0);
      assertThat(new String(b.array(), 0, n, StandardCharsets.UTF_8)).isEqualTo("old contents");
    }
    assertThat(Files.readString(dir.resolve("old"))).isEqualTo("new contents");
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("old");
    }
  }

  @Test
  void unlinkWhileOpenStaysReadableAndWritableUntilClose() throws IOException {
    Path f = dir.resolve("gone");
    Files.writeString(f, "still here");
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      Files.delete(f);
      assertThat(Files.exists(f)).isFalse();
      ByteBuffer b = ByteBuffer.allocate(64);
      int n = ch.read(b, 0);
      assertThat(new String(b.array(), 0, n, StandardCharsets.UTF_8)).isEqualTo("still here");
      ch.write(ByteBuffer.wrap("!".getBytes(StandardCharsets.UTF_8)), 10);
      b.clear();
      n = ch.read(b, 0);
      assertThat(new String(b.array(), 0, n, StandardCharsets.UTF_8)).isEqualTo("still here!");
      Files.writeString(f, "a new file of the same name");
    }
    assertThat(Files.readString(f)).isEqualTo("a new file of the same name");
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("gone");
    }
  }

  /**
   * Waits until the clock the MDS stamps times with (this machine's, in milliseconds) has passed
   * {@code t}, so that a change made next gets a later time.
   */
  private static void clockPasses(FileTime t) {
    Await.until(
        "the clock to pass " + t,
        Duration.ofSeconds(1),
        () -> System.currentTimeMillis() > t.toMillis());
  }

  @Test
  void timesUpdateAndCanBeSet() throws IOException, InterruptedException {
    Path f = dir.resolve("m");
    Files.writeString(f, "1");
    FileTime m1 = Files.getLastModifiedTime(f);
    FileTime c1 = (FileTime) Files.getAttribute(f, "unix:ctime");
    clockPasses(m1);
    Files.writeString(f, "22", StandardOpenOption.APPEND);
    FileTime m2 = Files.getLastModifiedTime(f);
    assertThat(m2).isGreaterThan(m1);
    clockPasses(c1);
    sh(dir, "chmod 640 m");
    FileTime c2 = (FileTime) Files.getAttribute(f, "unix:ctime");
    assertThat(c2).isGreaterThan(c1);
    sh(dir, "touch -d '2001-02-03 04:05:06.123456789 UTC' m");
    assertThat(Files.getLastModifiedTime(f).toInstant().toString())
        .isEqualTo("2001-02-03T04:05:06.123456789Z");
    // One time alone (utimensat with UTIME_OMIT for the other): libfuse 2 passes it on only
    // with flag_utime_omit_ok, which the mount sets.
    sh(dir, "touch -a -d @1000000000 m");
    assertThat(sh(dir, "stat -c '%X %Y' m").strip()).isEqualTo("1000000000 981173106");
    sh(dir, "touch -m -d @1100000000 m");
    assertThat(sh(dir, "stat -c '%X %Y' m").strip()).isEqualTo("1000000000 1100000000");
    Files.setLastModifiedTime(f, FileTime.fromMillis(1_000_000_000_000L));
    assertThat(Files.getLastModifiedTime(f).toMillis()).isEqualTo(1_000_000_000_000L);
    // a directory's mtime moves when an entry is added
    FileTime d1 = Files.getLastModifiedTime(dir);
    clockPasses(d1);
    Files.createFile(dir.resolve("n"));
    assertThat(Files.getLastModifiedTime(dir)).isGreaterThan(d1);
  }

  @Test
  void modesOwnersAndPermissionChecks() throws IOException, InterruptedException {
    Path f = dir.resolve("secret");
    Files.writeString(f, "top secret");
    sh(dir, "chmod 600 secret");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-------");
    // Owner: the creating user; group: the parent directory's (Braid, like HDFS and BSD).
    assertThat(sh(dir, "stat -c '%U %G %a' secret").trim())
        .isEqualTo(System.getProperty("user.name") + " " + sh(dir, "stat -c %G .").trim() + " 600");
    Assumptions.assumeTrue(
        FuseTesting.isRoot() && FuseTesting.installed("setpriv"),
        "the refusal as another user needs root (to switch users) and setpriv");
    String asNobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    FuseTesting.Run r = run(dir, asNobody + "cat secret");
    assertThat(r.exit()).isNotZero();
    assertThat(r.out()).contains("Permission denied");
    sh(dir, "chmod 644 secret && chmod 777 .");
    assertThat(sh(dir, asNobody + "cat secret")).isEqualTo("top secret");
    assertThat(run(dir, asNobody + "sh -c 'echo x >> secret'").out()).contains("Permission denied");
    // nobody's own file is owned by nobody
    sh(dir, asNobody + "sh -c 'echo mine > mine'");
    assertThat(sh(dir, "stat -c '%u %U' mine").trim()).isEqualTo("65534 nobody");
    sh(dir, "chown 65534:65534 secret");
    assertThat(sh(dir, "stat -c '%u %g' secret").trim()).isEqualTo("65534 65534");
  }

  @Test
  void attributesChangedWhileWritingAreSeenAtOnceAndByOthersAfterClose() throws IOException {
    Path f = dir.resolve("written");
    byte[] a = random(100_000, 9);
    byte[] b = random(50_000, 10);
    boolean root = FuseTesting.isRoot();
    try (FileChannel ch =
        FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(a));
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-x---"));
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
          .isEqualTo("rwxr-x---");
      if (root) {
        Files.setAttribute(f, "unix:uid", 65534);
        Files.setAttribute(f, "unix:gid", 65534);
        assertThat(Files.getAttribute(f, "unix:uid")).isEqualTo(65534);
      }
      ch.write(ByteBuffer.wrap(b));
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));
      assertThat(Files.size(f)).isEqualTo(a.length + b.length);
    }
    // Another client sees the last changes once close(2) has returned.
    try (io.braidfs.client.BraidClient other = cluster.newBraidClient("root")) {
      io.braidfs.client.FileAttributes seen = other.lstat("/" + mnt.relativize(f));
      assertThat(seen.mode()).isEqualTo(0640);
      assertThat(seen.size()).isEqualTo(a.length + b.length);
      if (root) {
        assertThat(seen.user()).isEqualTo("nobody");
        assertThat(seen.group()).isEqualTo("nogroup");
      }
    }
    byte[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    assertThat(Files.readAllBytes(f)).isEqualTo(all);
  }

  @Test
  void fsyncMakesAttributeChangesOfAFileBeingWrittenDurable() throws IOException {
    Path f = dir.resolve("fsynced");
    try (FileChannel ch =
        FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(random(1000, 12)));
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"));
      ch.force(true); // fsync(2): the chmod held back for the close goes now
      try (io.braidfs.client.BraidClient other = cluster.newBraidClient("root")) {
        assertThat(other.lstat("/" + mnt.relativize(f)).mode()).isEqualTo(0700);
      }
    }
  }

  @Test
  void fsyncOfAClosedFileForcesItsReplicas() throws IOException {
    Path f = dir.resolve("synced");
    Files.write(f, random(100_000, 11)); // close(2) does not sync on the mount
    String path = "/" + mnt.relativize(f);
    try (io.braidfs.client.BraidClient c = cluster.newBraidClient("root")) {
      assertThat(cluster.replicasOf(c, path))
          .isNotEmpty()
          .anyMatch(r -> r.syncedLength() < r.length());
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
        ch.force(true); // fsync(2) of a read-only descriptor
      }
      assertThat(cluster.replicasOf(c, path)).allMatch(r -> r.syncedLength() == r.length());
    }
  }

  @Test
  void symlinksAndHardLinks() throws IOException, InterruptedException {
    Files.writeString(dir.resolve("target"), "T");
    sh(dir, "ln -s target sym && ln target hard");
    assertThat(Files.isSymbolicLink(dir.resolve("sym"))).isTrue();
    assertThat(Files.readSymbolicLink(dir.resolve("sym")).toString()).isEqualTo("target");
    assertThat(sh(dir, "readlink sym").trim()).isEqualTo("target");
    assertThat(sh(dir, "cat sym")).isEqualTo("T");
    assertThat(Files.getAttribute(dir.resolve("hard"), "unix:nlink")).isEqualTo(2);
    assertThat(Files.getAttribute(dir.resolve("hard"), "unix:ino"))
        .isEqualTo(Files.getAttribute(dir.resolve("target"), "unix:ino"));
    Files.delete(dir.resolve("target"));
    assertThat(Files.readString(dir.resolve("hard"))).isEqualTo("T");
    assertThat(Files.exists(dir.resolve("sym"))).isFalse();
    assertThat(Files.exists(dir.resolve("sym"), LinkOption.NOFOLLOW_LINKS)).isTrue();
  }

  @Test
  void directories() throws IOException, InterruptedException {
    sh(dir, "mkdir -p a/b/c && touch a/b/c/f a/x");
    assertThat(sh(dir, "ls a").trim()).isEqualTo("b\nx");
    assertThat(sh(dir, "find . | sort").trim())
        .isEqualTo(".\n./a\n./a/b\n./a/b/c\n./a/b/c/f\n./a/x");
    FuseTesting.Run r = run(dir, "rmdir a/b");
    assertThat(r.exit()).isNotZero();
    assertThat(r.out()).contains("Directory not empty");
    assertThat(run(dir, "mkdir a").out()).contains("File exists");
    assertThat(run(dir, "cat nothing").out()).contains("No such file or directory");
    assertThat(run(dir, "cat a").out()).contains("Is a directory");
    sh(dir, "rm -r a");
    assertThatThrownBy(() -> Files.size(dir.resolve("a"))).isInstanceOf(NoSuchFileException.class);
    // a directory bigger than one listing page
    sh(dir, "mkdir big && cd big && for i in $(seq 1 1200); do : > f$i; done");
    assertThat(sh(dir, "ls big | wc -l").trim()).isEqualTo("1200");
  }

  @Test
  void dfTellsTheClustersNumbers() throws IOException, InterruptedException {
    String out = sh(dir, "df -B1 --output=size,used,avail,target " + mnt + " | tail -1");
    String[] f = out.trim().split("\\s+");
    assertThat(Long.parseLong(f[0])).isPositive();
    assertThat(f[3]).isEqualTo(mnt.toString());
    assertThat(sh(dir, "stat -f -c %T .").trim()).isIn("fuseblk", "fuse", "UNKNOWN (0x65735546)");
  }

  @Test
  void dfCountsTheSharedDiskOnceDividedByTheReplication() throws IOException, InterruptedException {
    // The three data servers keep their directories on the disk of the test's temporary
    // directory: df shows that disk once, divided by the replication (3), not three disks.
    long disk = Files.getFileStore(tmp).getTotalSpace();
    long block = 4096;
    String out = sh(dir, "df -B1 --output=size,avail " + mnt + " | tail -1");
    String[] f = out.trim().split("\\s+");
    long size = Long.parseLong(f[0]);
    assertThat(size).isCloseTo(disk / 3, within(block));
    assertThat(Long.parseLong(f[1])).isPositive().isLessThanOrEqualTo(size);
    FileStore store = Files.getFileStore(mnt);
    assertThat(store.getTotalSpace()).isCloseTo(disk / 3, within(block));
    assertThat(store.getUsableSpace()).isPositive().isLessThanOrEqualTo(store.getTotalSpace());
  }

  @Test
  void duCountsTheWrittenBytesOfASparseFile() throws IOException, InterruptedException {
    // A 1 GiB hole, then 4 KiB of data: the data starts a chunk of the default layout (sets of
    // four 64 MiB chunks span 256 MiB), so the chunks hold 4 KiB and nothing else.
    sh(dir, "dd if=/dev/urandom of=s bs=4k count=1 seek=262144 status=none");
    assertThat(sh(dir, "du --apparent-size -B1 s").trim()).startsWith("1073745920");
    assertThat(sh(dir, "stat -c %s s").trim()).isEqualTo("1073745920");
    assertThat(sh(dir, "stat -c %b s").trim()).isEqualTo("8"); // 512-byte units
    assertThat(Long.parseLong(sh(dir, "du -k s").trim().split("\\s+")[0])).isBetween(1L, 8L);
    // cp --sparse=always seeks over the source's zeros, so the copy is as sparse.
    sh(local, "truncate -s 256M src && printf end >> src");
    sh(local, "cp --sparse=always src " + dir.resolve("copy"));
    assertThat(Long.parseLong(sh(dir, "du -k copy").trim().split("\\s+")[0])).isBetween(1L, 8L);
    assertThat(sh(dir, "du --apparent-size -B1 copy").trim()).startsWith("268435459");
    sh(local, "cmp src " + dir.resolve("copy"));
    // A dense file shows its size.
    sh(dir, "head -c 3000000 /dev/urandom > d");
    assertThat(sh(dir, "stat -c %b d").trim()).isEqualTo(Long.toString((3000000 + 511) / 512));
  }

  @Test
  void extendedAttributes() throws IOException, InterruptedException {
    Assumptions.assumeTrue(
        FuseTesting.installed("setfattr") && FuseTesting.installed("getfattr"),
        "setfattr/getfattr (package attr) are not installed");
    Files.writeString(dir.resolve("x"), "x");
    sh(dir, "setfattr -n user.color -v blue x");
    assertThat(sh(dir, "getfattr --only-values -n user.color x")).isEqualTo("blue");
    assertThat(sh(dir, "getfattr -d x")).contains("user.color=\"blue\"");
    FuseTesting.Run missing = run(dir, "getfattr -n user.none x");
    assertThat(missing.exit()).isNotZero();
    assertThat(missing.out()).contains("No such attribute");
    sh(dir, "setfattr -x user.color x");
    assertThat(sh(dir, "getfattr -d x")).doesNotContain("user.color");
  }

  @Test
  void shellToolsCopyAndCompare() throws IOException, InterruptedException {
    Files.write(local.resolve("big"), random(5 * 1024 * 1024 + 3, 4));
    sh(local, "cp big " + dir + "/ && cat " + dir + "/big > back && cmp big back");
    sh(dir, "cp big big2 && mv big2 big3 && cmp big big3");
    sh(dir, "dd if=/dev/zero of=z bs=1M count=8 status=none && test $(stat -c %s z) = 8388608");
    assertThat(sh(dir, "md5sum < z").trim())
        .startsWith(sh(dir, "head -c 8388608 /dev/zero | md5sum").trim().substring(0, 32));
  }
}
