package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.testing.Await;
import io.braidfs.testing.LinkEmulator;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-ahead over a long link: every data server is reached through a {@link LinkEmulator} with 10
 * ms each way (20 ms per request) and 40 MB/s shared by all connections, as a WAN would be. With
 * the automatic window a sequential scan in 64 KiB reads fills at least 90% of the link; random 64
 * KiB reads move at most 1.1 times the bytes asked; sixteen concurrent readers stay within the
 * client's read-ahead budget. (With one 64 KiB request per round trip the scan would get about 3
 * MB/s, so the first check fails without read-ahead.)
 */
class PrefetchOverWanTest {
  private static final Logger LOG = LoggerFactory.getLogger(PrefetchOverWanTest.class);
  static final long RATE = 40_000_000;
  static final Duration ONE_WAY = Duration.ofMillis(10);
  static final int SIZE = 96 << 20;
  static final int READ = 64 << 10;

  @TempDir static Path dir;
  static LinkEmulator link;
  static MiniCluster cluster;
  static BraidClient client;
  static byte[] data;

  @BeforeAll
  static void start() throws IOException {
    link = new LinkEmulator(ONE_WAY, RATE);
    List<LinkEmulator.Route> routes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      routes.add(link.routeLater());
    }
    cluster =
        MiniCluster.builder(dir)
            .dataServers(3)
            .dataServerConfig(
                i ->
                    Map.of(
                        DataServerConfigKeys.ADVERTISED_PORT.name(),
                        Integer.toString(routes.get(i).address().getPort())))
            .build();
    cluster.start();
    for (int i = 0; i < 3; i++) {
      routes.get(i).target(cluster.dataServer(i).address());
    }
    client = cluster.newBraidClient("root");
    data = new byte[SIZE];
    new Random(3).nextBytes(data);
    LayoutPolicy layout =
        LayoutPolicy.inherit()
            .withStripeUnit(1 << 20)
            .withStripeWidth(3)
            .withChunkSize(64L << 20)
            .withReplication(1);
    try (OutputStream out = client.create("/wan", CreateOptions.defaults().withLayout(layout))) {
      out.write(data);
    }
  }

  @AfterAll
  static void stop() {
    cluster.close();
    link.close();
  }

  @Test
  void aSequentialScanFillsTheLink() throws IOException {
    byte[] got = new byte[SIZE];
    long t0 = System.nanoTime();
    StreamStats stats;
    try (BraidInputStream in = client.open("/wan")) {
      for (int at = 0; at < SIZE; ) {
        int n = in.read(got, at, Math.min(READ, SIZE - at));
        assertThat(n).isPositive();
        at += n;
      }
      stats = in.stats();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    double rate = SIZE / seconds;
    LOG.info("sequential scan: {} MB/s of a {} MB/s link; {}", rate / 1e6, RATE / 1e6, stats);
    assertThat(Arrays.equals(got, data)).isTrue();
    assertThat(rate).as("bytes per second of the scan").isGreaterThanOrEqualTo(0.9 * RATE);
    assertThat(stats.bytesWasted()).isZero();
  }

  @Test
  void randomReadsMoveOnlyWhatWasAsked() throws IOException {
    Random r = new Random(5);
    long asked = 0;
    link.resetCounters(); // the other tests leave nothing in flight (see their last lines)
    try (BraidInputStream in = client.open("/wan")) {
      byte[] b = new byte[READ];
      for (int i = 0; i < 60; i++) {
        long at = 2L * r.nextInt(SIZE / READ / 2) * READ; // never where the last read ended
        in.seek(at);
        in.readNBytes(b, 0, READ);
        asked += READ;
        assertThat(Arrays.equals(b, 0, READ, data, (int) at, (int) at + READ)).isTrue();
      }
      assertThat(in.stats().bytesFetched()).isEqualTo(asked);
    }
    LOG.info("random reads: {} bytes asked, {} bytes crossed the link", asked, link.bytesDown());
    assertThat(link.bytesDown()).isLessThanOrEqualTo((long) (1.1 * asked));
  }

  @Test
  void sixteenConcurrentReadersStayWithinTheBudget() throws Exception {
    long budget = 24L << 20;
    BraidClient c =
        cluster.newBraidClient(
            "root", Map.of(ClientConfigKeys.PREFETCH_BUDGET.name(), budget + "B"));
    int span = SIZE / 16;
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<Boolean>> readers = new ArrayList<>();
      for (int k = 0; k < 16; k++) {
        int from = k * span;
        readers.add(
            pool.submit(
                () -> {
                  byte[] got = new byte[span];
                  try (BraidInputStream in = c.open("/wan")) {
                    in.seek(from);
                    for (int at = 0; at < span; ) {
                      at += in.read(got, at, Math.min(READ, span - at));
                    }
                  }
                  return Arrays.equals(got, 0, span, data, from, from + span);
                }));
      }
      for (Future<Boolean> f : readers) {
        assertThat(f.get()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
    LOG.info("16 readers: read-ahead peaked at {} of {} bytes", c.prefetchStats().peak(), budget);
    assertThat(c.prefetchStats().peak()).isPositive().isLessThanOrEqualTo(budget);
    // Read-ahead the readers dropped is returned only once it has crossed the link.
    Await.until(
        "dropped read-ahead arrived", Duration.ofSeconds(20), () -> c.prefetchStats().used() == 0);
  }
}
