package io.braidfs.bench.data;

import java.util.Arrays;

/** The median and range of a measure's rounds, as the side-by-side harnesses print them. */
final class Spread {
  private Spread() {}

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** "median (min-max)" with {@code format} for each number, e.g. "%.1f". */
  static String cell(double[] v, String format) {
    double min = Arrays.stream(v).min().orElse(0);
    double max = Arrays.stream(v).max().orElse(0);
    return String.format(format + " (" + format + "-" + format + ")", median(v), min, max);
  }
}
