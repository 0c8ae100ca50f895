package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.InvalidArgumentException;
import io.braidfs.common.error.PathExistsException;
import io.braidfs.common.error.PathNotDirectoryException;
import io.braidfs.common.error.PathNotEmptyException;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.testing.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BraidClient} end to end on a real MiniCluster (MDS and three data servers over loopback):
 * every namespace operation, streams of every awkward size, the caches' close-to-open rule, and bad
 * input refused with the right exception and nothing changed.
 */
class BraidClientTest {
  static final LayoutPolicy SMALL =
      LayoutPolicy.inherit()
          .withStripeUnit(64 << 10)
          .withStripeWidth(3)
          .withChunkSize(1 << 20)
          .withReplication(2);

  @TempDir static Path dir;
  static MiniCluster cluster;
  static BraidClient client;

  @BeforeAll
  static void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
    client = cluster.newBraidClient("root");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static byte[] random(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static byte[] readAll(InputStream in, int bufferSize) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[bufferSize];
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, (64 << 10) - 1, 64 << 10, (1 << 20) + 3, 9 * (1 << 20) + 11})
  void writesInSmallPiecesReadBackInAnyPieces(int size) throws IOException {
    String path = "/sizes/f" + size;
    byte[] data = random(size, size);
    try (BraidOutputStream out = client.create(path, CreateOptions.defaults().withLayout(SMALL))) {
      for (int at = 0; at < size; at += 8192) {
        out.write(data, at, Math.min(8192, size - at));
      }
      assertThat(out.getPos()).isEqualTo(size);
    }
    assertThat(client.stat(path).size()).isEqualTo(size);
    for (int bufferSize : new int[] {1000, 64 << 10, 3 << 20}) {
      try (BraidInputStream in = client.open(path)) {
        assertThat(readAll(in, bufferSize)).isEqualTo(data);
        assertThat(in.read()).isEqualTo(-1);
        assertThat(in.stats().bytesAsked()).isEqualTo(size);
      }
    }
  }

  @Test
  void singleByteWritesAndReads() throws IOException {
    try (OutputStream out = client.create("/bytes")) {
      for (int i = 0; i < 1000; i++) {
        out.write(i);
      }
    }
    try (InputStream in = client.open("/bytes")) {
      for (int i = 0; i < 1000; i++) {
        assertThat(in.read()).isEqualTo(i & 0xff);
      }
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void positionalReadsLeaveThePositionAndTheWindowAlone() throws IOException {
    byte[] data = random(7, 3 << 20);
    try (OutputStream out = client.create("/pread", CreateOptions.defaults().withLayout(SMALL))) {
      out.write(data);
    }
    try (BraidInputStream in = client.open("/pread")) {
      byte[] head = new byte[100_000];
      assertThat(in.read(head)).isPositive();
      in.readFully(head.length, new byte[10], 0, 10); // random-looking pread
      long window = in.stats().window();
      byte[] b = new byte[5000];
      in.readFully(2_000_000, b, 0, b.length);
      assertThat(b).isEqualTo(java.util.Arrays.copyOfRange(data, 2_000_000, 2_005_000));
      assertThat(in.getPos()).isLessThanOrEqualTo(head.length);
      assertThat(in.stats().window()).isEqualTo(window);
      assertThatThrownBy(() -> in.readFully(data.length - 3, new byte[10], 0, 10))
          .isInstanceOf(EOFException.class);
      assertThat(in.read(data.length, new byte[4], 0, 4)).isEqualTo(-1);
    }
  }

  @Test
  void sequentialReadsOpenAWindowAndRandomReadsFetchOnlyWhatWasAsked() throws IOException {
    byte[] data = random(8, 4 << 20);
    try (OutputStream out = client.create("/window")) {
      out.write(data);
    }
    try (BraidInputStream in = client.open("/window")) {
      byte[] b = new byte[64 << 10];
      Random r = new Random(1);
      for (int i = 0; i < 20; i++) {
        // Even 64 KiB slots only: a read never starts where the previous one ended.
        long at = 2L * r.nextInt(data.length / b.length / 2) * b.length;
        in.seek(at);
        in.readNBytes(b, 0, b.length);
        assertThat(b).isEqualTo(java.util.Arrays.copyOfRange(data, (int) at, (int) at + b.length));
        in.seek((at + 3 * b.length) % data.length); // never read on from where it stopped
      }
      StreamStats random = in.stats();
      assertThat(random.bytesFetched()).isEqualTo(random.bytesAsked());
      assertThat(random.window()).isZero();
      in.seek(0);
      assertThat(readAll(in, 64 << 10)).isEqualTo(data);
      StreamStats sequential = in.stats();
      assertThat(sequential.window()).isGreaterThan(64 << 10);
      assertThat(sequential.bytesWasted()).isZero();
    }
  }

  @Test
  void aSmallSeekInsideTheWindowKeepsIt() throws IOException {
    byte[] data = random(9, 8 << 20);
    try (OutputStream out = client.create("/seek-in-window")) {
      out.write(data);
    }
    try (BraidInputStream in = client.open("/seek-in-window")) {
      byte[] b = new byte[64 << 10];
      for (int i = 0; i < 40; i++) {
        in.readNBytes(b, 0, b.length);
      }
      long window = in.stats().window();
      long pos = in.getPos();
      in.seek(pos + 1000);
      in.readNBytes(b, 0, b.length);
      assertThat(b)
          .isEqualTo(
              java.util.Arrays.copyOfRange(data, (int) pos + 1000, (int) pos + 1000 + b.length));
      assertThat(in.stats().window()).isGreaterThanOrEqualTo(window);
      in.seek(pos + 1000 + b.length - 10); // a small seek backwards, still in the window's block
      in.readNBytes(b, 0, 10);
      assertThat(in.stats().window()).isGreaterThanOrEqualTo(window);
    }
  }

  @Test
  void byteBufferReadsHeapAndDirect() throws IOException {
    byte[] data = random(10, 300_000);
    try (OutputStream out = client.create("/bb")) {
      out.write(data);
    }
    for (ByteBuffer buf : List.of(ByteBuffer.allocate(70_000), ByteBuffer.allocateDirect(70_000))) {
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      try (BraidInputStream in = client.open("/bb")) {
        while (in.read(buf.clear()) > 0) {
          buf.flip();
          byte[] b = new byte[buf.remaining()];
          buf.get(b);
          got.write(b, 0, b.length);
        }
      }
      assertThat(got.toByteArray()).isEqualTo(data);
    }
  }

  @Test
  void appendAndHflushMakeBytesVisible() throws IOException {
    try (OutputStream out = client.create("/append")) {
      out.write("hello ".getBytes(StandardCharsets.UTF_8));
    }
    try (BraidOutputStream out = client.append("/append")) {
      assertThat(out.getPos()).isEqualTo(6);
      out.write("world".getBytes(StandardCharsets.UTF_8));
      out.hflush();
      try (InputStream in = client.open("/append")) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello world");
      }
      out.write("!".getBytes(StandardCharsets.UTF_8));
      out.hsync();
    }
    try (InputStream in = client.open("/append")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello world!");
    }
  }

  @Test
  void randomWritesAndHolesReadBackAsZeros() throws IOException {
    try (BraidOutputStream out =
        client.create("/sparse", CreateOptions.defaults().withLayout(SMALL))) {
      out.write(3_000_000L, ByteBuffer.wrap(new byte[] {1, 2, 3}));
      out.write(10L, ByteBuffer.wrap(new byte[] {9}));
    }
    try (InputStream in = client.open("/sparse")) {
      byte[] all = in.readAllBytes();
      assertThat(all).hasSize(3_000_003);
      byte[] expect = new byte[3_000_003];
      expect[10] = 9;
      expect[3_000_000] = 1;
      expect[3_000_001] = 2;
      expect[3_000_002] = 3;
      assertThat(all).isEqualTo(expect);
    }
  }

  @Test
  void closeToOpen() throws IOException {
    BraidClient other =
        cluster.newBraidClient("root", Map.of(ClientConfigKeys.ATTR_TTL.name(), "10m"));
    try (OutputStream out = client.create("/c2o")) {
      out.write(1);
    }
    assertThat(other.stat("/c2o").size()).isEqualTo(1);
    try (OutputStream out = client.create("/c2o", CreateOptions.defaults().withOverwrite(true))) {
      out.write(new byte[] {1, 2, 3});
    }
    assertThat(other.stat("/c2o").size()).isEqualTo(1); // the other client's cache, for an hour
    try (InputStream in = other.open("/c2o")) { // open asks the MDS
      assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
    }
    assertThat(other.stat("/c2o").size()).isEqualTo(3);
  }

  @Test
  void namespaceOperations() throws IOException {
    assertThat(client.mkdirs("/ns/a/b", 0755)).isTrue();
    assertThat(client.mkdirs("/ns/a/b", 0755)).isFalse();
    FileAttributes d = client.mkdir("/ns/c", 0777);
    assertThat(d.isDirectory()).isTrue();
    assertThat(d.mode()).isEqualTo(0755); // umask 022
    for (int i = 0; i < 25; i++) {
      client.create("/ns/c/f" + String.format("%02d", i)).close();
    }
    DirectoryPage first = client.list("/ns/c", "", 10, false);
    assertThat(first.entries()).hasSize(10);
    assertThat(first.hasMore()).isTrue();
    assertThat(first.entries().get(0).attributes().isFile()).isTrue();
    assertThat(client.list("/ns/c"))
        .hasSize(25)
        .extracting(DirectoryEntry::name)
        .startsWith("f00", "f01");
    assertThat(client.list("/ns/c", "f20", 10, true).entries())
        .extracting(DirectoryEntry::name)
        .containsExactly("f21", "f22", "f23", "f24");

    assertThat(client.rename("/ns/c/f00", "/ns/a/moved")).isEqualTo("/ns/a/moved");
    assertThat(client.rename("/ns/c/f01", "/ns/a", RenameSemantics.HADOOP, false, false))
        .isEqualTo("/ns/a/f01");
    assertThatThrownBy(
            () -> client.rename("/ns/c/f02", "/ns/c/f03", RenameSemantics.POSIX, true, false))
        .isInstanceOf(PathExistsException.class);
    client.unlink("/ns/a/moved");
    assertThat(client.exists("/ns/a/moved")).isFalse();

    FileAttributes link = client.link("/ns/c/f02", "/ns/hard");
    assertThat(link.nlink()).isEqualTo(2);
    client.symlink("/ns/c/f03", "/ns/sym", false);
    assertThat(client.readLink("/ns/sym")).isEqualTo("/ns/c/f03");
    assertThat(client.lstat("/ns/sym").isSymlink()).isTrue();
    assertThat(client.stat("/ns/sym").isFile()).isTrue();

    client.setXattr("/ns/hard", "user.k", new byte[] {7}, XattrSetMode.CREATE);
    assertThat(client.getXattr("/ns/hard", "user.k"))
        .hasValueSatisfying(v -> assertThat(v).containsExactly(7));
    assertThat(client.listXattrs("/ns/hard")).containsExactly("user.k");
    client.removeXattr("/ns/hard", "user.k");
    assertThat(client.getXattr("/ns/hard", "user.k")).isEmpty();

    assertThat(client.setPermission("/ns/hard", 0600).mode()).isEqualTo(0600);
    assertThat(client.setOwner("/ns/hard", "alice", "staff").user()).isEqualTo("alice");
    assertThat(client.setTimes("/ns/hard", 1_000_000_000L, -1).mtimeNanos())
        .isEqualTo(1_000_000_000L);

    try (OutputStream out = client.create("/ns/big")) {
      out.write(new byte[100_000]);
    }
    assertThat(client.truncate("/ns/big", 10).size()).isEqualTo(10);
    assertThat(client.contentSummary("/ns").length()).isEqualTo(10);
    assertThat(client.statFs().liveDataServers()).isEqualTo(3);
    assertThat(client.locations("/ns/big", 0, 0).fileLength()).isEqualTo(10);

    LayoutPolicy effective = client.setLayoutPolicy("/ns/a", SMALL);
    assertThat(effective.stripeUnit()).isEqualTo(64 << 10);
    client.create("/ns/a/laid-out").close();
    assertThat(client.stat("/ns/a/laid-out").layout().stripeUnit()).isEqualTo(64 << 10);
    client.clearLayoutPolicy("/ns/a");
    assertThat(client.layoutPolicy("/ns/a").policy().stripeUnit()).isZero();

    assertThatThrownBy(() -> client.rmdir("/ns/c")).isInstanceOf(PathNotEmptyException.class);
    assertThat(client.delete("/ns", true)).isGreaterThan(25);
    assertThat(client.exists("/ns")).isFalse();
  }

  @Test
  void badInputIsRefusedAndChangesNothing() throws IOException {
    client.create("/bad-file").close();
    assertThatThrownBy(() -> client.open("/no/such")).isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> client.create("/bad-file")).isInstanceOf(PathExistsException.class);
    assertThatThrownBy(() -> client.mkdir("/bad-file/x", 0755))
        .isInstanceOf(PathNotDirectoryException.class);
    assertThatThrownBy(() -> client.stat("relative/path"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("relative/path");
    assertThatThrownBy(() -> client.create("/a/../b")).isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> client.create("/" + "x".repeat(300)))
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NAME_TOO_LONG));
    assertThatThrownBy(() -> client.truncate("/bad-file", -1))
        .isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> client.open("/"))
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.IS_DIRECTORY));
    assertThat(client.exists("/a")).isFalse();
    assertThat(client.exists("/b")).isFalse();
    try (BraidInputStream in = client.open("/bad-file")) {
      assertThatThrownBy(() -> in.seek(5)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> in.seek(-1)).isInstanceOf(EOFException.class);
    }
    BraidOutputStream out = client.create("/closed-twice");
    out.close();
    out.close();
    assertThatThrownBy(() -> out.write(1)).hasMessageContaining("closed");
  }

  @Test
  void aSecondWriterIsRefusedWhileTheFirstHoldsTheLease() throws IOException {
    BraidClient other = cluster.newBraidClient("root");
    try (BraidOutputStream out = client.create("/leased")) {
      out.write(1);
      assertThatThrownBy(() -> other.append("/leased"))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.LEASE_CONFLICT));
    }
    try (BraidOutputStream out = other.append("/leased")) {
      out.write(2);
    }
    try (InputStream in = client.open("/leased")) {
      assertThat(in.readAllBytes()).containsExactly(1, 2);
    }
  }

  @Test
  void permissionsAreChecked() throws IOException {
    client.mkdirs("/private", 0700);
    BraidClient alice = cluster.newBraidClient("alice");
    assertThatThrownBy(() -> alice.create("/private/x"))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
    assertThat(client.exists("/private/x")).isFalse();
  }

  @Test
  void accessAsksTheMds() throws IOException {
    client.mkdirs("/access", 0755);
    client.create("/access/f", CreateOptions.defaults().withMode(0)).close();
    BraidClient alice = cluster.newBraidClient("alice");
    client.access("/access/f", 6); // root is the superuser: mode 000 does not stop it
    alice.access("/access/f", 0);
    assertThatThrownBy(() -> alice.access("/access/f", 4))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
    assertThatThrownBy(() -> client.access("/access/f", 1))
        .as("executing a file with no x bit, even for the superuser")
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
    assertThatThrownBy(() -> alice.access("/access/none", 0))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> alice.access("/access/f", 8))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aFileReportsTheBlockSizeItWasCreatedWith() throws IOException {
    client.mkdirs("/blocks", 0755);
    client.setLayoutPolicy("/blocks", SMALL); // chunk sets of 3 MiB
    client.create("/blocks/asked", CreateOptions.defaults().withBlockSize(32L << 20)).close();
    client.create("/blocks/span", CreateOptions.defaults()).close();
    assertThat(client.stat("/blocks/asked").blockSize()).isEqualTo(32L << 20);
    assertThat(client.stat("/blocks/asked").layout().chunkSize()).isEqualTo(1 << 20);
    assertThat(client.stat("/blocks/span").blockSize()).isEqualTo(3L << 20);
    assertThatThrownBy(() -> CreateOptions.defaults().withBlockSize(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void specialFilesAreMadeListedChangedAndRemovedButNotOpened() throws IOException {
    client.mkdirs("/special", 0755);
    long dev = (8L << 8) | 1; // makedev(8, 1)
    FileAttributes fifo = client.mknod("/special/p", FileType.FIFO, 010666, 0);
    assertThat(fifo.isFifo()).isTrue();
    assertThat(fifo.isSpecial()).isTrue();
    assertThat(fifo.isFile()).isFalse();
    assertThat(fifo.mode()).as("type bits dropped, umask 022 applied").isEqualTo(0644);
    assertThat(fifo.rdev()).isZero();
    FileAttributes blk = client.mknod("/special/b", FileType.BLOCK_DEVICE, 0600, dev);
    assertThat(blk.isBlockDevice()).isTrue();
    assertThat(blk.rdev()).isEqualTo(dev);
    assertThat(client.mknod("/special/c", FileType.CHARACTER_DEVICE, 0600, 0x103))
        .satisfies(a -> assertThat(a.isCharacterDevice()).isTrue());
    assertThat(client.mknod("/special/s", FileType.SOCKET, 0777, 0))
        .satisfies(a -> assertThat(a.isSocket()).isTrue());

    assertThat(client.stat("/special/b")).isEqualTo(blk);
    assertThat(client.lstat("/special/p")).isEqualTo(fifo);
    assertThat(client.list("/special"))
        .extracting(DirectoryEntry::name, DirectoryEntry::type)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("b", FileType.BLOCK_DEVICE),
            org.assertj.core.groups.Tuple.tuple("c", FileType.CHARACTER_DEVICE),
            org.assertj.core.groups.Tuple.tuple("p", FileType.FIFO),
            org.assertj.core.groups.Tuple.tuple("s", FileType.SOCKET));
    assertThat(client.contentSummary("/special").fileCount()).isEqualTo(4);
    assertThat(client.contentSummary("/special").length()).isZero();

    assertThatThrownBy(() -> client.mknod("/special/p", FileType.FIFO, 0644, 0))
        .isInstanceOf(PathExistsException.class);
    assertThatThrownBy(() -> client.mknod("/special/r", FileType.REGULAR, 0644, 0))
        .isInstanceOf(InvalidArgumentException.class);
    assertThatThrownBy(() -> client.open("/special/p"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("/special/p")
        .hasMessageContaining("a FIFO");
    assertThatThrownBy(() -> client.append("/special/b"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("a block device");
    assertThatThrownBy(() -> client.truncate("/special/c", 0))
        .isInstanceOf(InvalidArgumentException.class);

    assertThat(client.setPermission("/special/p", 0600).mode()).isEqualTo(0600);
    assertThat(client.setOwner("/special/p", "alice", "staff").user()).isEqualTo("alice");
    assertThat(client.setTimes("/special/p", 5_000_000_000L, 6_000_000_000L).mtimeNanos())
        .isEqualTo(5_000_000_000L);
    client.rename("/special/p", "/special/p2");
    assertThat(client.link("/special/p2", "/special/p3").nlink()).isEqualTo(2);
    client.unlink("/special/p2");
    FileAttributes moved = client.stat("/special/p3");
    assertThat(moved.inodeId()).isEqualTo(fifo.inodeId());
    assertThat(moved.isFifo()).isTrue();
    assertThat(moved.nlink()).isEqualTo(1);
    assertThat(client.delete("/special", true)).isEqualTo(5);
  }
}
