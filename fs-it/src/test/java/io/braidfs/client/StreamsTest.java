package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streams under stress on a real MiniCluster: a write failure is never dropped, a writer idle for
 * longer than the lease keeps it, many readers share the read-ahead budget without exceeding it,
 * and closing the client leaves nothing running.
 */
class StreamsTest {
  @TempDir Path dir;
  MiniCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  MiniCluster start(int dataServers, Map<String, String> config) throws IOException {
    MiniCluster.Builder b = MiniCluster.builder(dir).dataServers(dataServers);
    config.forEach(b::config);
    cluster = b.build();
    cluster.start();
    return cluster;
  }

  @Test
  void aWriteFailureSurfacesAndIsNeverDropped() throws IOException {
    start(2, Map.of());
    BraidClient c =
        cluster.newBraidClient("root", Map.of(ClientConfigKeys.DATA_TIMEOUT.name(), "2s"));
    LayoutPolicy one =
        LayoutPolicy.inherit().withStripeUnit(1 << 20).withStripeWidth(1).withReplication(2);
    byte[] block = new byte[1 << 20];
    BraidOutputStream out = c.create("/doomed", CreateOptions.defaults().withLayout(one));
    out.write(block);
    out.hflush();
    cluster.stopDataServer(0);
    cluster.stopDataServer(1);
    IOException first = null;
    for (int i = 0; i < 64 && first == null; i++) {
      try {
        out.write(block);
        if (i % 8 == 7) {
          out.hflush();
        }
      } catch (IOException e) {
        first = e;
      }
    }
    assertThat(first).as("a write or hflush failed once the data servers were gone").isNotNull();
    IOException failure = first;
    assertThatThrownBy(() -> out.write(1)).hasCause(failure);
    assertThatThrownBy(out::close).hasCause(failure);
    out.close(); // a second close does nothing
    assertThat(c.lstat("/doomed").size()).isEqualTo(block.length); // the last hflush
  }

  @Test
  void anIdleWriterKeepsItsLeasePastTheLimit() throws Exception {
    start(1, Map.of("braid.mds.lease.soft-limit", "600ms", "braid.mds.lease.hard-limit", "1200ms"));
    BraidClient c = cluster.newBraidClient("root");
    BraidClient other = cluster.newBraidClient("root");
    LayoutPolicy single = LayoutPolicy.inherit().withStripeWidth(1).withReplication(1);
    try (OutputStream out = c.create("/slow", CreateOptions.defaults().withLayout(single))) {
      out.write(1);
      Thread.sleep(2500); // twice the hard limit
      assertThatThrownBy(() -> other.append("/slow"))
          .satisfies(
              e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.LEASE_CONFLICT));
      out.write(2);
    }
    try (InputStream in = c.open("/slow")) {
      assertThat(in.readAllBytes()).containsExactly(1, 2);
    }
  }

  @Test
  void sixteenReadersStayWithinTheReadAheadBudget() throws Exception {
    start(3, Map.of());
    long budget = 6L << 20;
    BraidClient c =
        cluster.newBraidClient(
            "root", Map.of(ClientConfigKeys.PREFETCH_BUDGET.name(), budget + "B"));
    List<byte[]> files = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      byte[] data = new byte[3 << 20];
      new Random(i).nextBytes(data);
      files.add(data);
      try (OutputStream out = c.create("/budget/f" + i)) {
        out.write(data);
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<byte[]>> reads = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        String path = "/budget/f" + i;
        reads.add(
            pool.submit(
                () -> {
                  try (BraidInputStream in = c.open(path)) {
                    byte[] all = new byte[(int) in.length()];
                    for (int at = 0; at < all.length; ) {
                      at += in.read(all, at, Math.min(64 << 10, all.length - at));
                    }
                    return all;
                  }
                }));
      }
      for (int i = 0; i < 16; i++) {
        assertThat(Arrays.equals(reads.get(i).get(), files.get(i))).as("file %d", i).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(c.prefetchStats().peak()).isPositive().isLessThanOrEqualTo(budget);
    Await.until(
        "read-ahead memory released", Duration.ofSeconds(5), () -> c.prefetchStats().used() == 0);
  }

  @Test
  void closingTheClientLeavesNoThreads() throws IOException {
    start(1, Map.of());
    BraidClient c = cluster.newBraidClient("root");
    OutputStream out =
        c.create(
            "/abandoned",
            CreateOptions.defaults()
                .withLayout(LayoutPolicy.inherit().withStripeWidth(1).withReplication(1)));
    out.write(new byte[100]);
    out.flush();
    LayoutPolicy single = LayoutPolicy.inherit().withStripeWidth(1).withReplication(1);
    try (OutputStream done = c.create("/read-me", CreateOptions.defaults().withLayout(single))) {
      done.write(new byte[3 << 20]);
    }
    BraidInputStream in = c.open("/read-me");
    in.read(new byte[1000]);
    in.read(new byte[1000]); // sequential: read-ahead holds memory now
    assertThat(c.prefetchStats().used()).isPositive();
    List<String> before = Await.braidThreads();
    c.close();
    c.close();
    Await.until(
        "the client's threads stopped",
        Duration.ofSeconds(10),
        () -> Await.braidThreads().stream().noneMatch(t -> t.contains("test-root")));
    assertThat(before).anyMatch(t -> t.contains("test-root"));
    Await.until(
        "read-ahead memory returned", Duration.ofSeconds(5), () -> c.prefetchStats().used() == 0);
    assertThatThrownBy(() -> in.read()).hasMessageContaining("closed");
    assertThatThrownBy(() -> c.create("/after-close")).hasMessageContaining("closed");
  }
}
