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

  /**
   * Prints, after a blank line, the Markdown table of measures {@code names} for two settings side
   * by side: each one's {@link #cell} and the ratio of their medians.
   *
   * @param first the rounds of the first setting, one row per measure
   */
  static void printTable(
      String measure,
      String firstName,
      String secondName,
      String[] names,
      double[][] first,
      double[][] second,
      String format) {
    System.out.println();
    System.out.printf(
        "| %s | %s | %s | %s / %s |%n", measure, firstName, secondName, firstName, secondName);
    System.out.println("|---|---|---|---|");
    for (int m = 0; m < names.length; m++) {
      System.out.printf(
          "| %s | %s | %s | %.2f |%n",
          names[m],
          cell(first[m], format),
          cell(second[m], format),
          median(first[m]) / median(second[m]));
    }
  }
}
