package io.braidfs.bench.driver;

import java.util.List;

/** Every experiment {@code braid bench} knows, in BENCHMARKING.md's order. */
final class Experiments {
  private Experiments() {}

  static List<Experiment> all() {
    return List.of(
        new MetadataExperiment(),
        new SmallFilesExperiment(),
        new BlockSizeExperiment(),
        new ScalingExperiment(),
        new StripeExperiment(),
        new WanExperiment(),
        new BuildExperiment(),
        new RpcExperiment());
  }
}
