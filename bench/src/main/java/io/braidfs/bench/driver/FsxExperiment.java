package io.braidfs.bench.driver;

import static java.util.Objects.requireNonNull;

import io.braidfs.bench.Throughputs;
import io.braidfs.bench.ref.BindfsMount;
import io.braidfs.bench.ref.BraidSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Experiment 9, fsx soak runs (issue 24): fsx with the configuration CI gates the mount with, on
 * several seeds at once (one process and one file each) and many operations per seed, on the Braid
 * FUSE mount of {@link SharedReferences#braid}, the local disk and bindfs, one system after another
 * with the same seeds. It reports each system's operations per second (median and range over the
 * seeds, and all seeds together) and, per seed, whether the run passed; a seed that fails on Braid
 * fails the experiment, with the first failing operation and fsx's last lines in the section.
 *
 * <p>A failure on a reference is reported the same way and leaves that seed out of the reference's
 * rates, but does not fail the experiment: it gates Braid, and a reference that fails says that fsx
 * or its configuration, not Braid, is at fault.
 *
 * <p>Thread-safety: run from the driver's thread.
 */
final class FsxExperiment implements Experiment {
  static final String BRAID = SharedReferences.BRAID_FUSE;
  static final String LOCAL = SharedReferences.LOCAL;
  static final String BINDFS = SharedReferences.BINDFS_NAME;

  private static final String PER_PROCESS = "operations per second, each fsx process";
  private static final String TOGETHER = "operations per second, all seeds together";
  private static final String PER_SEED = "operations per second, by seed";
  private static final String UP_TO_FAILURE = "operations per second up to the failure";

  /** The lines of a failed seed's output kept in the results directory. */
  private static final int KEPT_LINES = 1_000;

  /** Outcomes by system, then by seed, in the order run; kept for the pass/fail table. */
  private final Map<String, Map<Integer, Fsx.Outcome>> outcomes = new LinkedHashMap<>();

  private String version = "fsx";

  @Override
  public int number() {
    return 9;
  }

  @Override
  public String name() {
    return "fsx";
  }

  @Override
  public String title() {
    return "fsx soak runs (Braid FUSE, local disk, bindfs)";
  }

  private static int seeds(Run run) {
    return run.fsxSeeds(3, 8);
  }

  private static long ops(Run run) {
    return run.fsxOps(20_000, 250_000);
  }

  private static int rounds(Run run) {
    return run.rounds(1, 1);
  }

  /**
   * How long one batch may take before its processes are killed: generous (50 operations a second,
   * plus 10 minutes), so that only a hang reaches it.
   */
  static Duration limit(long ops) {
    return Duration.ofMinutes(10).plusSeconds(ops / 50);
  }

  @Override
  public String description(Run run) {
    return String.format(
        Locale.ROOT,
        "`%s` (the Rust port of fsx from crates.io, crate `fsx`, built as .ci/run and"
            + " bench/bench-setup.sh build it) with the configuration CI gates the mount with"
            + " (fs-fuse's `outside/fsx.toml`, below) and `-v` (a line per operation, so that a"
            + " failure names its operation): %d seeds at once, one fsx process and one file"
            + " each, %,d operations per seed, on each system in turn with the same seeds (seeds"
            + " 1 to %d; %d round(s), the systems in a different order each round, each further"
            + " round on the next seeds). Systems: the Braid FUSE mount (a MiniCluster in the"
            + " driver's JVM: one MDS, %d data servers on the work disk, replication 1, stripe"
            + " width %<d, 1 MiB stripe units, so each 3 MiB fsx file spans every server;"
            + " default mount options: kernel page cache and attribute cache, fsync(2) and"
            + " msync(2) reach the data servers), the local disk (ext4) and bindfs over a local"
            + " directory (FUSE alone). Each process's rate is its operations over its wall time"
            + " (start to exit, the file's creation included); \"all seeds together\" is every"
            + " operation of the batch over the batch's wall time. fsx checks every read against"
            + " what it wrote, so the rates above count only seeds that passed (those of seeds"
            + " that failed, up to their failure, have a table of their own); a seed that fails on"
            + " Braid fails the experiment (the driver exits 1). A batch still running after %d"
            + " min is killed and counts as failed.",
        version,
        seeds(run),
        ops(run),
        seeds(run),
        rounds(run),
        SharedReferences.NODES,
        limit(ops(run)).toMinutes());
  }

