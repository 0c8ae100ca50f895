package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.BraidClient;
import io.braidfs.client.FileSystemStats;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data servers name the file system of each data directory in their heartbeats (their host and the
 * directory's device id), so three servers whose directories share one disk, as in a MiniCluster,
 * are counted by StatFs as that one disk, divided by the replication.
 */
class SharedDiskTest {
  @TempDir Path dir;

  @Test
  void threeServersOnOneDiskCountItOnce() throws IOException {
    try (MiniCluster cluster = MiniCluster.builder(dir).dataServers(3).build()) {
      cluster.start();
      Await.until(
          "a heartbeat with its data dirs' space from every data server",
          Duration.ofSeconds(10),
          () -> {
            List<DataServer> live = cluster.mds().namespace().registry().liveServers();
            return live.size() == 3
                && live.stream()
                    .allMatch(
                        s ->
                            s.usage().dirs().size() == 1
                                && s.usage().dirs().get(0).availableBytes() > 0);
          });
      Object dev = Files.getAttribute(dir, "unix:dev");
      String expected = "127.0.0.1:dev:" + Long.toUnsignedString((Long) dev);
      for (DataServer s : cluster.mds().namespace().registry().liveServers()) {
        assertThat(s.dataDirs())
            .extracting(DataServer.DataDir::fileSystemId)
            .containsExactly(expected);
        assertThat(s.usage().dirs())
            .extracting(DataServer.DirSpace::fileSystemId)
            .containsExactly(expected);
      }

      FileStore disk = Files.getFileStore(dir);
      BraidClient client = cluster.newBraidClient("root");
      FileSystemStats r = client.statFs();
      assertThat(r.rawCapacityBytes()).isEqualTo(disk.getTotalSpace());
      assertThat(r.replication()).isEqualTo(3);
      assertThat(r.capacityBytes()).isEqualTo(disk.getTotalSpace() / 3);
      assertThat(r.rawAvailableBytes()).isPositive().isLessThanOrEqualTo(disk.getTotalSpace());
      assertThat(r.availableBytes()).isEqualTo(r.rawAvailableBytes() / 3);
      assertThat(r.liveDataServers()).isEqualTo(3);
    }
  }
}
