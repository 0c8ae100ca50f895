package io.braidfs.bench.driver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Order statistics of a sample: median, minimum, maximum. */
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

  private static List<Double> sorted(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    Collections.sort(v);
    return v;
  }
}