  @Override
  public void run(Run run, Results results) throws Exception {
    outcomes.clear();
    Path program = Fsx.find(run.fsx(), System.getenv());
    version = Fsx.version(program);
    Path dir = run.scratch("exp9-fsx");
    Fsx fsx = new Fsx(program, Fsx.writeConfig(dir));
    BindfsMount bind = SharedReferences.bindfs(run);
    if (bind == null) {
      results.note("bindfs is not installed (`bench/bench-setup.sh` installs it): left out.");
    }
    BraidSystem braid = SharedReferences.braid(run);
    Map<String, Path> systems = new LinkedHashMap<>();
    systems.put(LOCAL, Files.createDirectories(dir.resolve("local")));
    if (bind != null) {
      systems.put(BINDFS, Files.createDirectories(bind.mount().resolve("exp9-fsx")));
    }
    systems.put(BRAID, Files.createDirectories(braid.mount().resolve("exp9-fsx")));

    int seeds = seeds(run);
    long ops = ops(run);
    String row = String.format(Locale.ROOT, "%d seeds x %,d operations", seeds, ops);
    results.table(PER_PROCESS, Unit.OPS_PER_S);
    results.table(TOGETHER, Unit.OPS_PER_S);
    results.table(UP_TO_FAILURE, Unit.OPS_PER_S);
    results.table(PER_SEED, Unit.OPS_PER_S);
    results.describe(PER_PROCESS, "median and range over the seeds that passed");
    results.describe(TOGETHER, "every operation of a batch over its wall time");
    results.describe(
        UP_TO_FAILURE,
        "seeds that failed: the operations before the failing one over the time to the failure"
            + " (median and range); a failed run's early part, not comparable to a whole run");
    for (int round = 0; round < rounds(run); round++) {
      List<Integer> batch = new ArrayList<>();
      for (int s = 1; s <= seeds; s++) {
        batch.add(round * seeds + s);
      }
      for (String system : Run.rotate(new ArrayList<>(systems.keySet()), round)) {
        Path files = requireNonNull(systems.get(system)); // one of its keys
        Path logs = dir.resolve("logs").resolve(Results.slug(system));
        System.out.printf(
            Locale.ROOT, "  exp9 %s: %d seeds x %,d operations...%n", system, seeds, ops);
        Fsx.Batch b = fsx.run(files, logs, batch, ops, limit(ops));
        long passedOps = 0;
        for (Fsx.Outcome o : b.outcomes()) {
          outcomes.computeIfAbsent(system, k -> new LinkedHashMap<>()).put(o.seed(), o);
          if (o.passed()) {
            passedOps += o.ops();
            results.record(
                PER_PROCESS, row, Double.NaN, system, round, o.opsPerSecond(), Unit.OPS_PER_S);
            results.record(
                PER_SEED,
                "seed " + o.seed(),
                Double.NaN,
                system,
                round,
                o.opsPerSecond(),
                Unit.OPS_PER_S);
          } else {
            System.out.printf("  exp9 %s seed %d FAILED: %s%n", system, o.seed(), o.failure());
            if (o.ops() > 0) {
              results.record(
                  UP_TO_FAILURE, row, Double.NaN, system, round, o.opsPerSecond(), Unit.OPS_PER_S);
            }
            keepOutput(run, system, o.seed(), logs);
          }
        }
        if (passedOps > 0) {
          results.recordOps(TOGETHER, row, Double.NaN, system, round, passedOps, b.nanos());
        }
        // The files go: a later round or experiment starts from empty directories.
        Throughputs.deleteTree(files);
        Files.createDirectories(files);
      }
    }
    Throughputs.deleteTree(systems.get(BRAID));
    if (bind != null) {
      Throughputs.deleteTree(requireNonNull(systems.get(BINDFS))); // put when bind is set
    }
    results.ratio(BRAID, LOCAL);
    results.ratio(BRAID, BINDFS);
    results.note(passFail());
    results.note("The configuration (fs-fuse/src/test/resources/outside/fsx.toml):");
    results.note("```toml\n" + Fsx.configText().strip() + "\n```");
    String failed = failures(BRAID);
    if (!failed.isEmpty()) {
      throw new IOException("fsx failed on " + BRAID + ": " + failed);
    }
  }

