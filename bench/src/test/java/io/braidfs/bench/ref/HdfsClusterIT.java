package io.braidfs.bench.ref;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real HDFS of separate JVMs: data round trips, directly and through a remapping factory. */
class HdfsClusterIT {
  @TempDir Path dir;

  @Test
  @Timeout(90)
  void writesAndReadsDirectlyAndThroughTheRemap() throws Exception {
    byte[] data = new byte[3 << 20];
    new Random(7).nextBytes(data);
    AtomicInteger connects = new AtomicInteger();
    Set<Integer> ports = ConcurrentHashMap.newKeySet();
    int nameNodePort;
    try (HdfsCluster hdfs = HdfsCluster.create(dir, 2)) {
      hdfs.start();
      nameNodePort = hdfs.nameNodeAddress().getPort();
      assertThat(hdfs.describe()).contains("replication 1", "synconclose=true");

      FileSystem fs = hdfs.fileSystem();
      roundTrip(fs, new org.apache.hadoop.fs.Path("/direct"), data);

      FileSystem remapped =
          hdfs.fileSystem(
              (InetSocketAddress a) -> {
                connects.incrementAndGet();
                ports.add(a.getPort());
                return a;
              });
      roundTrip(remapped, new org.apache.hadoop.fs.Path("/remapped"), data);
      assertThat(remapped.getFileStatus(new org.apache.hadoop.fs.Path("/direct")).getLen())
          .isEqualTo(data.length);
    }
    // The NameNode's RPC and at least one DataNode's transfer port went through the remap.
    assertThat(connects.get()).isGreaterThanOrEqualTo(2);
    assertThat(ports).contains(nameNodePort).hasSizeGreaterThan(1);
    assertThat(
            ProcessHandle.current()
                .descendants()
                .filter(ProcessHandle::isAlive)
                .map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains("org.apache.hadoop.hdfs.server")))
        .isEmpty();
  }

  private static void roundTrip(FileSystem fs, org.apache.hadoop.fs.Path p, byte[] data)
      throws IOException {
    try (OutputStream out = fs.create(p, false)) {
      out.write(data);
    }
    byte[] back;
    try (InputStream in = fs.open(p)) {
      back = in.readAllBytes();
    }
    assertThat(back).isEqualTo(data);
  }
}
