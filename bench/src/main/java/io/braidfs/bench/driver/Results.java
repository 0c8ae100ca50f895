package io.braidfs.bench.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The samples of one experiment and what is reported about them: tables of medians with their
 * range, ratio columns, notes and plots.
 *
 * <p>A sample belongs to a table (one measurement, such as "write, no sync"), a row (a setting of
 * the swept parameter, such as "8 KiB", with its numeric value {@code x} for plots; {@link
 * Double#NaN} keeps a row off the plot), a system (a column: "Braid", "local disk", "HDFS") and a
 * round. Tables, rows and systems are reported in the order they were first recorded.
 *
 * <p>{@link #write} leaves three files in the output directory: {@code expN-NAME.csv} with every
 * sample, {@code expN-NAME.md} (the experiment's full report, whose first table {@link DocsSection}
 * copies into docs/benchmarks.md; its links are relative to the output directory, so it reads on
 * its own) and one {@code expN-NAME-TABLE.png} per plotted table.
 *
 * <p>Thread-safety: thread-safe; experiments may record from their worker threads.
 */
public final class Results {

  private final Experiment experiment;
  private final Map<String, Table> tables = new LinkedHashMap<>();
  private final List<String[]> ratios = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final Map<String, String> descriptions = new LinkedHashMap<>();
  private final StringBuilder csv =
      new StringBuilder("experiment,table,row,x,system,round,value,unit\n");

  Results(Experiment experiment) {
    this.experiment = experiment;
  }

  /**
   * Declares a table before its first sample, so that tables are reported in the order declared
   * rather than the order first recorded.
   */
  public synchronized void table(String table, Unit unit) {
    tables.computeIfAbsent(table, k -> new Table(k, unit));
  }

  /** Records one sample and prints it. */
  public synchronized void record(
      String table, String row, double x, String system, int round, double value, Unit unit) {
    Table t = tables.computeIfAbsent(table, k -> new Table(k, unit));
    if (t.unit != unit) {
      throw new IllegalArgumentException(
          "table " + table + " is in " + t.unit.symbol() + ", not " + unit.symbol());
    }
    t.rows.putIfAbsent(row, x);
    t.systems.add(system);
    t.samples.computeIfAbsent(row + '\u0000' + system, k -> new ArrayList<>()).add(value);
    csv.append(csvField("exp" + experiment.number()))
        .append(',')
        .append(csvField(table))
        .append(',')
        .append(csvField(row))
        .append(',')
        .append(Double.isNaN(x) ? "" : Double.toString(x))
        .append(',')
        .append(csvField(system))
        .append(',')
        .append(round)
        .append(',')
        .append(value)
        .append(',')
        .append(unit.symbol())
        .append('\n');
    System.out.printf(
        Locale.ROOT,
        "  exp%d %-28s %-14s %-22s round %d: %s %s%n",
        experiment.number(),
        table,
        row,
        system,
        round,
        number(value),
        unit.symbol());
  }

  /** Records a throughput sample in MiB/s: {@code bytes} moved in {@code nanos} nanoseconds. */
  public void recordRate(
      String table, String row, double x, String system, int round, long bytes, long nanos) {
    record(table, row, x, system, round, bytes / 1048576.0 / (nanos / 1e9), Unit.MIB_PER_S);
  }

  /** Records an operation rate: {@code ops} operations in {@code nanos} nanoseconds. */
  public void recordOps(
      String table, String row, double x, String system, int round, long ops, long nanos) {
    record(table, row, x, system, round, ops / (nanos / 1e9), Unit.OPS_PER_S);
  }

  /**
   * Adds a ratio column "subject / reference" to every table holding both systems: the subject's
   * median divided by the reference's.
   */
  public synchronized void ratio(String subject, String reference) {
    ratios.add(new String[] {subject, reference});
  }

  /** Sets a sentence printed above a table (what it measures, when its title does not say). */
  public synchronized void describe(String table, String text) {
    descriptions.put(table, text);
  }

  /**
   * Plots a table's rows as curves, one per system, x from each row's value (log scale if {@code
   * logX}) and y the medians.
   */
  public synchronized void plot(String table, String xLabel, boolean logX) {
    Table t = tables.get(table);
    if (t == null) {
      throw new IllegalArgumentException("no table " + table + " to plot");
    }
    t.xLabel = xLabel;
    t.logX = logX;
  }

  /** Adds a paragraph after the tables (a measured setting, a caveat, what a figure means). */
  public synchronized void note(String markdown) {
    notes.add(markdown);
  }

  /** The median of a cell, or NaN if it has no samples. */
  public synchronized double median(String table, String row, String system) {
    Table t = tables.get(table);
    List<Double> v = t == null ? null : t.samples.get(row + '\u0000' + system);
    return v == null ? Double.NaN : Stats.median(v);
  }

  /** File names start with this: {@code exp3-block-size}. */
  String baseName() {
    return "exp" + experiment.number() + "-" + experiment.name();
  }

  /** Writes the CSV, the plots and the Markdown fragment to {@code out}; {@code header} leads. */
  synchronized void write(Path out, String header) throws IOException {
    Files.createDirectories(out);
    Files.writeString(out.resolve(baseName() + ".csv"), csv, StandardCharsets.UTF_8);
    StringBuilder md = new StringBuilder(header);
    for (Table t : tables.values()) {
      if (t.samples.isEmpty()) {
        continue;
      }
      md.append("\n**").append(t.name).append("** (").append(t.unit.symbol());
      md.append(t.unit.higherIsBetter() ? ", higher is better" : ", lower is better");
      md.append("; median of each cell, range in brackets)");
      String description = descriptions.get(t.name);
      if (description != null) {
        md.append(": ").append(description);
      }
      md.append("\n\n");
      table(t, md);
      String png = baseName() + "-" + slug(t.name) + ".png";
      if (t.xLabel != null && Plots.line(t, out.resolve(png))) {
        md.append("\n![").append(t.name).append("](").append(png);
        md.append(")\n");
      }
    }
    for (String n : notes) {
      md.append('\n').append(n).append('\n');
    }
    md.append("\nRaw samples: [").append(baseName()).append(".csv](");
    md.append(baseName()).append(".csv).\n");
    Files.writeString(out.resolve(baseName() + ".md"), md, StandardCharsets.UTF_8);
  }

  private void table(Table t, StringBuilder md) {
    List<String[]> cols = new ArrayList<>();
    for (String[] r : ratios) {
      if (t.systems.contains(r[0]) && t.systems.contains(r[1])) {
        cols.add(r);
      }
    }
    md.append("| |");
    for (String s : t.systems) {
      md.append(' ').append(s).append(" |");
    }
    for (String[] r : cols) {
      md.append(' ').append(r[0]).append(" / ").append(r[1]).append(" |");
    }
    md.append("\n|---|");
    md.append("---|".repeat(t.systems.size() + cols.size()));
    md.append('\n');
    for (String row : t.rows.keySet()) {
      md.append("| ").append(row).append(" |");
      for (String s : t.systems) {
        List<Double> v = t.samples.get(row + '\u0000' + s);
        md.append(v == null ? " |" : " " + cell(v) + " |");
      }
      for (String[] r : cols) {
        List<Double> a = t.samples.get(row + '\u0000' + r[0]);
        List<Double> b = t.samples.get(row + '\u0000' + r[1]);
        if (a != null && b != null) {
          md.append(String.format(Locale.ROOT, " %.2f", Stats.median(a) / Stats.median(b)));
        }
        md.append(" |");
      }
      md.append('\n');
    }
  }

  private static String cell(List<Double> v) {
    if (v.size() == 1) {
      return number(v.get(0));
    }
    return number(Stats.median(v)) + " (" + number(Stats.min(v)) + "-" + number(Stats.max(v)) + ")";
  }

  /** Three significant digits, thousands separated: 1,234, 56.7, 0.123. */
  static String number(double v) {
    double a = Math.abs(v);
    if (a >= 100 || a == 0) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    if (a >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }

  static String slug(String s) {
    return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
  }

  private static String csvField(String s) {
    return s.indexOf(',') < 0 && s.indexOf('"') < 0 ? s : '"' + s.replace("\"", "\"\"") + '"';
  }

  /** One table's samples, in the order first recorded. */
  static final class Table {
    final String name;
    final Unit unit;
    final Map<String, Double> rows = new LinkedHashMap<>();
    final Set<String> systems = new LinkedHashSet<>();
    final Map<String, List<Double>> samples = new LinkedHashMap<>();

    /** Set by {@link Results#plot}; null for a table that is not plotted. */
    @Nullable String xLabel;

    boolean logX;

    Table(String name, Unit unit) {
      this.name = name;
      this.unit = unit;
    }

    /** The samples of one cell, or null. */
    @Nullable List<Double> cell(String row, String system) {
      return samples.get(row + '\u0000' + system);
    }
  }
}