  /** Keeps the end of a failed seed's output in the results directory, beside the fragment. */
  private static void keepOutput(Run run, String system, int seed, Path logs) throws IOException {
    Path from = logs.resolve("seed" + seed).resolve("output");
    if (Files.exists(from)) {
      List<String> lines = Files.readAllLines(from, StandardCharsets.UTF_8);
      Files.write(
          run.out().resolve(outputName(system, seed)),
          lines.subList(Math.max(0, lines.size() - KEPT_LINES), lines.size()),
          StandardCharsets.UTF_8);
    }
  }

  /** The file in the results directory holding the end of a failed seed's output. */
  private static String outputName(String system, int seed) {
    return "exp9-fsx-" + Results.slug(system) + "-seed" + seed + "-output.txt";
  }

  /** The seeds that failed on {@code system}, with their first failing operations; or "". */
  private String failures(String system) {
    List<String> failed = new ArrayList<>();
    for (Fsx.Outcome o : outcomes.getOrDefault(system, Map.of()).values()) {
      if (!o.passed()) {
        failed.add("seed " + o.seed() + ": " + o.failure());
      }
    }
    return String.join("; ", failed);
  }

  /** A Markdown table of every seed on every system, and the last lines of each failure. */
  private String passFail() {
    StringBuilder md = new StringBuilder("**Pass or fail, by seed**\n\n| seed |");
    List<Integer> seeds = new ArrayList<>();
    for (Map<Integer, Fsx.Outcome> bySeed : outcomes.values()) {
      for (Integer s : bySeed.keySet()) {
        if (!seeds.contains(s)) {
          seeds.add(s);
        }
      }
    }
    for (String system : outcomes.keySet()) {
      md.append(' ').append(system).append(" |");
    }
    md.append("\n|---|").append("---|".repeat(outcomes.size())).append('\n');
    int failedCount = 0;
    StringBuilder details = new StringBuilder();
    for (int seed : seeds) {
      md.append("| ").append(seed).append(" |");
      for (Map.Entry<String, Map<Integer, Fsx.Outcome>> e : outcomes.entrySet()) {
        Fsx.Outcome o = e.getValue().get(seed);
        if (o == null) {
          md.append(" |");
        } else if (o.passed()) {
          md.append(" passed |");
        } else {
          failedCount++;
          md.append(" **failed** |");
          details
              .append("\n\n**")
              .append(e.getKey())
              .append(", seed ")
              .append(seed)
              .append(" failed**: ")
              .append(o.failure())
              .append(". fsx's last lines (its last ")
              .append(String.format(Locale.ROOT, "%,d", KEPT_LINES))
              .append(" lines: [")
              .append(outputName(e.getKey(), seed))
              .append("](")
              .append(outputName(e.getKey(), seed))
              .append(")):\n\n```\n")
              .append(String.join("\n", o.tail()))
              .append("\n```");
        }
      }
      md.append('\n');
    }
    md.append('\n');
    md.append(
        failedCount == 0
            ? "Every seed passed on every system: no read found data, a size or a mapping that"
                + " differed from what fsx had written."
            : failedCount + " run(s) failed; a failure on " + BRAID + " fails the experiment.");
    return md.append(details).toString();
  }
}
