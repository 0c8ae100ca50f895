package io.braidfs.mds.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.proto.ChunkId;
import io.braidfs.proto.ReplicaReport;
import io.braidfs.proto.ReplicaState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicaMapTest {
  private final ReplicaMap map = new ReplicaMap();

  private static ReplicaReport replica(long inode, int index, long version) {
    return ReplicaReport.newBuilder()
        .setId(ChunkId.newBuilder().setInodeId(inode).setChunkIndex(index))
        .setVersion(version)
        .setLength(100)
        .setState(ReplicaState.REPLICA_STATE_FINALIZED)
        .build();
  }

  @Test
  void aFullReportCountsOnlyWhenEveryPartArrivedInOrder() {
    assertThat(map.fullReportPart(7, 1, 0, false, List.of(replica(1, 0, 3)))).isNull();
    assertThat(map.hasReported(7)).isFalse();
    ReplicaMap.FullReport r = map.fullReportPart(7, 1, 1, true, List.of(replica(1, 1, 3)));
    assertThat(r).isNotNull();
    assertThat(r.replicas()).containsOnlyKeys(new ChunkRef(1, 0), new ChunkRef(1, 1));
    assertThat(r.gone()).isEmpty();
    assertThat(map.hasReported(7)).isTrue();
    assertThat(map.replicasOf(7)).isEqualTo(2);

    // A lost part: the report is dropped, and the last complete one stays.
    assertThat(map.fullReportPart(7, 2, 0, false, List.of(replica(1, 0, 3)))).isNull();
    assertThat(map.fullReportPart(7, 2, 2, true, List.of())).isNull();
    assertThat(map.replicasOf(7)).isEqualTo(2);
  }

  @Test
  void aLaterFullReportNamesWhatIsGone() {
    map.fullReportPart(7, 1, 0, true, List.of(replica(1, 0, 3), replica(1, 1, 3)));
    ReplicaMap.FullReport r = map.fullReportPart(7, 2, 0, true, List.of(replica(1, 1, 3)));
    assertThat(r.gone()).containsExactly(new ChunkRef(1, 0));
    assertThat(map.chunksOf(7)).containsExactly(new ChunkRef(1, 1));
  }

  @Test
  void changesBetweenReportsKeepTheMapCurrent() {
    map.fullReportPart(7, 1, 0, true, List.of(replica(1, 0, 3)));
    map.finalized(7, replica(2, 0, 5));
    map.removed(7, new ChunkRef(1, 0));
    assertThat(map.chunksOf(7)).containsExactly(new ChunkRef(2, 0));
    assertThat(map.reportedOn(7, new ChunkRef(2, 0)).version()).isEqualTo(5);
    assertThat(map.reportedOn(8, new ChunkRef(2, 0))).isNull();
  }

  @Test
  void aCorruptMarkIsNotWeakenedToMissingAndClearsPerServer() {
    ChunkRef c = new ChunkRef(1, 0);
    map.markBad(c, 7, ReplicaMap.Bad.CORRUPT, 3);
    map.markBad(c, 7, ReplicaMap.Bad.MISSING, 3);
    map.markBad(c, 8, ReplicaMap.Bad.MISSING, 3);
    assertThat(map.badReplicas(c, 3))
        .isEqualTo(Map.of(7, ReplicaMap.Bad.CORRUPT, 8, ReplicaMap.Bad.MISSING));
    map.clearBad(c, 7);
    assertThat(map.badReplicas(c, 3)).isEqualTo(Map.of(8, ReplicaMap.Bad.MISSING));
    map.clearBad(c, 8);
    assertThat(map.badReplicas(c, 3)).isEmpty();
    assertThat(map.chunksWithBadReplicas()).isEmpty();
  }

  @Test
  void marksOfAnotherVersionDoNotCount() {
    ChunkRef c = new ChunkRef(1, 0);
    map.markBad(c, 7, ReplicaMap.Bad.CORRUPT, 3);
    assertThat(map.badReplicas(c, 4)).isEmpty(); // rewritten since: the mark is stale
    map.markBad(c, 7, ReplicaMap.Bad.MISSING, 4);
    assertThat(map.badReplicas(c, 4)).isEqualTo(Map.of(7, ReplicaMap.Bad.MISSING));
  }
}
