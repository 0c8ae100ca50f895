package io.braidfs.bench.driver;

import static java.util.Objects.requireNonNull;

import io.braidfs.testing.MiniCluster;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Experiment 4, scaling: Braid clusters of 1 to 4 data servers, each written and read by 1 to 4
 * clients at once (each client its own {@code BraidClient} and its own file); aggregate bandwidth
 * against the local disk and loopback TCP with as many concurrent writers and readers.
 */
final class ScalingExperiment implements Experiment {
  private static final String WRITE = "aggregate write";
  private static final String READ = "aggregate read";
  private static final int BLOCK = 1 << 20;

  @Override
  public int number() {
    return 4;
  }

  @Override
  public String name() {
    return "scaling";
  }

  @Override
  public String title() {
    return "Scaling: data servers x clients";
  }

  private static List<Integer> servers(Run run) {
    return run.quick() ? List.of(1, 2, 4) : List.of(1, 2, 3, 4);
  }

  private static List<Integer> clients(Run run) {
    return run.quick() ? List.of(1, 2, 4) : List.of(1, 2, 3, 4);
  }

  private static long sizeEach(Run run) {
    return run.size(128L << 20, 1L << 30);
  }

  private static int rounds(Run run) {
    return run.rounds(3, 3);
  }

  private static String column(int servers) {
    return servers == 1 ? "1 server" : servers + " servers";
  }

  @Override
  public String description(Run run) {
    return String.format(
        "Braid clusters of %s data servers, all running at once, each %s, layout stripe width 4"
            + " (with fewer than 4 servers some share chunks of a set), 1 MiB stripe units, 64 MiB"
            + " chunks. %s clients at once, each its own `BraidClient` in this JVM and its own"
            + " file: each writes %s in 1 MiB writes, closes it (durable), then all read their"
            + " files back at once (page cache). The rate is all bytes over the wall time from the"
            + " common start to the last close. References with as many concurrent threads: the"
            + " local disk (`FileChannel`, fsync at close) and loopback TCP (one socket pair per"
            + " client streaming the same bytes; in both tables). %d rounds, the systems"
            + " alternating. All servers and clients share the machine's cores and one disk, so"
            + " this shows what the software scales to here, not what more machines would add.",
        words(servers(run)),
        BraidClusters.description("N"),
        words(clients(run)),
        Transfers.label(sizeEach(run)),
        rounds(run));
  }

  /** "1, 2 and 4". */
  private static String words(List<Integer> counts) {
    List<String> s = counts.stream().map(String::valueOf).toList();
    int last = s.size() - 1;
    return last == 0 ? s.get(0) : String.join(", ", s.subList(0, last)) + " and " + s.get(last);
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    int maxClients = clients(run).get(clients(run).size() - 1);
    List<MiniCluster> ownClusters = new ArrayList<>();
    try {
      // Every cluster runs for the whole experiment, so the systems can alternate in each round.
      Map<String, List<Target>> braid = new LinkedHashMap<>();
      for (int n : servers(run)) {
        MiniCluster c;
        if (n == 4) {
          c = BraidClusters.fourServers(run);
        } else {
          c = BraidClusters.start(run, n);
          ownClusters.add(c);
        }
        List<Target> perClient = new ArrayList<>();
        for (int i = 0; i < maxClients; i++) {
          perClient.add(
              new BraidTarget(
                  column(n), c.newBraidClient("root"), "/exp4", BraidTarget.layout(1 << 20, 4)));
        }
        braid.put(column(n), perClient);
        Transfers.warmUpAndVerify(perClient.get(0), "warm-up", 32L << 20, BLOCK);
      }
      Target local = new LocalDiskTarget(run.scratch("exp4-local"));
      Transfers.warmUpAndVerify(local, "warm-up", 32L << 20, BLOCK);
      LoopbackStreams.stream(1, 32L << 20);
      measure(run, results, braid, local);
    } finally {
      for (MiniCluster c : ownClusters) {
        c.close();
      }
    }
    results.ratio(column(4), column(1));
    results.ratio(column(4), LocalDiskTarget.SYSTEM);
    results.describe(WRITE, "all clients write their files at once, durable close");
    results.describe(READ, "all clients read their files at once, from the page cache");
    results.plot(WRITE, "concurrent clients", false);
    results.plot(READ, "concurrent clients", false);
  }

  private void measure(Run run, Results results, Map<String, List<Target>> braid, Target local)
      throws Exception {
    WriteThenRead cell = new WriteThenRead(results, WRITE, READ);
    List<String> systems = new ArrayList<>(braid.keySet());
    systems.add(LocalDiskTarget.SYSTEM);
    systems.add(LoopbackStreams.SYSTEM);
    long size = sizeEach(run);
    for (int round = 0; round < rounds(run); round++) {
      for (int k : clients(run)) {
        String row = k == 1 ? "1 client" : k + " clients";
        for (String system : Run.rotate(systems, round)) {
          if (system.equals(LoopbackStreams.SYSTEM)) {
            for (String table : List.of(WRITE, READ)) {
              results.recordRate(
                  table, row, k, system, round, k * size, LoopbackStreams.stream(k, size));
            }
          } else {
            List<Target> targets =
                system.equals(LocalDiskTarget.SYSTEM)
                    ? Collections.nCopies(k, local)
                    : requireNonNull(braid.get(system)).subList(0, k); // a column of braid
            cell.runConcurrently(system, targets, row, k, round, size, BLOCK);
          }
        }
      }
    }
  }
}
