package io.braidfs.bench.driver;

import io.braidfs.client.BraidClient;
import io.braidfs.testing.MiniCluster;
import java.util.ArrayList;
import java.util.List;

/**
 * Experiment 5, the stripe sweep (spNFS): stripe units of 4 KiB to 4 MiB times stripe widths 1 to 4
 * on a four-server cluster, each file written then read by one client, on the application block
 * sizes of experiment 3; the local disk with the same block size as reference.
 */
final class StripeExperiment implements Experiment {
  private static final List<Integer> UNITS =
      List.of(4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20);
  private static final int MAX_WIDTH = 4;

  @Override
  public int number() {
    return 5;
  }

  @Override
  public String name() {
    return "stripe";
  }

  @Override
  public String title() {
    return "Stripe sweep: stripe unit x width";
  }

  private static List<Integer> blocks(Run run) {
    return run.quick() ? List.of(1 << 20) : BlockSizeExperiment.BLOCKS;
  }

  private static long size(Run run) {
    return run.size(64L << 20, 256L << 20);
  }

  private static int rounds(Run run) {
    return run.rounds(3, 3);
  }

  private static String width(int w) {
    return "width " + w;
  }

  @Override
  public String description(Run run) {
    return String.format(
        "One client writes a %s file, closes it (durable), and reads it back, with stripe"
            + " units of 4 KiB to 4 MiB (steps of 4x) and stripe widths 1 to 4, each file created"
            + " with its own layout (64 MiB chunks, replication 1) on %s. Application blocks: %s"
            + "; the local disk (`FileChannel`, fsync at close) writes and reads the same file"
            + " with the same block size in every row, as reference. Reads come from the page"
            + " cache. %d rounds, the widths and the local disk alternating.",
        Transfers.label(size(run)),
        BraidClusters.description("four"),
        run.quick()
            ? "1 MiB only (quick mode; the full run sweeps experiment 3's 8 KiB to 8 MiB)"
            : "8 KiB to 8 MiB in steps of 4x, one pair of tables each",
        rounds(run));
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    MiniCluster cluster = BraidClusters.fourServers(run);
    BraidClient client = cluster.newBraidClient("root");
    Target local = new LocalDiskTarget(run.scratch("exp5-local"));
    // The smallest unit over the widest set is the most intricate mapping: check it byte by byte.
    Transfers.warmUpAndVerify(
        new BraidTarget(
            "Braid, 4 KiB units x 4", client, "/exp5", BraidTarget.layout(UNITS.get(0), MAX_WIDTH)),
        "warm-up",
        16L << 20,
        1 << 20);
    Transfers.warmUpAndVerify(local, "warm-up", 16L << 20, 1 << 20);
    List<String> tables = new ArrayList<>();
    for (int round = 0; round < rounds(run); round++) {
      for (int block : blocks(run)) {
        String write = "write, " + Transfers.label(block) + " blocks";
        String read = "read, " + Transfers.label(block) + " blocks";
        if (round == 0) {
          tables.add(write);
          tables.add(read);
        }
        WriteThenRead cell = new WriteThenRead(results, write, read);
        for (int unit : UNITS) {
          List<Target> systems = new ArrayList<>();
          for (int w = 1; w <= MAX_WIDTH; w++) {
            systems.add(new BraidTarget(width(w), client, "/exp5", BraidTarget.layout(unit, w)));
          }
          systems.add(local);
          for (Target t : Run.rotate(systems, round)) {
            cell.run(t, Transfers.label(unit), unit / 1024.0, round, size(run), block);
          }
        }
      }
    }
    results.ratio(width(1), LocalDiskTarget.SYSTEM);
    results.ratio(width(MAX_WIDTH), LocalDiskTarget.SYSTEM);
    for (String table : tables) {
      results.plot(table, "stripe unit (KiB)", true);
    }
  }
}
