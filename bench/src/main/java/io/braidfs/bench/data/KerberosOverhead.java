package io.braidfs.bench.data;

import io.braidfs.client.BraidClient;
import io.braidfs.common.security.SecurityConfigKeys;
import io.braidfs.testing.MiniCluster;
import io.braidfs.testing.TestKdc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Issue 28's Kerberos measurement, side by side in one run: metadata operations (creates of empty
 * files, then stats with no attribute cache) from 16 callers on one client, against a cluster with
 * Kerberos on every connection and the same cluster without, alternating within each round. The KDC
 * is a real one (Apache Kerby's) on a loopback port. Kerberos is paid once per connection, so the
 * target is that it costs nothing per call.
 *
 * <p>Run: {@code java -cp bench/target/bench.jar io.braidfs.bench.data.KerberosOverhead [--ops
 * 4000] [--rounds 3] [--dir /tmp/bench-krb]}.
 */
public final class KerberosOverhead {
  private static final int CALLERS = 16;
  private static final String REALM = TestKdc.REALM;

  private KerberosOverhead() {}

  public static void main(String[] args) throws Exception {
    int ops = 4000;
    int rounds = 3;
    Path dir = Path.of("/tmp/bench-krb");
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--ops" -> ops = Integer.parseInt(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Files.createDirectories(dir);
    try (TestKdc kdc = TestKdc.start(dir.resolve("kdc"))) {
      Map<String, String> server = kdc.clusterSettings();
      String user = kdc.keytab("root");
      Map<String, String> client = new HashMap<>(server);
      client.put(SecurityConfigKeys.KERBEROS_PRINCIPAL.name(), "root@" + REALM);
      client.put(SecurityConfigKeys.KERBEROS_KEYTAB.name(), user);
      client.put("braid.client.cache.attr-ttl", "0s");
      MiniCluster.Builder kb = MiniCluster.builder(dir.resolve("kerberos")).dataServers(1);
      server.forEach(kb::config);
      Map<String, MiniCluster> clusters = new LinkedHashMap<>();
      clusters.put("simple", MiniCluster.builder(dir.resolve("simple")).dataServers(1).build());
      clusters.put("kerberos", kb.build());
      Map<String, Map<String, String>> settings =
          Map.of("simple", Map.of("braid.client.cache.attr-ttl", "0s"), "kerberos", client);
      try {
        for (MiniCluster c : clusters.values()) {
          c.start();
        }
        int measured = rounds;
        Map<String, double[][]> results = new LinkedHashMap<>();
        for (int round = 0; round <= rounds; round++) { // round 0 warms up
          for (Map.Entry<String, MiniCluster> e : clusters.entrySet()) {
            BraidClient b =
                e.getValue()
                    .newBraidClient("root", Objects.requireNonNull(settings.get(e.getKey())));
            String base = "/r" + round;
            for (int c = 0; c < CALLERS; c++) {
              b.mkdirs(base + "/c" + c, 0755);
            }
            double creates = rate(ops, (c, i) -> b.create(base + "/c" + c + "/f" + i).close());
            double stats = rate(ops, (c, i) -> b.stat(base + "/c" + c + "/f" + i));
            System.out.printf(
                "round %d %-8s creates %8.0f/s  stats %8.0f/s%n",
                round, e.getKey(), creates, stats);
            if (round > 0) {
              double[][] r = results.computeIfAbsent(e.getKey(), x -> new double[2][measured]);
              r[0][round - 1] = creates;
              r[1][round - 1] = stats;
            }
          }
        }
        double[][] s = Objects.requireNonNull(results.get("simple"));
        double[][] k = Objects.requireNonNull(results.get("kerberos"));
        Spread.printTable(
            "ops/s, 16 callers",
            "kerberos",
            "simple",
            new String[] {"create (empty file)", "stat"},
            k,
            s,
            "%.0f");
      } finally {
        for (MiniCluster c : clusters.values()) {
          c.close();
        }
      }
    }
  }

  @FunctionalInterface
  private interface Op {
    void run(int caller, int index) throws Exception;
  }

  /** Operations a second, {@code ops} of them split over {@link #CALLERS} threads. */
  private static double rate(int ops, Op op) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
    try {
      int each = ops / CALLERS;
      long start = System.nanoTime();
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < CALLERS; c++) {
        int caller = c;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    op.run(caller, i);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      return each * CALLERS / ((System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }
}
