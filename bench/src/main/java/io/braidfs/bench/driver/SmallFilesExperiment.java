package io.braidfs.bench.driver;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Experiment 2, small files (lmbench {@code lat_fs}, as in the PVFS paper): each client creates
 * files of 0, 1, 4 or 10 KiB (create, write, close), then deletes them, with 1, 2 and 4 clients
 * (threads), each in its own directory. Files per second for the creates and for the deletes, on
 * every system of {@link SharedReferences#metadataSystems}, alternating within each round.
 *
 * <p>Thread-safety: run by the driver's thread; its clients are {@link Parallel}'s threads.
 */
final class SmallFilesExperiment implements Experiment {
  private static final int[] KIB = {0, 1, 4, 10};

  @Override
  public int number() {
    return 2;
  }

  @Override
  public String name() {
    return "small-files";
  }

  @Override
  public String title() {
    return "Small files (lat_fs)";
  }

  private static List<Integer> clients(Run run) {
    return run.quick() ? List.of(1, 4) : List.of(1, 2, 4);
  }

  /**
   * Files per pass, over all clients: few, because HDFS writes a small file in about 0.2 s (its
   * close waits for the DataNode's block report, see the note).
   */
  private static int total(Run run) {
    return (int) run.size(40, 400);
  }

  @Override
  public String description(Run run) {
    return String.format(
        Locale.ROOT,
        "%d rounds; in each, for every file size (0, 1, 4, 10 KiB) and %s concurrent clients,"
            + " every system creates about %d files over all clients (create, write, close; the"
            + " create fails if the file exists) and then deletes them, each client in its own"
            + " directory. %s Nothing is synced by the driver: the close of Braid's Java and"
            + " Hadoop clients and HDFS's close (`synconclose`) are durable; the FUSE mount's, the"
            + " local disk's and bindfs' are not (close(2) does not sync).",
        run.rounds(2, 10),
        clients(run).toString().replace("[", "").replace("]", ""),
        total(run),
        SharedReferences.describeSystems());
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    List<FsClient> systems = SharedReferences.metadataSystems(run, results, "exp2");
    SharedReferences.ratios(results);
    try (Parallel parallel = new Parallel()) {
      for (FsClient s : systems) {
        pass(parallel, s, "warm-up", 1, 20, new byte[4096], -1, null);
      }
      int rounds = run.rounds(2, 10);
      results.note(
          "HDFS's close of a file with data returns only once the NameNode has the DataNode's"
              + " incremental block report for its block: when `complete()` comes first, the"
              + " client backs off and asks again, first after 400 ms"
              + " (`dfs.client.block.write.locateFollowingBlock.initial.delay.ms`, left at its"
              + " default here). That wait, not the disk, sets HDFS's small-file create rate;"
              + " empty files have no block and do not wait.");
      List<Integer> counts = clients(run);
      int pass = 0;
      for (int round = 0; round < rounds; round++) {
        for (int kib : KIB) {
          byte[] data = new byte[kib << 10];
          for (int n : counts) {
            int k = Math.max(10, total(run) / n);
            // Shifted every pass; the first keeps the list's order, which the columns follow.
            for (FsClient s : Run.rotate(systems, pass++)) {
              pass(parallel, s, "r" + round + "-" + kib + "k-n" + n, n, k, data, round, results);
            }
          }
        }
      }
    }
  }

  private static void pass(
      Parallel parallel,
      FsClient s,
      String dir,
      int n,
      int k,
      byte[] data,
      int round,
      @Nullable Results results)
      throws Exception {
    for (int c = 0; c < n; c++) {
      s.mkdirs(dir + "/c" + c);
    }
    long create = parallel.time(n, k, (c, i) -> s.create(dir + "/c" + c + "/f" + i, data));
    long delete = parallel.time(n, k, (c, i) -> s.delete(dir + "/c" + c + "/f" + i));
    s.deleteTree(dir);
    if (results != null) {
      int kib = data.length >> 10;
      String row = kib + " KiB, " + n + (n == 1 ? " client" : " clients");
      double files = (double) n * k;
      results.record(
          "create + write + close",
          row,
          Double.NaN,
          s.name(),
          round,
          files / (create / 1e9),
          Unit.FILES_PER_S);
      results.record(
          "delete", row, Double.NaN, s.name(), round, files / (delete / 1e9), Unit.FILES_PER_S);
    }
  }
}
