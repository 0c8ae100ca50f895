package io.braidfs.bench.driver;

import static java.util.Objects.requireNonNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code braid bench}: runs experiments of BENCHMARKING.md against their references, writes a CSV,
 * plots and a Markdown fragment per experiment, and with {@code --docs} rewrites the generated
 * section of docs/benchmarks.md from every fragment in the results directory (each experiment's
 * first table and a link to its fragment); {@code --regenerate} does only the latter.
 *
 * <p>Exit code 0 when every experiment ran, 1 when one failed (the others still run; the failure is
 * in its fragment), 2 for a usage error.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the benchmark experiments of BENCHMARKING.md side by side with their references"
          + " (local disk, raw TCP, bindfs, HDFS, sshfs) and reports medians, ranges and ratios.",
      "Run as root on Debian after bench/bench-setup.sh, which installs the references."
    })
public final class Bench implements Callable<Integer> {
  @Parameters(
      arity = "0..*",
      paramLabel = "EXPERIMENT",
      description =
          "Experiment numbers (1-11) or names, or 'all' (the default). --list names them.")
  List<String> experiments = new ArrayList<>(List.of("all"));

  @Option(
      names = "--quick",
      description = "Small sizes: every experiment together in about 20 minutes on 2 cores.")
  boolean quick;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      description = "Rounds per experiment (default: each experiment's own, fewer with --quick).")
  int rounds;

  @Option(
      names = "--work",
      paramLabel = "DIR",
      description = "Scratch directory on the disk to measure (default: ${DEFAULT-VALUE}).")
  Path work = Path.of("target", "bench-work");

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "Results directory (default: target/bench, or benchmarks/driver beside --docs).")
  @Nullable Path out;

  @Option(
      names = "--docs",
      paramLabel = "FILE",
      description = "Rewrite the generated section of this file (docs/benchmarks.md).")
  @Nullable Path docs;

  @Option(
      names = "--fsx",
      paramLabel = "FILE",
      description =
          "The fsx program of experiment 9 (default: fsx in $BRAID_OUTSIDE_TOOLS,"
              + " ~/.cache/braid/outside-tools/bin or the PATH).")
  @Nullable Path fsx;

  @Option(
      names = "--fsx-seeds",
      paramLabel = "N",
      description =
          "fsx processes at once in experiment 9, one seed each (default 3 quick, 8 full).")
  int fsxSeeds;

  @Option(
      names = "--fsx-ops",
      paramLabel = "N",
      description = "fsx operations per seed in experiment 9 (default 20,000 quick, 250,000 full).")
  long fsxOps;

  @Option(
      names = "--failovers",
      paramLabel = "N",
      description =
          "Leader kills per session-timeout setting in experiment 11 (default 5 quick, 20 full).")
  int failovers;

  @Option(names = "--list", description = "List the experiments and exit.")
  boolean list;

  @Option(
      names = "--regenerate",
      description =
          "Run no experiment: rewrite the --docs section from the fragments already in the"
              + " results directory, keeping the machine it names.")
  boolean regenerate;

  @Spec CommandSpec spec;

  private final List<Experiment> known;

  /** The command with every experiment of {@link Experiments}. */
  public Bench() {
    this(Experiments.all());
  }

  /** The command with these experiments (tests). */
  Bench(List<Experiment> known) {
    this.known = known;
  }

  /** Runs {@code braid bench} on its own (java -jar bench/target/bench.jar). */
  public static void main(String[] args) {
    System.exit(new CommandLine(new Bench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (list) {
      for (Experiment e : known) {
        spec.commandLine().getOut().printf("%2d  %-12s %s%n", e.number(), e.name(), e.title());
      }
      spec.commandLine().getOut().flush();
      return 0;
    }
    Path results =
        out != null ? out : docs != null ? resultsBeside(docs) : Path.of("target", "bench");
    if (regenerate) {
      return regenerate(results);
    }
    List<Experiment> chosen = choose();
    Files.createDirectories(work);
    Files.createDirectories(results);
    String machine = Machine.describe(work);
    System.out.println("machine: " + machine);
    boolean failed = false;
    Run run = new Run(quick, rounds, work.toAbsolutePath(), results.toAbsolutePath());
    run.fsxOptions(fsx, fsxSeeds, fsxOps);
    run.failoverOptions(failovers);
    // Ctrl-C or SIGTERM: stop the references anyway (HDFS's JVMs, sshd, FUSE mounts outlive us).
    Thread cleanup = new Thread(() -> closeQuietly(run), "braid-bench-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try {
      for (Experiment e : chosen) {
        Results r = new Results(e);
        long t0 = System.nanoTime();
        System.out.printf("%n== experiment %d: %s%n", e.number(), e.title());
        String outcome;
        try {
          e.run(run, r);
          outcome = "";
        } catch (Exception | Error x) {
          failed = true;
          x.printStackTrace();
          outcome = "\n**This run failed**: " + x + "\n";
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        r.write(results, header(e, run, took) + outcome);
        System.out.printf(
            "== experiment %d took %d min %d s%n",
            e.number(), took.toMinutes(), took.toSecondsPart());
      }
      if (docs != null) {
        DocsSection.update(docs, results, sectionHeader(machine));
        System.out.println("updated " + docs);
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException shuttingDown) {
        // the hook is closing the run already
      }
      run.close();
    }
    return failed ? 1 : 0;
  }

  /** {@code --regenerate}: the docs section from the fragments in {@code results}, no run. */
  private int regenerate(Path results) throws Exception {
    if (docs == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--regenerate rewrites the file of --docs: give it");
    }
    String machine = DocsSection.machine(docs);
    if (machine == null) {
      Files.createDirectories(work);
      machine = Machine.describe(work);
    }
    DocsSection.update(docs, results, sectionHeader(machine));
    System.out.println("updated " + docs + " from " + results);
    return 0;
  }

  private static void closeQuietly(Run run) {
    try {
      run.close();
    } catch (Exception e) {
      System.err.println("braid bench: stopping the references failed: " + e);
    }
  }

  private static Path resultsBeside(Path doc) {
    Path parent = requireNonNull(doc.toAbsolutePath().getParent()); // a file's, so never null
    return parent.resolve("benchmarks").resolve("driver");
  }

  private List<Experiment> choose() {
    Set<Experiment> chosen = new LinkedHashSet<>();
    for (String name : experiments) {
      boolean found = false;
      for (Experiment e : known) {
        if (name.equals("all")
            || name.equals(Integer.toString(e.number()))
            || name.equalsIgnoreCase(e.name())) {
          chosen.add(e);
          found = true;
        }
      }
      if (!found) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "no experiment '"
                + name
                + "': use 1-"
                + known.stream().mapToInt(Experiment::number).max().orElse(0)
                + ", a name from --list, or all");
      }
    }
    return new ArrayList<>(chosen);
  }

  private String header(Experiment e, Run run, Duration took) {
    return String.format(
        Locale.ROOT,
        "### Experiment %d: %s%n%n" + "`./braid bench %d%s%s%s` on %s: %d min %d s.%n%n%s%n",
        e.number(),
        e.title(),
        e.number(),
        quick ? " --quick" : "",
        rounds > 0 ? " --rounds " + rounds : "",
        e instanceof FsxExperiment
            ? fsxOptions()
            : e instanceof HaExperiment && failovers > 0 ? " --failovers " + failovers : "",
        LocalDate.now(),
        took.toMinutes(),
        took.toSecondsPart(),
        e.description(run));
  }

  /** The fsx sizes given on the command line, as they reproduce experiment 9's figures. */
  private String fsxOptions() {
    return (fsxSeeds > 0 ? " --fsx-seeds " + fsxSeeds : "")
        + (fsxOps > 0 ? " --fsx-ops " + fsxOps : "");
  }

  private static String sectionHeader(String machine) {
    // Experiments may be rerun one at a time and at other sizes than the rest, so the command that
    // reproduces a figure is the one at the top of its experiment, not one for the whole section.
    return "## All experiments, side by side (generated by `braid bench`)\n\n"
        + "Everything below this heading, up to the end marker, is written by the benchmark"
        + " driver. Each experiment opens with the command of its last run, which reproduces its"
        + " figures and rewrites only its own part of this section (as root, after"
        + " `bench/bench-setup.sh`, which installs the references, and with `--docs"
        + " docs/benchmarks.md`), and shows its first table; the link under it leads to all its"
        + " tables, its method and its plots. One command runs them all at the quick sizes:\n\n"
        + "```\n./braid bench all --quick --docs docs/benchmarks.md\n```\n\n"
        + "Machine: "
        + machine
        + ".\n\n"
        + "Every cell is the median of the rounds with the range in brackets; systems alternate"
        + " within each round. A ratio column divides the first system's median by the second's,"
        + " in the table's unit: above 1 is better for a rate and worse for a time.\n";
  }
}
