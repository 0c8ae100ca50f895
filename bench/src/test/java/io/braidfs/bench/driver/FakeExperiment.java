package io.braidfs.bench.driver;

/** An experiment that records what it is given, or fails, for the driver's own tests. */
final class FakeExperiment implements Experiment {
  private final int number;
  private final String name;
  private final RuntimeException failure;
  int runs;

  FakeExperiment(int number, String name) {
    this(number, name, null);
  }

  FakeExperiment(int number, String name, RuntimeException failure) {
    this.number = number;
    this.name = name;
    this.failure = failure;
  }

  @Override
  public int number() {
    return number;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String title() {
    return "Fake " + name;
  }

  @Override
  public String description(Run run) {
    return "Sizes: " + (run.quick() ? "quick" : "full") + ", rounds " + run.rounds(2, 10) + ".";
  }

  @Override
  public void run(Run run, Results results) {
    runs++;
    if (failure != null) {
      throw failure;
    }
    for (int round = 0; round < run.rounds(2, 10); round++) {
      results.record("t", "r", 1, "Braid", round, number + round, Unit.OPS_PER_S);
    }
  }
}
