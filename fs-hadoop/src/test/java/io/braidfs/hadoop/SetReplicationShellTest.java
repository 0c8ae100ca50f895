package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.LayoutPolicy;
import io.braidfs.testing.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hadoop fs -setrep} against braid:// keeps its word (issue 24, item 5): {@code -stat %r}
 * reports the new replication, {@code -setrep -w} (which polls block locations until every block
 * names that many hosts) finishes, and the bytes survive 3, 2, then 3 replicas. Four data servers,
 * each on its own loopback address so that block locations count hosts; files of width 1, so a
 * block is one chunk and its hosts are that chunk's replicas.
 */
class SetReplicationShellTest {
  @TempDir static Path dir;
  static MiniCluster cluster;
  static URI uri;
  static Configuration conf;
  static FileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    cluster =
        MiniCluster.builder(dir)
            .dataServers(4)
            .dataServerConfig(i -> Map.of("braid.dataserver.address", "127.0.0." + (i + 2) + ":0"))
            .build();
    cluster.start();
    InetSocketAddress a = cluster.mdsAddress();
    uri = URI.create("braid://" + a.getHostString() + ":" + a.getPort() + "/");
    conf = new Configuration();
    conf.set("fs.defaultFS", uri.toString());
    fs = FileSystem.get(uri, conf);
    ((BraidFileSystem) fs)
        .client()
        .setLayoutPolicy(
            "/",
            LayoutPolicy.inherit()
                .withStripeUnit(64 << 10)
                .withStripeWidth(1)
                .withChunkSize(256 << 10)
                .withReplication(3));
  }

  @AfterAll
  static void stop() throws IOException {
    FileSystem.closeAll();
    cluster.close();
  }

  /**
   * Runs FsShell with {@code args} through ToolRunner; returns its exit code and standard output.
   */
  private static Result shell(String... args) throws Exception {
    PrintStream saved = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code;
    try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      code = ToolRunner.run(conf, new FsShell(), args);
    } finally {
      System.setOut(saved);
    }
    return new Result(code, out.toString(StandardCharsets.UTF_8));
  }

  record Result(int code, String out) {}

  private static byte[] write(org.apache.hadoop.fs.Path p, int n) throws IOException {
    byte[] data = new byte[n];
    new Random(p.hashCode()).nextBytes(data);
    try (FSDataOutputStream out = fs.create(p, true)) {
      out.write(data);
    }
    return data;
  }

  private static byte[] read(FileSystem from, org.apache.hadoop.fs.Path p) throws IOException {
    byte[] b = new byte[(int) from.getFileStatus(p).getLen()];
    try (FSDataInputStream in = from.open(p)) {
      in.readFully(0, b);
    }
    return b;
  }

  private static void assertHostsPerBlock(org.apache.hadoop.fs.Path p, int n) throws IOException {
    FileStatus st = fs.getFileStatus(p);
    BlockLocation[] blocks = fs.getFileBlockLocations(st, 0, st.getLen());
    assertThat(blocks).hasSizeGreaterThan(1);
    for (BlockLocation b : blocks) {
      assertThat(b.getHosts()).as("block at %s", b.getOffset()).hasSize(n).doesNotHaveDuplicates();
    }
  }

  @Test
  void setrepThenStatReportsTheNewReplication() throws Exception {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(uri.resolve("/stat"));
    write(p, 700 << 10);
    assertThat(shell("-stat", "%r", p.toString()).out().strip()).isEqualTo("3");

    Result set = shell("-setrep", "2", p.toString());
    assertThat(set.code()).isZero();
    assertThat(set.out()).contains("Replication 2 set");
    assertThat(shell("-stat", "%r", p.toString()).out().strip()).isEqualTo("2");
  }

  @Test
  // FsShell's wait loop swallows interrupts: the timeout must fail the test from another thread.
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void setrepWaitFinishesWithThreeHostsPerBlock() throws Exception {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(uri.resolve("/wait"));
    byte[] data = write(p, (1 << 20) + 4321);
    assertThat(shell("-setrep", "-w", "2", p.toString()).code()).isZero();
    assertHostsPerBlock(p, 2);

    long start = System.nanoTime();
    Result r = shell("-setrep", "-w", "3", p.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Replication 3 set").contains("done");
    assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(30));
    assertHostsPerBlock(p, 3);
    assertThat(read(fs, p)).isEqualTo(data);
  }

  @Test
  // FsShell's wait loop swallows interrupts: the timeout must fail the test from another thread.
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void threeThenTwoThenThreeReadsBackByteForByte() throws Exception {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(uri.resolve("/three-two-three"));
    byte[] data = write(p, (1500 << 10) + 77);
    assertThat(shell("-setrep", "-w", "2", p.toString()).code()).isZero();
    assertThat(fs.getFileStatus(p).getReplication()).isEqualTo((short) 2);
    assertThat(shell("-setrep", "-w", "3", p.toString()).code()).isZero();
    assertThat(fs.getFileStatus(p).getReplication()).isEqualTo((short) 3);
    assertHostsPerBlock(p, 3);
    assertThat(read(fs, p)).isEqualTo(data);
    try (FileSystem fresh = FileSystem.newInstance(uri, conf)) {
      assertThat(read(fresh, p)).isEqualTo(data);
    }
  }
}
