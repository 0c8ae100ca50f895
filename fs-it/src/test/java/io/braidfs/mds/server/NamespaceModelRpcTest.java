package io.braidfs.mds.server;

import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The MDS against its executable specification, {@link io.braidfs.mds.model.NamespaceModel}: random
 * operations over real RPC must give the model's statuses and results one by one, and the server's
 * tree, read back through paged ReadDir, must be the model's at the end and again after a restart
 * on the same store. See {@link ModelRun} for what is generated and compared.
 *
 * <p>To replay or widen a run: {@code -Dbraid.model.seed=<seed>} runs only that seed, {@code
 * -Dbraid.model.seeds=<n>} runs {@code n} other seeds (a soak), {@code -Dbraid.model.ops=<n>}
 * changes the operations per seed (default 1500).
 */
class NamespaceModelRpcTest {
  private static final int OPS = Integer.getInteger("braid.model.ops", 1500);

  static LongStream seeds() {
    String only = System.getProperty("braid.model.seed");
    if (only != null && !only.isBlank()) {
      return LongStream.of(Long.parseLong(only.strip()));
    }
    int count = Integer.getInteger("braid.model.seeds", 0);
    if (count > 0) {
      return LongStream.rangeClosed(1, count).map(i -> i * 1_000_003L);
    }
    return LongStream.of(1, 2, 3, 0x5EEDL);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void serverAgreesWithTheModel(long seed, @TempDir Path dir) throws IOException {
    try (MdsFixture mds = MdsFixture.builder(dir).build()) {
      mds.start();
      ModelRun run = new ModelRun(seed, mds);
      run.compareTrees("at the start");
      run.run(OPS);
      run.compareTrees("after " + OPS + " operations");
    }
  }

  @Test
  void theNamespaceSurvivesARestart(@TempDir Path dir) throws IOException {
    long seed = 77;
    try (MdsFixture mds = MdsFixture.builder(dir).build()) {
      mds.start();
      ModelRun run = new ModelRun(seed, mds);
      run.run(1000);
      run.compareTrees("before the restart");
      mds.restart();
      run.reconnect();
      run.compareTrees("after the restart");
      run.run(300);
      run.compareTrees("after 300 more operations on the restarted server");
    }
  }
}
