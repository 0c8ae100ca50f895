package io.braidfs.bench.driver;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Experiment 1, metadata rates (HA8000's paramark method): create ({@code open(O_CREAT)} + close),
 * open of an existing file, stat, delete, mkdir and rename, each timed over 1 to 16 concurrent
 * clients (threads), each client in its own directory. Every system of {@link
 * SharedReferences#metadataSystems} runs the same sequence; the systems alternate within each round
 * ({@link Run#rotate}), so none always goes first.
 *
 * <p>One pass of a system at {@code n} clients: every client makes {@code k} directories (mkdir),
 * creates {@code k} empty files, opens each, stats each, renames each within its directory and
 * deletes each; each step is one sample of ops/s, all clients' operations over the wall time from
 * their common start to the last one's end.
 *
 * <p>Thread-safety: run by the driver's thread; its clients are {@link Parallel}'s threads.
 */
final class MetadataExperiment implements Experiment {
  private static final String[] OPS = {
    "create (open O_CREAT + close)", "open existing", "stat", "rename", "delete", "mkdir"
  };
  private static final byte[] EMPTY = new byte[0];

  @Override
  public int number() {
    return 1;
  }

  @Override
  public String name() {
    return "metadata";
  }

  @Override
  public String title() {
    return "Metadata rates";
  }

  private static List<Integer> clients(Run run) {
    return run.quick() ? List.of(1, 16) : List.of(1, 4, 16);
  }

  /** Operations of each kind per pass, over all clients. */
  private static int total(Run run) {
    return (int) run.size(320, 1000);
  }

  private static int perClient(Run run, int clients) {
    return Math.max(10, total(run) / clients);
  }

  @Override
  public String description(Run run) {
    return String.format(
        Locale.ROOT,
        "%d rounds; in each, every system runs with %s concurrent clients (threads of the"
            + " driver), about %d operations of each kind per pass over all clients, each client"
            + " in its own directory. Order per pass: mkdir, create (empty file, `open(O_CREAT)`"
            + " + close), open (+ close), stat, rename (within the directory), delete. %s"
            + " Nothing is synced by the driver: Braid's MDS and HDFS's NameNode make each change"
            + " durable before answering (WAL / edit log sync), the local disk and bindfs do not"
            + " (ext4 commits in the background), so those two bound from above what a durable"
            + " system can reach.",
        run.rounds(3, 10),
        clients(run).toString().replace("[", "").replace("]", ""),
        total(run),
        SharedReferences.describeSystems());
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    List<FsClient> systems = SharedReferences.metadataSystems(run, results, "exp1");
    SharedReferences.ratios(results);
    try (Parallel parallel = new Parallel()) {
      // Warm-up (JIT, connections, caches), not recorded.
      for (FsClient s : systems) {
        pass(parallel, s, "warm-up", 1, 50, -1, null);
      }
      int rounds = run.rounds(3, 10);
      for (int round = 0; round < rounds; round++) {
        List<Integer> counts = clients(run);
        for (int j = 0; j < counts.size(); j++) {
          int n = counts.get(j);
          // Shifted every pass; the first pass keeps the list's order, which the columns follow.
          for (FsClient s : Run.rotate(systems, round * counts.size() + j)) {
            pass(parallel, s, "r" + round + "-n" + n, n, perClient(run, n), round, results);
          }
        }
      }
    }
    for (String op : OPS) {
      results.plot(op, "concurrent clients", true);
    }
  }

  /** One pass of every operation at {@code n} clients; records unless {@code results} is null. */
  private static void pass(
      Parallel parallel, FsClient s, String dir, int n, int k, int round, @Nullable Results results)
      throws Exception {
    for (int c = 0; c < n; c++) {
      s.mkdirs(dir + "/c" + c);
    }
    long[] nanos = new long[OPS.length];
    nanos[5] = parallel.time(n, k, (c, i) -> s.mkdir(dir + "/c" + c + "/d" + i));
    nanos[0] = parallel.time(n, k, (c, i) -> s.create(dir + "/c" + c + "/f" + i, EMPTY));
    nanos[1] = parallel.time(n, k, (c, i) -> s.open(dir + "/c" + c + "/f" + i));
    nanos[2] = parallel.time(n, k, (c, i) -> s.stat(dir + "/c" + c + "/f" + i));
    nanos[3] =
        parallel.time(
            n, k, (c, i) -> s.rename(dir + "/c" + c + "/f" + i, dir + "/c" + c + "/g" + i));
    nanos[4] = parallel.time(n, k, (c, i) -> s.delete(dir + "/c" + c + "/g" + i));
    s.deleteTree(dir);
    if (results != null) {
      String row = n + (n == 1 ? " client" : " clients");
      for (int o = 0; o < OPS.length; o++) {
        results.recordOps(OPS[o], row, n, s.name(), round, (long) n * k, nanos[o]);
      }
    }
  }
}
