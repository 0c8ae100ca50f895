package io.braidfs.bench.client;

import io.braidfs.bench.Throughputs;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.LayoutPolicy;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Write-behind and read-ahead through {@link BraidClient}'s streams: one client writes a file with
 * application writes of 8 KiB, 64 KiB, 1 MiB and 8 MiB (durable at close), then reads it back with
 * 64 KiB and 8 MiB reads, the sizes alternating in every round. The claim checked: small
 * application writes go as fast as big ones (issue: 8 KiB at >= 90% of 8 MiB), because the stream
 * copies them into stripe-unit transfers with many in flight.
 *
 * <p>The cluster is a MiniCluster in this JVM: one MDS and four data servers over loopback, their
 * directories on the same disk; layout 1 MiB stripe units, width 4, 64 MiB chunks, replication 1.
 *
 * <p>Run: {@code java -Xmx4g -cp bench/target/bench.jar io.braidfs.bench.client.StreamThroughput
 * [--size-mib 1024] [--rounds 3] [--dir /tmp/bench]}. A warm-up round of an eighth of the size runs
 * first, unrecorded. Prints every measurement, then medians with spread and ratios.
 */
public final class StreamThroughput {
  private static final int[] WRITE_SIZES = {8 << 10, 64 << 10, 1 << 20, 8 << 20};
  private static final int[] READ_SIZES = {64 << 10, 8 << 20};

  private final Path dir;
  private final byte[] pattern = new byte[8 << 20];
  private final Throughputs results = new Throughputs();
  private long size;
  private boolean recording;

  private StreamThroughput(long size, Path dir) {
    this.size = size;
    this.dir = dir;
    new Random(42).nextBytes(pattern);
  }

  public static void main(String[] args) throws Exception {
    long sizeMib = 1024;
    int rounds = 3;
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "braid-bench-streams");
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--size-mib" -> sizeMib = Long.parseLong(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    new StreamThroughput(sizeMib << 20, dir).run(rounds);
  }

  private void run(int rounds) throws Exception {
    Throughputs.deleteTree(dir);
    Files.createDirectories(dir);
    try (MiniCluster cluster = MiniCluster.builder(dir.resolve("cluster")).dataServers(4).build()) {
      cluster.start();
      BraidClient client = cluster.newBraidClient("root");
      long measured = size;
      size = Math.max(8 << 20, measured / 8);
      round(client, 0);
      size = measured;
      recording = true;
      for (int r = 1; r <= rounds; r++) {
        round(client, r);
      }
    }
    report();
    Throughputs.deleteTree(dir);
  }

  private void round(BraidClient client, int round) throws IOException {
    LayoutPolicy layout =
        LayoutPolicy.inherit()
            .withStripeUnit(1 << 20)
            .withStripeWidth(4)
            .withChunkSize(64L << 20)
            .withReplication(1);
    // Rotate the order every round so that no size always runs first (or on a warmer disk).
    for (int k = 0; k < WRITE_SIZES.length; k++) {
      int block = WRITE_SIZES[(k + round) % WRITE_SIZES.length];
      String path = "/bench/r" + round + "-w" + block;
      long t0 = System.nanoTime();
      try (BraidOutputStream out =
          client.create(path, CreateOptions.defaults().withLayout(layout))) {
        for (long done = 0; done < size; done += block) {
          out.write(pattern, (int) (done % pattern.length), block);
        }
      }
      record(String.format("write %5d KiB, durable at close", block >> 10), t0);
      if (block == 8 << 20) {
        for (int j = 0; j < READ_SIZES.length; j++) {
          int rs = READ_SIZES[(j + round) % READ_SIZES.length];
          byte[] buf = new byte[rs];
          t0 = System.nanoTime();
          try (BraidInputStream in = client.open(path)) {
            long done = 0;
            int n;
            while ((n = in.read(buf, 0, rs)) > 0) {
              done += n;
            }
            if (done != size) {
              throw new IOException("read " + done + " of " + size + " bytes");
            }
          }
          record(String.format("read  %5d KiB (page cache)", rs >> 10), t0);
        }
      }
      client.delete(path, false);
    }
  }

  private void record(String what, long t0) {
    if (recording) {
      results.record(what, size, t0);
    }
  }

  private void report() {
    String big = String.format("write %5d KiB, durable at close", 8192);
    results.report(
        size,
        (what, median) ->
            what.startsWith("write")
                ? String.format("%.2f x 8 MiB writes", median / results.median(big))
                : "");
  }
}
