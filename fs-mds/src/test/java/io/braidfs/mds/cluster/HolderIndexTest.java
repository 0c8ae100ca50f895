package io.braidfs.mds.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class HolderIndexTest {
  private final HolderIndex index = new HolderIndex();

  @Test
  void followsEachChunkRecordsHolders() {
    ChunkRef a = new ChunkRef(1, 0);
    ChunkRef b = new ChunkRef(1, 1);
    index.update(a, List.of(1, 2, 3), 10);
    index.update(b, List.of(2, 3, 4), 20);
    assertThat(index.chunksOf(2)).containsExactlyInAnyOrder(a, b);
    assertThat(index.servers()).containsExactlyInAnyOrder(1, 2, 3, 4);

    index.update(a, List.of(2, 3, 5), 30); // server 1 replaced by 5
    assertThat(index.holdsAny(1)).isFalse();
    assertThat(index.chunksOf(5)).containsExactly(a);
    assertThat(index.changedNanos(a)).isEqualTo(30);

    List<ChunkRef> gone = new java.util.ArrayList<>();
    index.onGone(gone::add);
    index.update(b, List.of(), 40); // the record is gone
    assertThat(gone).containsExactly(b);
    assertThat(index.chunksOf(4)).isEmpty();
    assertThat(index.chunksOf(2)).containsExactly(a);
    assertThat(index.changedNanos(b)).isEqualTo(Long.MIN_VALUE);
  }
}
