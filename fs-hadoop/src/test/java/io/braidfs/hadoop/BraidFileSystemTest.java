package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.FileType;
import io.braidfs.client.LayoutPolicy;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.ContentSummary;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What the contract suites leave out: layout mapping, locality, the exceptions of permission and
 * type errors, settings, paging, xattrs, symlinks, statistics and FileContext, against a real
 * cluster.
 */
class BraidFileSystemTest {
  private static final URI URI_ = ContractCluster.uri("unit");

  private final Configuration conf = new Configuration();
  private BraidFileSystem fs;
  private Path dir;

  @BeforeEach
  void open(TestInfo info) throws IOException {
    fs = (BraidFileSystem) FileSystem.newInstance(URI_, conf);
    dir = new Path("/unit/" + info.getTestMethod().orElseThrow().getName());
    fs.delete(dir, true);
    assertThat(fs.mkdirs(dir)).isTrue();
  }

  @AfterEach
  void close() throws IOException {
    fs.close();
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private void write(Path p, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(p, true)) {
      out.write(data);
    }
  }

  private byte[] read(Path p) throws IOException {
    try (FSDataInputStream in = fs.open(p)) {
      byte[] b = new byte[(int) fs.getFileStatus(p).getLen()];
      in.readFully(0, b);
      return b;
    }
  }

