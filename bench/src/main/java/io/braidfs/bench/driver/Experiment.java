package io.braidfs.bench.driver;

/**
 * One experiment of BENCHMARKING.md: it starts what it compares (through {@link Run#shared} for
 * references other experiments use too), alternates the systems over its rounds and records every
 * sample in {@link Results}.
 *
 * <p>Implementations keep two sizes: the full ones of BENCHMARKING.md and {@link Run#quick()} ones,
 * chosen so that all experiments together run in about 20 minutes on the 2-core benchmark machine.
 */
public interface Experiment {
  /**
   * The experiment's number: 1 to 8 in BENCHMARKING.md's order, 9 for the fsx soak runs, 10 for
   * repair after a lost data server, 11 for MDS high availability.
   */
  int number();

  /** A short name for the command line and file names: lower case, words joined by '-'. */
  String name();

  /** The heading in docs/benchmarks.md. */
  String title();

  /**
   * What is measured and how, for docs/benchmarks.md: a Markdown paragraph naming the systems,
   * their settings (replication, durability, layout) and the sizes of this run.
   */
  String description(Run run);

  /** Runs the experiment, recording every sample in {@code results}. */
  void run(Run run, Results results) throws Exception;
}
