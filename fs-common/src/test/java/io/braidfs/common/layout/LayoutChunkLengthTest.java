package io.braidfs.common.layout;

import static io.braidfs.common.layout.LayoutGrid.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Layout#chunkLength} and {@link Layout#chunkSetCount}. */
class LayoutChunkLengthTest {
  private static final String GRID = "io.braidfs.common.layout.LayoutGrid#layouts";
  private static final int MODEL_SETS = 3;

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void boundaryLengthsAgreeWithBruteForceModel(Layout layout) {
    LayoutReference model = new LayoutReference(layout, MODEL_SETS);
    for (long length : LayoutGrid.boundaries(layout, MODEL_SETS)) {
      checkAgainstModel(layout, model, length);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void randomLengthsAgreeWithBruteForceModel(Layout layout) {
    LayoutReference model = new LayoutReference(layout, MODEL_SETS);
    Random random = new Random(0x1e9L * layout.hashCode());
    for (int i = 0; i < 200; i++) {
      checkAgainstModel(layout, model, (random.nextLong() >>> 1) % (model.coveredBytes() + 1));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void hugeLengthsSumToTheFileLength(Layout layout) {
    Random random = new Random(0xb16L + layout.hashCode());
    long[] lengths = {
      Long.MAX_VALUE, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 1, random.nextLong() >>> 1
    };
    for (long length : lengths) {
      long sets = layout.chunkSetCount(length);
      long lastSet = sets - 1;
      long inLastSet = 0;
      for (int c = 0; c < layout.stripeWidth(); c++) {
        assertThat(layout.chunkLength(length, 0, c)).isEqualTo(layout.chunkSize());
        assertThat(layout.chunkLength(length, sets, c)).isZero();
        assertThat(layout.chunkLength(length, Long.MAX_VALUE, c)).isZero();
        inLastSet += layout.chunkLength(length, lastSet, c);
      }
      assertThat(lastSet * layout.chunkSetSpan() + inLastSet).isEqualTo(length);
    }
  }

  @Test
  void emptyFileHasNoChunks() {
    Layout layout = Layout.defaults(4);
    assertThat(layout.chunkSetCount(0)).isZero();
    assertThat(layout.chunkLength(0, 0, 0)).isZero();
  }

  @Test
  void defaultLayoutExample() {
    Layout layout = Layout.defaults(4);
    // 5.5 MiB: units 0-4 full, half of unit 5. Chunk 0 has units 0 and 4, chunk 1 has 1 and 5.
    long length = 5L * MIB + MIB / 2;
    assertThat(layout.chunkSetCount(length)).isEqualTo(1);
    assertThat(layout.chunkLength(length, 0, 0)).isEqualTo(2L * MIB);
    assertThat(layout.chunkLength(length, 0, 1)).isEqualTo(MIB + MIB / 2);
    assertThat(layout.chunkLength(length, 0, 2)).isEqualTo(MIB);
    assertThat(layout.chunkLength(length, 0, 3)).isEqualTo(MIB);
    assertThat(layout.chunkLength(length, 1, 0)).isZero();
    assertThat(layout.chunkSetCount(256L * MIB)).isEqualTo(1);
    assertThat(layout.chunkSetCount(256L * MIB + 1)).isEqualTo(2);
  }

  private static void checkAgainstModel(Layout layout, LayoutReference model, long length) {
    long[][] expected = model.chunkLengths(length);
    long sum = 0;
    for (int set = 0; set <= MODEL_SETS; set++) {
      for (int c = 0; c < layout.stripeWidth(); c++) {
        long actual = layout.chunkLength(length, set, c);
        assertThat(actual)
            .as("length %d, set %d, chunk %d", length, set, c)
            .isEqualTo(expected[set][c]);
        sum += actual;
      }
    }
    assertThat(sum).as("sum over chunks of length %d", length).isEqualTo(length);
    long span = layout.chunkSetSpan();
    assertThat(layout.chunkSetCount(length)).isEqualTo((length + span - 1) / span);
    for (int c = 0; c < layout.stripeWidth(); c++) {
      assertThat(layout.chunkLength(length, layout.chunkSetCount(length), c)).isZero();
    }
  }
}
