package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Experiment 11's parts that need no cluster: percentiles, the distribution table, the
 * description's sizes, and a {@code braid} command in a child JVM on this class path (the run
 * itself, with its ZooKeeper and replicas, is checked by running it, as the other experiments are).
 */
class HaExperimentTest {
  @TempDir Path dir;

  private static List<Double> oneTo(int n) {
    List<Double> v = new ArrayList<>();
    for (int i = n; i >= 1; i--) {
      v.add((double) i);
    }
    return v;
  }

  @Test
  void percentilesAreNearestRankSoAlwaysAMeasuredValue() {
    assertThat(Stats.percentile(oneTo(20), 0.5)).isEqualTo(10);
    assertThat(Stats.percentile(oneTo(20), 0.99)).isEqualTo(20);
    assertThat(Stats.percentile(oneTo(100), 0.99)).isEqualTo(99);
    assertThat(Stats.percentile(oneTo(1), 0.5)).isEqualTo(1);
    assertThat(Stats.percentile(List.of(), 0.5)).isNaN();
    assertThatThrownBy(() -> Stats.percentile(oneTo(3), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theDistributionRunsFromTheShortestBucketToTheLongest() {
    Map<String, List<Double>> times = new LinkedHashMap<>();
    times.put("3s", List.of(2.6, 2.9, 3.7));
    times.put("2s", List.of(2.2));

    assertThat(HaExperiment.histogram(times))
        .contains("| | 3s | 2s |")
        .contains("| 2.0-2.5 s | | 1 |")
        .contains("| 2.5-3.0 s | 2 | |")
        .contains("| 3.0-3.5 s | | |")
        .contains("| 3.5-4.0 s | 1 | |")
        .doesNotContain("1.5-2.0")
        .doesNotContain("4.0-4.5");
  }

  @Test
  void theDescriptionStatesTheSizesAndFailoversOverrideTheRounds() {
    Run quick = new Run(true, 0, dir, dir);
    Run more = new Run(false, 0, dir, dir);
    more.failoverOptions(50);

    assertThat(new HaExperiment().description(quick))
        .contains("5 rounds per setting of `braid.mds.ha.session-timeout`")
        .contains("create 100 empty files each")
        .contains("3 rounds after a warm-up")
        .contains("`braid.client.cache.attr-ttl=0s`");
    assertThat(new HaExperiment().description(more))
        .contains("50 rounds per setting")
        .contains("create 500 empty files each")
        .contains("10 rounds after a warm-up");
  }

  @Test
  void cpuTimeIsReadFromProcAndAGoneProcessHasNone() {
    long self = ProcessHandle.current().pid();
    long before = ProcCpu.nanos(self);
    // Burn a little CPU: more than one 10 ms tick of it.
    long deadline = System.nanoTime() + 200_000_000L;
    long x = 0;
    while (System.nanoTime() < deadline) {
      x += Long.numberOfTrailingZeros(System.nanoTime());
    }
    assertThat(x).isPositive();
    assertThat(ProcCpu.nanos(self)).isGreaterThan(before);
    assertThat(ProcCpu.nanos(Long.MAX_VALUE)).isEqualTo(-1);
  }

  @Test
  void aBraidCommandRunsInAChildJvmAndItsOutputIsWaitedFor() throws Exception {
    Path log = dir.resolve("logs").resolve("version.log");
    Path log4j = dir.resolve("log4j.properties");
    Files.writeString(log4j, "log4j.rootLogger=OFF\n");
    try (BraidProcess p =
        BraidProcess.start("version", log, log4j, List.of("-Xmx64m"), List.of("--version"))) {
      BraidProcess.Matched m =
          p.await(Pattern.compile("(\\d+\\.\\d+\\.\\d+\\S*)"), 0, Duration.ofMinutes(1));
      assertThat(m.group(1)).isNotEmpty();
      // It exits after printing: waiting for a line it never prints fails at once, naming the log.
      assertThatThrownBy(() -> p.await(Pattern.compile("never"), 0, Duration.ofMinutes(1)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("ended (exit 0)")
          .hasMessageContaining(log.toString());
      assertThat(p.last(Pattern.compile("\\d+\\.\\d+"))).isNotNull();
    }
    assertThat(Files.readString(log)).contains("io.braidfs.cli.Braid --version");
  }
}
