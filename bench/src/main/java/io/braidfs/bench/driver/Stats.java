package io.braidfs.bench.driver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of a sample: median, minimum, maximum, percentiles. */
public final class Stats {
  private Stats() {}

  /** The median (the mean of the middle two for an even count). */
  public static double median(List<Double> values) {
    List<Double> v = sorted(values);
    int n = v.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  public static double min(List<Double> values) {
    return sorted(values).get(0);
  }

  public static double max(List<Double> values) {
    List<Double> v = sorted(values);
    return v.get(v.size() - 1);
  }

  /**
   * The {@code q}-quantile (0 < q <= 1) by nearest rank: the smallest value with at least q of the
   * sample at or below it, so always a measured value (with 20 values, p99 is the maximum); NaN for
   * an empty sample.
   */
  public static double percentile(List<Double> values, double q) {
    if (!(q > 0 && q <= 1)) {
      throw new IllegalArgumentException("quantile " + q + " is not in (0, 1]");
    }
    List<Double> v = sorted(values);
    if (v.isEmpty()) {
      return Double.NaN;
    }
    // Less a hair, so that a product like 0.99 * 100 that rounds up does not skip a rank.
    int rank = (int) Math.ceil(q * v.size() - 1e-9);
    return v.get(Math.max(rank, 1) - 1);
  }

  private static List<Double> sorted(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    Collections.sort(v);
    return v;
  }
}
