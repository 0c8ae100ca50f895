package io.braidfs.common.layout;

import static io.braidfs.common.layout.LayoutGrid.KIB;
import static io.braidfs.common.layout.LayoutGrid.MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Validation, defaults, value semantics and a few hand-worked examples of {@link Layout}. */
class LayoutTest {

  @Test
  void defaultsFollowClusterSize() {
    assertThat(Layout.defaults(1)).isEqualTo(Layout.of(MIB, 1, 64L * MIB, 1));
    assertThat(Layout.defaults(2)).isEqualTo(Layout.of(MIB, 2, 64L * MIB, 2));
    assertThat(Layout.defaults(3)).isEqualTo(Layout.of(MIB, 3, 64L * MIB, 3));
    assertThat(Layout.defaults(4)).isEqualTo(Layout.of(MIB, 4, 64L * MIB, 3));
    assertThat(Layout.defaults(100)).isEqualTo(Layout.of(MIB, 4, 64L * MIB, 3));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
  void defaultsRejectEmptyCluster(int dataServers) {
    assertThatThrownBy(() -> Layout.defaults(dataServers))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(dataServers));
  }

  @Test
  void acceptsTheLimits() {
    Layout small = Layout.of(4 * KIB, 1, 4 * KIB, 1);
    assertThat(small.unitsPerChunk()).isEqualTo(1);
    Layout large = Layout.of(64 * MIB, 256, Layout.MAX_CHUNK_SIZE, 16);
    assertThat(large.chunkSetSpan()).isEqualTo(1L << 48);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -4096, 2048, 4095, 4097, 3 * 4096, 96 * 1024, 128 << 20, 1 << 30})
  void rejectsBadStripeUnit(int stripeUnit) {
    assertThatThrownBy(() -> Layout.of(stripeUnit, 1, 64L * MIB, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stripeUnit")
        .hasMessageContaining(String.valueOf(stripeUnit));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 257, Integer.MAX_VALUE})
  void rejectsBadStripeWidth(int width) {
    assertThatThrownBy(() -> Layout.of(MIB, width, 64L * MIB, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stripeWidth")
        .hasMessageContaining(String.valueOf(width));
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -MIB, MIB - 1, MIB + 4096, 3L * MIB / 2, (1L << 40) + MIB})
  void rejectsBadChunkSize(long chunkSize) {
    assertThatThrownBy(() -> Layout.of(MIB, 4, chunkSize, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chunkSize")
        .hasMessageContaining(String.valueOf(chunkSize));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 17})
  void rejectsBadReplication(int replication) {
    assertThatThrownBy(() -> Layout.of(MIB, 4, 64L * MIB, replication))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replication")
        .hasMessageContaining(String.valueOf(replication));
  }

  @Test
  void builderStartsFromDefaultUnitAndChunk() {
    Layout layout = Layout.builder().stripeWidth(2).replication(2).build();
    assertThat(layout).isEqualTo(Layout.of(MIB, 2, 64L * MIB, 2));
  }

  @Test
  void builderRequiresWidthAndReplication() {
    assertThatThrownBy(() -> Layout.builder().replication(1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stripeWidth");
    assertThatThrownBy(() -> Layout.builder().stripeWidth(1).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("replication");
  }

  @Test
  void builderValidatesOnBuild() {
    Layout.Builder builder = Layout.builder().stripeWidth(0).replication(1);
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stripeWidth must be in [1, 256]: 0");
  }

  @Test
  void toBuilderCopiesEveryField() {
    Layout layout = Layout.of(64 * KIB, 7, 3 * 64 * KIB, 5);
    assertThat(layout.toBuilder().build()).isEqualTo(layout);
    assertThat(layout.toBuilder().replication(2).build())
        .isEqualTo(Layout.of(64 * KIB, 7, 3 * 64 * KIB, 2));
  }

  @Test
  void equalsAndHashCodeCoverEveryField() {
    Layout base = Layout.of(MIB, 4, 64L * MIB, 3);
    assertThat(base).isEqualTo(Layout.of(MIB, 4, 64L * MIB, 3)).isEqualTo(base);
    assertThat(base.hashCode()).isEqualTo(Layout.of(MIB, 4, 64L * MIB, 3).hashCode());
    assertThat(base)
        .isNotEqualTo(Layout.of(2 * MIB, 4, 64L * MIB, 3))
        .isNotEqualTo(Layout.of(MIB, 3, 64L * MIB, 3))
        .isNotEqualTo(Layout.of(MIB, 4, 32L * MIB, 3))
        .isNotEqualTo(Layout.of(MIB, 4, 64L * MIB, 2))
        .isNotEqualTo(null)
        .isNotEqualTo("Layout");
  }

  @Test
  void toStringUsesBinaryUnits() {
    assertThat(Layout.defaults(5))
        .hasToString("Layout[stripeUnit=1MiB, stripeWidth=4, chunkSize=64MiB, replication=3]");
    assertThat(Layout.of(4 * KIB, 1, 12 * KIB, 1))
        .hasToString("Layout[stripeUnit=4KiB, stripeWidth=1, chunkSize=12KiB, replication=1]");
    assertThat(Layout.of(64 * MIB, 2, Layout.MAX_CHUNK_SIZE, 1).toString())
        .contains("chunkSize=1TiB");
    assertThat(Layout.of(MIB, 2, 3L << 30, 1).toString()).contains("chunkSize=3GiB");
  }

  @Test
  void derivedSizes() {
    Layout layout = Layout.defaults(4);
    assertThat(layout.unitsPerChunk()).isEqualTo(64);
    assertThat(layout.chunkSetSpan()).isEqualTo(256L * MIB);
  }

  /** Default layout, width 4: units 0-3 are row 0 of chunks 0-3, unit 4 is row 1 of chunk 0. */
  @ParameterizedTest(name = "offset {0} -> set {1}, chunk {2}, offset {3}, index {4}")
  @CsvSource({
    "0, 0, 0, 0, 0",
    "1048575, 0, 0, 1048575, 0",
    "1048576, 0, 1, 0, 1",
    "3145728, 0, 3, 0, 3",
    "4194304, 0, 0, 1048576, 0",
    "5242881, 0, 1, 1048577, 1",
    // Last byte of the first set: unit 255 = row 63 of chunk 3.
    "268435455, 0, 3, 67108863, 3",
    // First byte of the second set.
    "268435456, 1, 0, 0, 4",
    "269484032, 1, 1, 0, 5",
  })
  void defaultLayoutExamples(
      long offset, long set, int chunk, long offsetInChunk, long chunkIndex) {
    Layout layout = Layout.defaults(4);
    ChunkAddress address = layout.locate(offset);
    assertThat(address).isEqualTo(new ChunkAddress(set, chunk, offsetInChunk, chunkIndex));
    assertThat(layout.fileOffset(address)).isEqualTo(offset);
  }

  @Test
  void widthOneIsLikeHdfsBlocks() {
    Layout layout = Layout.of(MIB, 1, 128L * MIB, 3);
    assertThat(layout.locate(200L * MIB + 5)).isEqualTo(new ChunkAddress(1, 0, 72L * MIB + 5, 1));
  }

  @ParameterizedTest
  @ValueSource(longs = {-1, -4096, Long.MIN_VALUE})
  void negativeOffsetsAreRejectedByName(long offset) {
    Layout layout = Layout.defaults(4);
    assertThatThrownBy(() -> layout.locate(offset))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fileOffset must be >= 0: " + offset);
    assertThatThrownBy(() -> layout.segments(offset, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fileOffset must be >= 0: " + offset);
    assertThatThrownBy(() -> layout.chunkSetCount(offset))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fileLength must be >= 0: " + offset);
    assertThatThrownBy(() -> layout.chunkLength(offset, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("fileLength must be >= 0: " + offset);
  }

  @Test
  void inverseRejectsOutOfRangeCoordinates() {
    Layout layout = Layout.defaults(4);
    assertThatThrownBy(() -> layout.fileOffset(-1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkSet must be >= 0: -1");
    assertThatThrownBy(() -> layout.fileOffset(0, 4, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkInSet must be in [0, 4): 4");
    assertThatThrownBy(() -> layout.fileOffset(0, -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkInSet must be in [0, 4): -1");
    assertThatThrownBy(() -> layout.fileOffset(0, 0, 64L * MIB))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offsetInChunk must be in [0, 67108864): 67108864");
    assertThatThrownBy(() -> layout.fileOffset(0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(": -1");
    assertThatThrownBy(() -> layout.chunkLength(0, 0, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkInSet must be in [0, 4): 4");
    assertThatThrownBy(() -> layout.chunkLength(0, -1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkSet must be >= 0: -1");
  }

  @Test
  void inverseRejectsAddressFromAnotherLayout() {
    Layout four = Layout.defaults(4);
    ChunkAddress fromWidthTwo = Layout.defaults(2).locate(300L * MIB);
    assertThatThrownBy(() -> four.fileOffset(fromWidthTwo))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chunk index");
    assertThatThrownBy(() -> four.fileOffset(new ChunkAddress(Long.MAX_VALUE, 3, 0, 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chunk index");
  }

  @Test
  void chunkAddressRejectsNegativeComponents() {
    assertThatThrownBy(() -> new ChunkAddress(-1, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ChunkAddress(0, -1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ChunkAddress(0, 0, -1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ChunkAddress(0, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
