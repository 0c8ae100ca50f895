package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * mtime and ctime move with every data change the MDS hears of, also a rewrite in place that keeps
 * the size (issue 24, bug 3: other clients' caches, rsync and make compare mtime), and not with an
 * open for writing that writes nothing (touch).
 */
class ModificationTimeTest {
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

  private static FileAttributes fresh(String path) throws IOException {
    return client.getAttr(client.lstat(path).inodeId()); // past the attribute cache
  }

  private static void settle() throws IOException {
    long now = System.nanoTime();
    while (System.nanoTime() - now < 2_000_000) {
      Thread.onSpinWait(); // the MDS's clock moves on: times of two changes differ
    }
  }

  @Test
  void aRewriteThatKeepsTheSizeMovesMtimeAndCtime() throws IOException {
    try (BraidOutputStream out = client.create("/rewrite")) {
      out.write(new byte[10_000]);
    }
    FileAttributes before = fresh("/rewrite");
    settle();
    try (BraidOutputStream out = client.openForWrite("/rewrite", false)) {
      out.write(100, ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }
    FileAttributes after = fresh("/rewrite");
    assertThat(after.size()).isEqualTo(10_000);
    assertThat(after.mtimeNanos()).isGreaterThan(before.mtimeNanos());
    assertThat(after.ctimeNanos()).isGreaterThan(before.ctimeNanos());
  }

  @Test
  void anHflushOfARewriteMovesMtimeBeforeTheClose() throws IOException {
    try (BraidOutputStream out = client.create("/hflushed")) {
      out.write(new byte[10_000]);
    }
    FileAttributes before = fresh("/hflushed");
    settle();
    try (BraidOutputStream out = client.openForWrite("/hflushed", false)) {
      out.write(0, ByteBuffer.wrap(new byte[] {9}));
      out.hflush();
      assertThat(fresh("/hflushed").mtimeNanos()).isGreaterThan(before.mtimeNanos());
    }
  }

  @Test
  void anOpenForWritingThatWritesNothingKeepsMtime() throws IOException {
    try (BraidOutputStream out = client.create("/untouched")) {
      out.write(new byte[100]);
    }
    FileAttributes before = fresh("/untouched");
    settle();
    client.openForWrite("/untouched", false).close();
    FileAttributes after = fresh("/untouched");
    assertThat(after.mtimeNanos()).isEqualTo(before.mtimeNanos());
    assertThat(after.ctimeNanos()).isEqualTo(before.ctimeNanos());
  }
}
