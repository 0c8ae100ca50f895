package io.braidfs.fuse;

import static io.braidfs.fuse.FuseTesting.run;
import static io.braidfs.fuse.FuseTesting.sh;
import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.BraidClient;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.FileType;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * FIFOs, device nodes and unix sockets on a real FUSE mount of a MiniCluster, as on a local disk:
 * mkfifo, mknod and bind make them, stat shows their type, mode and device number (also after the
 * kernel forgot them and looked them up again, and to another client), the kernel carries a FIFO's
 * and a socket's bytes between processes, and rename, link, chmod, chown, utimes and unlink work on
 * each. Skipped, saying so, where /dev/fuse or libfuse 2 is missing; the device nodes need root.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BraidFuseSpecialFilesTest {
  @TempDir static Path tmp;

  private MiniCluster cluster;
  private BraidMount mount;
  private BraidClient client;
  private Path mnt;
  private Path dir;
  private Path local;
  private String base;

  @BeforeAll
  void mountIt() throws IOException {
    FuseTesting.assumeFuse();
    cluster = MiniCluster.builder(tmp.resolve("cluster")).dataServers(1).build();
    cluster.start();
    client = cluster.newBraidClient("root");
    mnt = Files.createDirectories(tmp.resolve("mnt"));
    mount = BraidMount.mount(mnt, BraidFusePosixTest.config(cluster), MountOptions.defaults());
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
    base = "/" + info.getTestMethod().orElseThrow().getName();
    dir = Files.createDirectory(mnt.resolve(base.substring(1)));
    local = Files.createDirectories(tmp.resolve("local").resolve(base.substring(1)));
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  /**
   * Waits out the mount's one-second attribute and entry timeouts, so the next stat looks the names
   * up again, and as root also makes the kernel drop unused dentries and inodes, so the lookups
   * build new inodes from what getattr answers.
   */
  private void forget() throws IOException, InterruptedException {
    Thread.sleep(1_100);
    if (FuseTesting.isRoot()) {
      run(dir, "echo 2 > /proc/sys/vm/drop_caches"); // best effort: fresh inodes, not revalidated
    }
  }

  @Test
  void aFifoCarriesBytesBetweenAProcessAndAThreadBothWays() throws Exception {
    sh(dir, "mkfifo -m 0640 p");
    Path p = dir.resolve("p");
    assertThat(sh(dir, "stat -c '%F %a %s %h' p")).isEqualTo("fifo 640 0 1\n");
    assertThat(Files.isRegularFile(p)).isFalse();
    assertThat(
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther())
        .isTrue();

    // Several pipe buffers' worth, so writer and reader take turns in the kernel.
    byte[] data = random((3 << 20) + 17, 1);
    Path src = Files.write(local.resolve("src"), data);
    CompletableFuture<byte[]> read = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try {
                read.complete(Files.readAllBytes(p)); // blocks in open(2) until a writer comes
              } catch (IOException | RuntimeException e) {
                read.completeExceptionally(e);
              }
            },
            "fifo-reader");
    reader.start();
    Process writer =
        new ProcessBuilder("sh", "-c", "cat '" + src + "' > p").directory(dir.toFile()).start();
    assertThat(writer.waitFor(60, TimeUnit.SECONDS)).as("the writer process ends").isTrue();
    assertThat(writer.exitValue()).isZero();
    assertThat(read.get(60, TimeUnit.SECONDS)).isEqualTo(data);

    // The other way: a thread writes, a process reads.
    Path out = local.resolve("out");
    Process catReader =
        new ProcessBuilder("sh", "-c", "cat p > '" + out + "'").directory(dir.toFile()).start();
    try (OutputStream w = Files.newOutputStream(p)) { // blocks in open(2) until the reader comes
      w.write(data);
    }
    assertThat(catReader.waitFor(60, TimeUnit.SECONDS)).as("the reader process ends").isTrue();
    assertThat(catReader.exitValue()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(data);

    assertThat(sh(dir, "stat -c '%F %s' p")).as("nothing stored").isEqualTo("fifo 0\n");
    assertThat(client.lstat(base + "/p").size()).isZero();
  }

  @Test
  void aUnixSocketBoundOnTheMountConnectsAndCarriesBytes() throws Exception {
    Path s = dir.resolve("s");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(s));
      assertThat(sh(dir, "stat -c '%F %s' s")).isEqualTo("socket 0\n");
      assertThat(client.lstat(base + "/s").isSocket()).isTrue();
      try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(s));
          SocketChannel accepted = server.accept()) {
        c.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.UTF_8)));
        ByteBuffer got = ByteBuffer.allocate(4);
        while (got.hasRemaining() && accepted.read(got) >= 0) {}
        assertThat(new String(got.array(), StandardCharsets.UTF_8)).isEqualTo("ping");
      }
    }
    sh(dir, "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"py\")'");
    assertThat(sh(dir, "stat -c '%F' py")).isEqualTo("socket\n");
  }

  @Test
  void deviceNodesShowTheirTypeAndNumberThroughTheMountAndToAnotherClient() throws Exception {
    Assumptions.assumeTrue(FuseTesting.isRoot(), "mknod of devices needs root");
    sh(dir, "mknod -m 0644 c c 1 2 && mknod -m 0600 b b 1 2 && mknod -m 0620 big c 259 70000");
    String expected =
        "character special file 644 1 2\nblock special file 600 1 2\n"
            + "character special file 620 103 11170\n"; // %t %T print major and minor in hex
    String format = "stat -c '%F %a %t %T' c b big";
    assertThat(sh(dir, format)).isEqualTo(expected);
    forget();
    assertThat(sh(dir, format)).as("after fresh lookups").isEqualTo(expected);
    assertThat(sh(dir, "find . -mindepth 1 -printf '%y %f\\n' | sort"))
        .as("readdir's types")
        .isEqualTo("b b\nc big\nc c\n");

    FileAttributes c = client.lstat(base + "/c");
    assertThat(c.isCharacterDevice()).isTrue();
    assertThat(c.rdev()).as("glibc makedev(1, 2)").isEqualTo((1L << 8) | 2);
    assertThat(client.lstat(base + "/b").isBlockDevice()).isTrue();
    assertThat(client.lstat(base + "/big").rdev())
        .as("makedev(259, 70000)")
        .isEqualTo((259L << 8) | (70000L & 0xff) | ((70000L & ~0xffL) << 12));
  }

  @Test
  void renameLinkChmodChownTimesAndUnlinkWorkOnEachType() throws Exception {
    sh(dir, "mkfifo p");
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(dir.resolve("s")));
    }
    List<String> names = List.of("p", "s");
    if (FuseTesting.isRoot()) {
      sh(dir, "mknod c c 1 2 && mknod b b 1 2");
      names = List.of("p", "s", "c", "b");
    }
    for (String n : names) {
      String type = sh(dir, "stat -c %F " + n);
      if (FuseTesting.isRoot()) {
        sh(dir, "chown 65534:65534 " + n);
      }
      // Changes before the link, for the same reason as below.
      sh(
          dir,
          String.join(
              " && ",
              "chmod 0604 " + n,
              "touch -h -d @1000000000 " + n,
              "ln " + n + " " + n + ".link",
              "mv " + n + " " + n + ".moved"));
      String stat = "stat -c '%F %a %h %Y' " + n + ".moved " + n + ".link";
      String expected = (type.trim() + " 604 2 1000000000\n").repeat(2);
      if (FuseTesting.isRoot()) {
        stat += "; stat -c '%u %g' " + n + ".link";
        expected += "65534 65534\n";
      }
      assertThat(sh(dir, "stat -c '%F %a %h %Y' " + n + ".link"))
          .as(n + ": the new name, as link(2) answered")
          .isEqualTo(type.trim() + " 604 2 1000000000\n");
      // The old name's nlink is the kernel's cached one until the attribute timeout (the
      // high-level layer gives each name its own kernel inode; regular files behave the same).
      forget();
      assertThat(sh(dir, stat)).as(n + " after fresh lookups").isEqualTo(expected);
      assertThat(client.lstat(base + "/" + n + ".link").nlink()).isEqualTo(2);

      sh(dir, "rm " + n + ".moved");
      assertThat(client.lstat(base + "/" + n + ".link").nlink()).isEqualTo(1);
      forget();
      assertThat(sh(dir, "stat -c '%F %h' " + n + ".link")).isEqualTo(type.trim() + " 1\n");
      sh(dir, "rm " + n + ".link");
      assertThat(run(dir, "test -e " + n + ".link || test -e " + n + ".moved").exit())
          .as(n + " is gone")
          .isNotZero();
      assertThat(client.exists(base + "/" + n + ".link")).isFalse();
    }
    assertThat(client.list(base)).isEmpty();
  }

  @Test
  void aRegularFileMadeByMknodIsStillAnEmptyFile() throws Exception {
    sh(dir, "python3 -c 'import os, stat; os.mknod(\"f\", 0o640 | stat.S_IFREG)'");
    assertThat(sh(dir, "stat -c '%F %a %s' f")).isEqualTo("regular empty file 640 0\n");
    assertThat(client.lstat(base + "/f").type()).isEqualTo(FileType.REGULAR);
    assertThat(run(dir, "mkfifo f").out()).contains("File exists");
  }
}
