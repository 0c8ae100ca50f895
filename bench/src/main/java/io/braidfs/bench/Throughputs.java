package io.braidfs.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Throughput samples of the end-to-end drivers (not JMH): each measurement is recorded in MiB/s
 * under its name, printed as it comes, and reported as a Markdown row of median, range and a ratio.
 *
 * <p>Thread-safety: not thread-safe; one driver thread records.
 */
public final class Throughputs {
  private final Map<String, List<Double>> results = new LinkedHashMap<>();

  /**
   * Records {@code bytes} moved since {@code t0} (a {@link System#nanoTime()}) under {@code what}.
   */
  public void record(String what, long bytes, long t0) {
    double mibPerS = (bytes / 1048576.0) / ((System.nanoTime() - t0) / 1e9);
    results.computeIfAbsent(what, k -> new ArrayList<>()).add(mibPerS);
    System.out.printf("%-40s %8.0f MiB/s%n", what, mibPerS);
  }

  /** The median of a measurement's samples. */
  public double median(String what) {
    List<Double> v = sorted(what);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  /**
   * Prints a header and one Markdown row per measurement: median, range, and the ratio text that
   * {@code ratio} gives for its name and median.
   */
  public void report(long bytesEach, RatioText ratio) {
    System.out.printf(
        "%nmedians over %d rounds, %d MiB each:%n",
        results.values().iterator().next().size(), bytesEach >> 20);
    for (String what : results.keySet()) {
      List<Double> v = sorted(what);
      System.out.printf(
          "| %s | %.0f MiB/s | %.0f-%.0f | %s |%n",
          what, median(what), v.get(0), v.get(v.size() - 1), ratio.text(what, median(what)));
    }
  }

  private List<Double> sorted(String what) {
    List<Double> v = new ArrayList<>(results.get(what));
    Collections.sort(v);
    return v;
  }

  /** The ratio column of a measurement. */
  @FunctionalInterface
  public interface RatioText {
    String text(String what, double median);
  }

  /** Deletes a directory tree if it exists. */
  public static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var walk = Files.walk(p)) {
      for (Path q : walk.sorted(Collections.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
