package io.braidfs.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.proto.FileHealth;
import io.braidfs.proto.FsckFile;
import io.braidfs.proto.FsckResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Experiment 10's parts that need no cluster: when fsck's answer counts as healthy, and the
 * description's sizes and settings (the run itself is checked by running it, as the others are).
 */
class RepairExperimentTest {
  @TempDir Path dir;

  private static FsckFile file(String path, FileHealth health) {
    return FsckFile.newBuilder().setPath(path).setHealth(health).build();
  }

  @Test
  void healthyWhenNoFileButTheExceptedOneIsListed() {
    FsckResponse clean = FsckResponse.newBuilder().setFiles(3).setHealthyFiles(3).build();
    FsckResponse writing =
        FsckResponse.newBuilder()
            .setFiles(3)
            .setHealthyFiles(2)
            .addEntries(file("/exp10/foreground", FileHealth.UNDER_REPLICATED))
            .build();
    FsckResponse repairing =
        writing.toBuilder()
            .setHealthyFiles(1)
            .addEntries(file("/exp10/data-0", FileHealth.UNDER_REPLICATED))
            .build();

    assertThat(FsckPoller.healthy(clean, null)).isTrue();
    assertThat(FsckPoller.healthy(writing, null)).isFalse();
    assertThat(FsckPoller.healthy(writing, "/exp10/foreground")).isTrue();
    assertThat(FsckPoller.healthy(repairing, "/exp10/foreground")).isFalse();
    assertThat(FsckPoller.unhealthy(repairing, "/exp10/foreground")).isOne();
  }

  @Test
  void safeModeOrATruncatedListIsNotHealthy() {
    FsckResponse r = FsckResponse.newBuilder().setFiles(1).setHealthyFiles(1).build();

    assertThat(FsckPoller.healthy(r.toBuilder().setSafeMode(true).build(), null)).isFalse();
    assertThat(FsckPoller.healthy(r.toBuilder().setTruncated(true).build(), null)).isFalse();
  }

  @Test
  void throttlesAreReadFromTheKeySetsOnTheClassPath() {
    assertThat(RepairExperiment.defaultOf("braid.mds.cluster.repair-copies-per-server"))
        .isEqualTo("2");
    assertThat(RepairExperiment.defaultOf("braid.no.such.key")).isNull();
  }

  @Test
  void theDescriptionStatesTheQuickSizesAndTheMdsSettings() {
    String d = new RepairExperiment().description(new Run(true, 0, dir, dir));

    assertThat(d)
        .contains("512 MiB of files")
        .contains("about 384 MiB")
        .contains("a fresh 256 MiB file")
        .contains("`braid.mds.cluster.heartbeat-interval=200ms`")
        .contains("`braid.mds.cluster.repair-copies-per-server=2`")
        .contains("`braid.dataserver.copy.bandwidth=0B`")
        .contains("once with `braid.dataserver.copy.bandwidth=128MiB`")
        .contains("3 rounds");
  }
}
