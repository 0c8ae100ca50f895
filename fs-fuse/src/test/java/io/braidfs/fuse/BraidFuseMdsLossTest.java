package io.braidfs.fuse;

import static io.braidfs.fuse.FuseTesting.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MDS goes away under a mounted file system: metadata calls fail with EIO once the client's
 * failover timeout has passed (2 s here), never hang, and the mount still unmounts cleanly.
 */
class BraidFuseMdsLossTest {
  @TempDir Path tmp;

  private MiniCluster cluster;
  private BraidMount mount;

  @BeforeEach
  void mount() throws IOException {
    FuseTesting.assumeFuse();
    cluster = MiniCluster.builder(tmp.resolve("cluster")).dataServers(3).build();
    cluster.start();
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                ClientConfigKeys.MDS.name(),
                HostPort.of(cluster.mdsAddress()).toString(),
                ClientConfigKeys.FAILOVER_TIMEOUT.name(),
                "2s"));
    mount =
        BraidMount.mount(
            Files.createDirectories(tmp.resolve("mnt")), config, MountOptions.defaults());
  }

  @AfterEach
  void unmount() {
    if (mount != null) {
      mount.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void callsFailWithinTheFailoverTimeoutAndTheMountStillUnmounts() throws Exception {
    Path dir = mount.directory();
    byte[] data = new byte[3 << 20];
    new Random(5).nextBytes(data);
    Files.write(dir.resolve("kept"), data);
    try (InputStream open = Files.newInputStream(dir.resolve("kept"))) {
      cluster.mds().close();

      long t0 = System.nanoTime();
      FuseTesting.Run stat = run(tmp, "stat " + dir.resolve("new-name"));
      FuseTesting.Run mkdir = run(tmp, "mkdir " + dir.resolve("newdir"));
      FuseTesting.Run write = run(tmp, "echo x > " + dir.resolve("another"));
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
      assertThat(stat.exit()).isNotZero();
      assertThat(stat.out()).contains("Input/output error");
      assertThat(mkdir.exit()).isNotZero();
      assertThat(write.exit()).isNotZero();
      // three calls, each bounded by the 2 s failover timeout (plus the kernel's own retries of
      // a lookup): far from a hang
      assertThat(seconds).isLessThan(40);

      // A file opened before: its data is on the data servers, but the kernel revalidates its
      // size with a getattr once the attribute timeout has passed, which fails the same way.
      long t2 = System.nanoTime();
      try {
        assertThat(open.readAllBytes()).isEqualTo(data);
      } catch (IOException e) {
        assertThat(e).hasMessageContaining("Input/output error");
      }
      assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t2)).isLessThan(30);
    }
    long t1 = System.nanoTime();
    mount.close();
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t1)).isLessThan(30);
    assertThat(FuseTesting.sh(tmp, "mount | grep -c " + tmp.resolve("mnt") + " || true").trim())
        .isEqualTo("0");
    mount = null;
  }
}