  @Test
  void blockLocationsNameTheDataServersOfEachChunkSet() throws IOException {
    // 64 KiB units, width 2, 128 KiB chunks: a block (chunk set) is 256 KiB.
    fs.client()
        .setLayoutPolicy(
            dir.toUri().getPath(),
            LayoutPolicy.inherit()
                .withStripeUnit(64 << 10)
                .withStripeWidth(2)
                .withChunkSize(128 << 10)
                .withReplication(2));
    Path f = new Path(dir, "f");
    byte[] data = random(600 << 10, 1);
    write(f, data);
    FileStatus st = fs.getFileStatus(f);
    assertThat(st.getBlockSize()).isEqualTo(256 << 10);
    assertThat(st.getReplication()).isEqualTo((short) 2);

    BlockLocation[] all = fs.getFileBlockLocations(st, 0, st.getLen());
    assertThat(all).hasSize(3);
    assertThat(Arrays.stream(all).mapToLong(BlockLocation::getOffset))
        .containsExactly(0L, 256L << 10, 512L << 10);
    assertThat(Arrays.stream(all).mapToLong(BlockLocation::getLength))
        .containsExactly(256L << 10, 256L << 10, (600L - 512) << 10);
    for (BlockLocation b : all) {
      assertThat(b.getNames()).hasSizeBetween(2, 3).allMatch(n -> n.startsWith("127.0.0.1:"));
      // One host per name: all three servers share the host, so it repeats (as HDFS's would).
      assertThat(b.getHosts()).hasSameSizeAs(b.getNames()).containsOnly("127.0.0.1");
      assertThat(b.getTopologyPaths()).allMatch(t -> t.startsWith("/default-rack/127.0.0.1:"));
    }
    // A range inside the second block gives only that block; past the end gives none.
    assertThat(fs.getFileBlockLocations(st, 300 << 10, 10)).hasSize(1);
    assertThat(fs.getFileBlockLocations(st, st.getLen(), 10)).isEmpty();
    assertThat(fs.getFileBlockLocations(fs.getFileStatus(dir), 0, 10)).isEmpty();
    assertThatThrownBy(() -> fs.getFileBlockLocations(st, -1, 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(read(f)).isEqualTo(data);
  }

  @Test
  void checksumsAreCompositeCrcsEqualAcrossLayouts() throws IOException {
    byte[] data = random(300_000, 3);
    Path a = new Path(dir, "a");
    write(a, data);
    Path b = new Path(dir, "b");
    try (FSDataOutputStream out =
        fs.create(b, FsPermission.getFileDefault(), true, 4096, (short) 1, 1L << 20, null)) {
      out.write(data);
    }
    FileChecksum ca = fs.getFileChecksum(a);
    assertThat(ca).isEqualTo(fs.getFileChecksum(b)); // what DistCp compares
    assertThat(ca.getAlgorithmName()).isEqualTo("COMPOSITE-CRC32C");
    CRC32C expected = new CRC32C();
    expected.update(data);
    assertThat(ca.getBytes())
        .isEqualTo(ByteBuffer.allocate(4).putInt((int) expected.getValue()).array());
    write(b, Arrays.copyOf(data, data.length - 1));
    assertThat(fs.getFileChecksum(b)).isNotEqualTo(ca);
    assertThat(fs.getFileChecksum(a, 10)).isNull();
    assertThatThrownBy(() -> fs.getFileChecksum(new Path(dir, "none")))
        .isInstanceOf(FileNotFoundException.class);
    assertThat(fs.hasPathCapability(a, CommonPathCapabilities.FS_CHECKSUMS)).isTrue();
  }

  @Test
  void createMapsReplicationAndBlockSizeOntoTheLayout() throws IOException {
    Path f = new Path(dir, "f");
    AtomicInteger progress = new AtomicInteger();
    try (FSDataOutputStream out =
        fs.create(
            f,
            FsPermission.getFileDefault(),
            true,
            4096,
            (short) 1,
            8L << 20,
            progress::incrementAndGet)) {
      out.write(1);
      out.write(new byte[10]);
      out.hflush();
    }
    assertThat(progress.get()).isEqualTo(3);
    FileStatus st = fs.getFileStatus(f);
    assertThat(st.getReplication()).isEqualTo((short) 1);
    assertThat(st.getBlockSize()).isEqualTo(8L << 20);
    // Defaults leave the layout to the directory policy.
    Path g = new Path(dir, "g");
    fs.create(g).close();
    assertThat(fs.getFileStatus(g).getBlockSize()).isEqualTo(fs.getDefaultBlockSize(g));
    assertThat(fs.getFileStatus(g).getReplication()).isEqualTo(fs.getDefaultReplication(g));
  }

  @Test
  void createReportsExactlyTheBlockSizeAsked() throws IOException {
    // 1 MiB units over width 3 and 4: a chunk set spans a whole number of units times the width
    // (32 MiB over width 3 would be 30 MiB, 3 MiB over width 4 would be 4 MiB), yet every size
    // comes back as asked.
    long[] sizes = {32L << 20, 3L << 20, (1L << 20) + (512 << 10), 128L << 20, (1L << 20) + 512};
    for (int width : new int[] {3, 4}) {
      Path sub = new Path(dir, "w" + width);
      fs.mkdirs(sub);
      fs.client()
          .setLayoutPolicy(sub.toUri().getPath(), LayoutPolicy.inherit().withStripeWidth(width));
      for (long size : sizes) {
        Path f = new Path(sub, "b" + size);
        try (FSDataOutputStream out =
            fs.create(f, FsPermission.getFileDefault(), true, 4096, (short) 1, size, null)) {
          out.write(1);
        }
        assertThat(fs.getFileStatus(f).getBlockSize())
            .as("block size %s over width %s", size, width)
            .isEqualTo(size);
        assertThat(fs.listStatus(f)[0].getBlockSize()).as("listed, %s", size).isEqualTo(size);
      }
    }

    // Locality stays in chunk sets. 64 KiB units over width 3: 1 MiB asked gives 320 KiB chunks,
    // a chunk set of 960 KiB; the file reports 1 MiB, its locations cover 960 KiB each.
    fs.client()
        .setLayoutPolicy(
            dir.toUri().getPath(),
            LayoutPolicy.inherit().withStripeUnit(64 << 10).withStripeWidth(3));
    Path g = new Path(dir, "g");
    byte[] data = random(2560 << 10, 8);
    try (FSDataOutputStream out =
        fs.create(g, FsPermission.getFileDefault(), true, 4096, (short) 1, 1L << 20, null)) {
      out.write(data);
    }
    FileStatus st = fs.getFileStatus(g);
    assertThat(st.getBlockSize()).isEqualTo(1L << 20);
    BlockLocation[] blocks = fs.getFileBlockLocations(st, 0, st.getLen());
    assertThat(Arrays.stream(blocks).mapToLong(BlockLocation::getOffset))
        .containsExactly(0L, 960L << 10, 1920L << 10);
    assertThat(Arrays.stream(blocks).mapToLong(BlockLocation::getLength))
        .containsExactly(960L << 10, 960L << 10, 640L << 10);
    assertThat(read(g)).isEqualTo(data);
  }

  @Test
  void wrongTypesGiveHdfsExceptionsAndChangeNothing() throws IOException {
    Path file = new Path(dir, "file");
    write(file, new byte[] {1, 2, 3});
    assertThatThrownBy(() -> fs.create(new Path(file, "child")))
        .isInstanceOf(ParentNotDirectoryException.class)
        .hasMessageContaining("/file");
    assertThatThrownBy(() -> fs.mkdirs(new Path(file, "sub")))
        .isInstanceOf(ParentNotDirectoryException.class);
    assertThatThrownBy(() -> fs.create(dir, false)).isInstanceOf(FileAlreadyExistsException.class);
    assertThatThrownBy(() -> fs.create(file, false)).isInstanceOf(FileAlreadyExistsException.class);
    assertThatThrownBy(() -> fs.open(dir))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("Path is not a file");
    assertThatThrownBy(() -> fs.getFileStatus(new Path(file, "x")))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> fs.delete(dir, false))
        .isInstanceOf(PathIsNotEmptyDirectoryException.class);
    assertThatThrownBy(
            () ->
                fs.createNonRecursive(
                    new Path(dir, "missing/f"),
                    FsPermission.getFileDefault(),
                    EnumSet.of(CreateFlag.CREATE),
                    4096,
                    (short) 1,
                    1 << 20,
                    null))
        .isInstanceOf(FileNotFoundException.class);
    assertThat(fs.exists(new Path(dir, "missing"))).isFalse();
    assertThat(fs.listStatus(dir)).extracting(s -> s.getPath().getName()).containsExactly("file");
    assertThat(read(file)).containsExactly(1, 2, 3);
  }

  @Test
  void anotherUserIsRefusedWithAccessControlException() throws Exception {
    fs.setPermission(dir, new FsPermission((short) 0755));
    Path mine = new Path(dir, "mine");
    write(mine, new byte[] {7});
    fs.setPermission(mine, new FsPermission((short) 0600));
    UserGroupInformation alice =
        UserGroupInformation.createUserForTesting("alice", new String[] {"staff"});
    FileSystem asAlice =
        alice.doAs(
            (PrivilegedExceptionAction<FileSystem>) () -> FileSystem.newInstance(URI_, conf));
    try {
      assertThatThrownBy(() -> asAlice.create(new Path(dir, "hers")))
          .isInstanceOf(AccessControlException.class);
      assertThatThrownBy(() -> asAlice.open(mine)).isInstanceOf(AccessControlException.class);
      assertThatThrownBy(() -> asAlice.delete(mine, false))
          .isInstanceOf(AccessControlException.class);
      assertThat(asAlice.getFileStatus(mine).getOwner()).isEqualTo("root");
    } finally {
      asAlice.close();
    }
    assertThat(fs.exists(new Path(dir, "hers"))).isFalse();
    assertThat(read(mine)).containsExactly(7);
  }

  @Test
  void settingsAreMappedAndUnknownOnesRefused() throws IOException {
    Configuration bad = new Configuration();
    bad.set("fs.braid.no-such-setting", "1");
    assertThatThrownBy(() -> FileSystem.newInstance(URI_, bad))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("fs.braid.no-such-setting");

    Configuration good = new Configuration();
    good.set("fs.braid.prefetch.max-window", "4MiB");
    good.set("fs.permissions.umask-mode", "077");
    try (BraidFileSystem tuned = (BraidFileSystem) FileSystem.newInstance(URI_, good)) {
      assertThat(tuned.client().options().maxWindow()).isEqualTo(4L << 20);
      Path f = new Path(dir, "private");
      tuned.create(f).close();
      assertThat(tuned.getFileStatus(f).getPermission().toShort()).isEqualTo((short) 0600);
    }

    Configuration named = new Configuration();
    named.set("fs.braid.cluster.prod.mds", "127.0.0.1:" + URI_.getPort());
    try (FileSystem viaName = FileSystem.newInstance(URI.create("braid://prod/"), named)) {
      assertThat(viaName.getUri()).isEqualTo(URI.create("braid://prod"));
      assertThat(viaName.exists(dir)).isTrue();
      assertThat(viaName.makeQualified(dir).toString()).startsWith("braid://prod/");
    }
  }

  @Test
  void listingsArePagedAndComplete() throws IOException {
    fs.listPage = 3;
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      names.add("e" + i);
      fs.mkdirs(new Path(dir, "e" + i));
    }
    List<String> seen = new ArrayList<>();
    RemoteIterator<FileStatus> it = fs.listStatusIterator(dir);
    while (it.hasNext()) {
      assertThat(it.hasNext()).isTrue(); // idempotent
      seen.add(it.next().getPath().getName());
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(names);
    assertThat(fs.listStatus(dir)).hasSize(10);
    Path file = new Path(dir, "e0/f");
    write(file, new byte[] {1});
    assertThat(fs.listStatus(file))
        .extracting(FileStatus::getPath)
        .containsExactly(fs.makeQualified(file));
  }

  @Test
  void xattrsSymlinksTimesTruncateAppendAndSummaries() throws IOException {
    Path f = new Path(dir, "f");
    write(f, "hello".getBytes(StandardCharsets.UTF_8));
    fs.setXAttr(f, "user.a", new byte[] {1}, EnumSet.of(XAttrSetFlag.CREATE));
    assertThatThrownBy(
            () -> fs.setXAttr(f, "user.a", new byte[] {2}, EnumSet.of(XAttrSetFlag.CREATE)))
        .isInstanceOf(IOException.class);
    fs.setXAttr(f, "user.a", new byte[] {3}, EnumSet.of(XAttrSetFlag.REPLACE));
    assertThat(fs.getXAttr(f, "user.a")).containsExactly(3);
    assertThat(fs.listXAttrs(f)).containsExactly("user.a");
    assertThat(fs.getXAttrs(f)).containsOnlyKeys("user.a");
    fs.removeXAttr(f, "user.a");
    assertThatThrownBy(() -> fs.getXAttr(f, "user.a")).isInstanceOf(IOException.class);

    Path link = new Path(dir, "link");
    fs.createSymlink(new Path("f"), link, false);
    assertThat(fs.getFileLinkStatus(link).isSymlink()).isTrue();
    assertThat(fs.getLinkTarget(link)).isEqualTo(new Path("f"));
    assertThat(fs.getFileStatus(link).getLen()).isEqualTo(5); // followed

    fs.setTimes(f, 1_000_000L, -1);
    assertThat(fs.getFileStatus(f).getModificationTime()).isEqualTo(1_000_000L);

    try (FSDataOutputStream out = fs.append(f)) {
      assertThat(out.getPos()).isEqualTo(5);
      out.write(" world".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(new String(read(f), StandardCharsets.UTF_8)).isEqualTo("hello world");
    assertThat(fs.truncate(f, 4)).isTrue();
    assertThat(new String(read(f), StandardCharsets.UTF_8)).isEqualTo("hell");

    Path part = new Path(dir, "part");
    write(part, "o!".getBytes(StandardCharsets.UTF_8));
    fs.concat(f, new Path[] {part});
    assertThat(new String(read(f), StandardCharsets.UTF_8)).isEqualTo("hello!");
    assertThat(fs.exists(part)).isFalse();
    assertThat(fs.hasPathCapability(f, CommonPathCapabilities.FS_CONCAT)).isTrue();
    assertThat(fs.truncate(f, 4)).isTrue();

    ContentSummary cs = fs.getContentSummary(dir);
    assertThat(cs.getLength()).isEqualTo(4); // a symlink counts as an entry with no bytes
    assertThat(cs.getFileCount()).isEqualTo(2);
    assertThat(cs.getDirectoryCount()).isEqualTo(1);
    // Raw figures, as HDFS reports them: every replica counts.
    var statFs = fs.client().statFs();
    assertThat(fs.getStatus().getCapacity())
        .isPositive()
        .isEqualTo(statFs.rawCapacityBytes())
        .isEqualTo(
            statFs.capacityBytes() * statFs.replication()
                + statFs.rawCapacityBytes() % statFs.replication());
    assertThat(fs.isFileClosed(f)).isTrue();
  }

  @Test
  void statisticsCountBytesAndOperations() throws IOException {
    FileSystem.Statistics stats =
        FileSystem.getStatistics(BraidFileSystem.SCHEME, BraidFileSystem.class);
    long written = stats.getBytesWritten();
    long read = stats.getBytesRead();
    Path f = new Path(dir, "f");
    byte[] data = random(100_000, 2);
    write(f, data);
    assertThat(read(f)).isEqualTo(data);
    try (FSDataInputStream in = fs.open(f)) {
      byte[] b = new byte[1000];
      in.readFully(b);
    }
    assertThat(stats.getBytesWritten() - written).isEqualTo(100_000);
    assertThat(stats.getBytesRead() - read).isEqualTo(101_000);
  }

  @Test
  void fileContextRenamesAtomicallyWithOptions() throws IOException {
    // No fs.AbstractFileSystem.braid.impl set here: braid-default.xml supplies it.
    FileContext fc = FileContext.getFileContext(URI_, new Configuration());
    Path a = new Path(dir, "a");
    Path b = new Path(dir, "b");
    write(a, new byte[] {1});
    write(b, new byte[] {2});
    assertThatThrownBy(() -> fc.rename(a, b)).isInstanceOf(FileAlreadyExistsException.class);
    fc.rename(a, b, Options.Rename.OVERWRITE);
    assertThat(fs.exists(a)).isFalse();
    assertThat(read(b)).containsExactly(1);
    assertThat(fc.getFileStatus(b).getLen()).isEqualTo(1);
  }

  @Test
  void specialFilesListAsEmptyFilesAndRefuseToOpen() throws IOException {
    String base = dir.toUri().getPath();
    fs.client().mknod(base + "/fifo", FileType.FIFO, 0640, 0);
    fs.client().mknod(base + "/dev", FileType.BLOCK_DEVICE, 0600, 0x801);
    fs.client().mknod(base + "/sock", FileType.SOCKET, 0755, 0);
    write(new Path(dir, "data"), random(1000, 3));

    FileStatus[] listed = fs.listStatus(dir);
    assertThat(listed).extracting(s -> s.getPath().getName()).contains("fifo", "dev", "sock");
    for (FileStatus st : listed) {
      if (st.getPath().getName().equals("data")) {
        continue;
      }
      assertThat(st.isFile()).as(st.toString()).isTrue();
      assertThat(st.isDirectory()).isFalse();
      assertThat(st.isSymlink()).isFalse();
      assertThat(st.getLen()).isZero();
      assertThat(st.getReplication()).isZero();
      assertThat(st.getBlockSize()).isZero();
      assertThat(fs.getFileBlockLocations(st, 0, 1)).isEmpty();
    }
    FileStatus fifo = fs.getFileStatus(new Path(dir, "fifo"));
    assertThat(fifo.getPermission().toShort()).isEqualTo((short) 0640);
    assertThat(fifo.getOwner()).isEqualTo(fs.client().user());

    Path dev = new Path(dir, "dev");
    assertThatThrownBy(() -> fs.open(dev).close())
        .isInstanceOf(IOException.class)
        .hasMessageContaining(dev.toUri().getPath())
        .hasMessageContaining("not a regular file but a block device");
    assertThatThrownBy(() -> fs.append(new Path(dir, "fifo")).close())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a FIFO");

    ContentSummary du = fs.getContentSummary(dir);
    assertThat(du.getFileCount()).isEqualTo(4);
    assertThat(du.getLength()).isEqualTo(1000);
    assertThat(fs.rename(new Path(dir, "sock"), new Path(dir, "sock2"))).isTrue();
    assertThat(fs.delete(new Path(dir, "fifo"), false)).isTrue();
    assertThat(fs.exists(new Path(dir, "fifo"))).isFalse();
  }
}
