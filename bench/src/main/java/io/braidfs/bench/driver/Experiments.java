package io.braidfs.bench.driver;

import java.util.List;

/**
 * Every experiment {@code braid bench} knows: BENCHMARKING.md's eight in its order, then the fsx
 * soak runs of issue 24, the repair measurements of issue 26 and MDS failover of issue 27.
 */
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
        new RpcExperiment(),
        new FsxExperiment(),
        new RepairExperiment(),
        new HaExperiment());
  }
}
