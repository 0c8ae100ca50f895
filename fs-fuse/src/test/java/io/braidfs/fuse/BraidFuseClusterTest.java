package io.braidfs.fuse;

import static io.braidfs.fuse.FuseTesting.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whole-mount behaviour: tar x of a real multi-thousand-file source tree compared byte for byte,
 * two mounts of one cluster, and the mount's refusals. Skipped, saying so, only where /dev/fuse or
 * libfuse 2 is missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BraidFuseClusterTest {
  /**
   * The kernel's attribute and entry timeout (1 s by default) plus a margin for a loaded machine.
   */
  private static final Duration SEEN_WITHIN = Duration.ofSeconds(3);

  /** How many files of the source tree are unpacked. */
  private static final int TREE_FILES = 2000;

  @TempDir static Path tmp;

  private MiniCluster cluster;
  private BraidMount one;
  private BraidMount two;

  @BeforeAll
  void mountTwice() throws IOException {
    FuseTesting.assumeFuse();
    cluster = MiniCluster.builder(tmp.resolve("cluster")).dataServers(3).build();
    cluster.start();
    BraidConfig config = BraidFusePosixTest.config(cluster);
    one =
        BraidMount.mount(
            Files.createDirectories(tmp.resolve("one")), config, MountOptions.defaults());
    two =
        BraidMount.mount(
            Files.createDirectories(tmp.resolve("two")), config, MountOptions.defaults());
  }

  @AfterAll
  void unmount() {
    for (AutoCloseable c : new AutoCloseable[] {two, one, cluster}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
  }

  @Test
  @Timeout(150)
  void tarExtractsARealSourceTreeByteForByte() throws IOException, InterruptedException {
    Path src = Files.createDirectories(tmp.resolve("tree"));
    int files = sourceTree(src);
    assertThat(files).isGreaterThanOrEqualTo(1000);
    sh(tmp, "tar cf tree.tar -C tree .");
    Path target = Files.createDirectory(one.directory().resolve("tree"));
    long start = System.nanoTime();
    sh(tmp, "tar xf tree.tar -C " + target);
    long ms = (System.nanoTime() - start) / 1_000_000;
    System.out.printf("tar x of %d files onto the mount: %d ms%n", files, ms);
    sh(tmp, "diff -r tree " + target);
    // the other mount sees the same tree
    sh(tmp, "diff -r tree " + two.directory().resolve("tree"));
    assertThat(sh(tmp, "find " + target + " -type f | wc -l").trim())
        .isEqualTo(Integer.toString(files));
  }

  /**
   * Unpacks a real source tree into {@code dir}: the JDK's own sources (lib/src.zip) if this JDK
   * has them, else files of the local Maven repository; returns the number of files.
   */
  private static int sourceTree(Path dir) throws IOException {
    Path srcZip = Path.of(System.getProperty("java.home"), "lib", "src.zip");
    if (Files.isRegularFile(srcZip)) {
      int n = 0;
      try (ZipInputStream z = new ZipInputStream(Files.newInputStream(srcZip))) {
        ZipEntry e;
        while (n < TREE_FILES && (e = z.getNextEntry()) != null) {
          if (e.isDirectory() || !e.getName().startsWith("java.base/")) {
            continue;
          }
          Path out = dir.resolve(e.getName()).normalize();
          if (!out.startsWith(dir)) {
            continue;
          }
          Files.createDirectories(out.getParent());
          Files.copy(z, out);
          n++;
        }
      }
      if (n >= 1000) {
        return n;
      }
    }
    return mavenRepositoryTree(dir);
  }

  private static int mavenRepositoryTree(Path dir) throws IOException {
    Path repo;
    try {
      Path jar = Path.of(Test.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      repo = jar;
      while (repo != null && !repo.getFileName().toString().equals("org")) {
        repo = repo.getParent();
      }
      repo = repo == null ? null : repo.getParent();
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    if (repo == null) {
      throw new IOException("no source tree found: no src.zip and no Maven repository");
    }
    List<Path> picked = new ArrayList<>();
    try (Stream<Path> s = Files.walk(repo)) {
      s.filter(Files::isRegularFile)
          .filter(p -> sizeOf(p) <= 256 * 1024)
          .sorted()
          .limit(TREE_FILES)
          .forEach(picked::add);
    }
    for (Path p : picked) {
      Path out = dir.resolve(repo.relativize(p).toString());
      Files.createDirectories(out.getParent());
      try (InputStream in = Files.newInputStream(p)) {
        Files.copy(in, out);
      }
    }
    return picked.size();
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return Long.MAX_VALUE;
    }
  }

  @Test
  void twoMountsSeeEachOthersClosedFiles() throws IOException, InterruptedException {
    Path a = one.directory();
    Path b = two.directory();
    Files.writeString(a.resolve("from-one"), "written on one");
    assertThat(Files.readString(b.resolve("from-one"))).isEqualTo("written on one");
    Files.writeString(b.resolve("from-two"), "written on two");
    assertThat(Files.readString(a.resolve("from-two"))).isEqualTo("written on two");
    // A change of a file the other mount has read: seen at an open once the kernel's attribute
    // timeout (1 s) has passed, so within the bound below (the timeout plus a margin).
    Files.writeString(b.resolve("from-one"), "changed on two, longer than before");
    Await.until(
        "mount one to see the change made on mount two",
        SEEN_WITHIN,
        () -> "changed on two, longer than before".equals(read(a.resolve("from-one"))));
    sh(a, "rm from-two");
    Await.until(
        "mount two to see the removal made on mount one",
        SEEN_WITHIN,
        () -> !Files.exists(b.resolve("from-two")));
  }

  /** The file's content, or null if it cannot be read now. */
  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      return null;
    }
  }

  @Test
  void refusesABusyOrMissingDirectoryAndAnUnreachableCluster() throws IOException {
    BraidConfig config = BraidFusePosixTest.config(cluster);
    assertThatThrownBy(() -> BraidMount.mount(one.directory(), config, MountOptions.defaults()))
        .isInstanceOf(MountException.class)
        .hasMessageContaining("is busy");
    Path full = Files.createDirectories(tmp.resolve("full"));
    Files.writeString(full.resolve("x"), "x");
    assertThatThrownBy(() -> BraidMount.mount(full, config, MountOptions.defaults()))
        .isInstanceOf(MountException.class)
        .hasMessageContaining("is not empty");
    assertThatThrownBy(
            () -> BraidMount.mount(tmp.resolve("nowhere"), config, MountOptions.defaults()))
        .isInstanceOf(MountException.class)
        .hasMessageContaining("no such directory");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    BraidConfig away =
        BraidConfig.fromMap(
            Map.of(
                ClientConfigKeys.MDS.name(),
                "127.0.0.1:" + port,
                ClientConfigKeys.FAILOVER_TIMEOUT.name(),
                "1s"));
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    assertThatThrownBy(() -> BraidMount.mount(empty, away, MountOptions.defaults()))
        .isInstanceOf(MountException.class)
        .hasMessageContaining("cannot reach the Braid cluster");
    assertThat(BraidMount.isMountPoint(empty)).isFalse();
  }
}
