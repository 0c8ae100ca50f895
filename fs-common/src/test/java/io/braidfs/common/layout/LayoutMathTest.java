package io.braidfs.common.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The offset mapping of {@link Layout} and its inverse, over the whole {@link LayoutGrid}: against
 * the brute-force {@link LayoutReference} for the first chunk sets, and against the closed form in
 * {@link BigInteger} arithmetic for offsets up to {@link Long#MAX_VALUE}.
 */
class LayoutMathTest {
  private static final String GRID = "io.braidfs.common.layout.LayoutGrid#layouts";
  private static final int MODEL_SETS = 3;
  private static final long SEED = 0x5eed_1a70_7L;

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void everyBoundaryAgreesWithBruteForceModel(Layout layout) {
    LayoutReference model = new LayoutReference(layout, MODEL_SETS);
    for (long offset : LayoutGrid.boundaries(layout, MODEL_SETS)) {
      if (offset < model.coveredBytes()) {
        assertThat(layout.locate(offset)).as("offset %d", offset).isEqualTo(model.locate(offset));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void randomOffsetsAgreeWithBruteForceModel(Layout layout) {
    LayoutReference model = new LayoutReference(layout, MODEL_SETS);
    Random random = new Random(SEED + layout.hashCode());
    for (int i = 0; i < 500; i++) {
      long offset = (random.nextLong() & Long.MAX_VALUE) % model.coveredBytes();
      assertThat(layout.locate(offset)).as("offset %d", offset).isEqualTo(model.locate(offset));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void namedBoundaries(Layout layout) {
    long su = layout.stripeUnit();
    int width = layout.stripeWidth();
    long span = layout.chunkSetSpan();
    long lastRowStart = (layout.unitsPerChunk() - 1) * width * su;

    assertThat(layout.locate(0)).isEqualTo(new ChunkAddress(0, 0, 0, 0));
    assertThat(layout.locate(su - 1)).isEqualTo(new ChunkAddress(0, 0, su - 1, 0));
    // Unit 1 is in the next chunk; with width 1 it is the chunk's next row, or the next set.
    ChunkAddress secondUnit;
    if (width > 1) {
      secondUnit = address(0, 1, 0, width);
    } else if (layout.unitsPerChunk() > 1) {
      secondUnit = address(0, 0, su, width);
    } else {
      secondUnit = address(1, 0, 0, width);
    }
    assertThat(layout.locate(su)).isEqualTo(secondUnit);
    assertThat(layout.locate(su + 1).offsetInChunk()).isEqualTo(secondUnit.offsetInChunk() + 1);
    for (int c = 0; c < width; c++) {
      // The last byte of chunk c is the last byte of its unit in the last row.
      long endOfChunk = lastRowStart + (c + 1) * su - 1;
      assertThat(layout.locate(endOfChunk)).isEqualTo(address(0, c, layout.chunkSize() - 1, width));
    }
    assertThat(layout.locate(span - 1))
        .isEqualTo(address(0, width - 1, layout.chunkSize() - 1, width));
    assertThat(layout.locate(span)).isEqualTo(address(1, 0, 0, width));
    assertThat(layout.locate(2 * span + 1)).isEqualTo(address(2, 0, 1, width));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void inverseRoundTripsEveryBoundary(Layout layout) {
    for (long offset : LayoutGrid.boundaries(layout, MODEL_SETS)) {
      assertRoundTrip(layout, offset);
      assertRoundTrip(layout, offset + 1000 * layout.chunkSetSpan());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void inverseRoundTripsRandomOffsets(Layout layout) {
    Random random = new Random(SEED ^ layout.hashCode());
    for (int i = 0; i < 2000; i++) {
      assertRoundTrip(layout, random.nextLong() >>> 2); // up to Long.MAX_VALUE / 2
      assertRoundTrip(layout, random.nextLong() & Long.MAX_VALUE);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void hugeOffsetsMatchExactArithmetic(Layout layout) {
    long[] offsets = {
      Long.MAX_VALUE,
      Long.MAX_VALUE - 1,
      Long.MAX_VALUE / 2,
      Long.MAX_VALUE / 2 + 1,
      Long.MAX_VALUE - layout.chunkSetSpan(),
      Long.MAX_VALUE - Long.MAX_VALUE % layout.chunkSetSpan(),
      (Long.MAX_VALUE / 2) / layout.stripeUnit() * layout.stripeUnit(),
    };
    for (long offset : offsets) {
      assertThat(layout.locate(offset)).as("offset %d", offset).isEqualTo(exact(layout, offset));
      assertRoundTrip(layout, offset);
    }
  }

  /** In the last chunk set of the long range, addresses past Long.MAX_VALUE must be refused. */
  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void inverseRefusesOffsetsBeyondLongMax(Layout layout) {
    long lastSet = Long.MAX_VALUE / layout.chunkSetSpan();
    long su = layout.stripeUnit();
    for (int c = 0; c < layout.stripeWidth(); c++) {
      for (long row = 0; row < layout.unitsPerChunk(); row++) {
        for (long offsetInChunk : new long[] {row * su, row * su + su - 1}) {
          BigInteger expected = exactInverse(layout, lastSet, c, offsetInChunk);
          int chunk = c;
          if (expected.bitLength() < Long.SIZE) {
            assertThat(layout.fileOffset(lastSet, c, offsetInChunk))
                .isEqualTo(expected.longValueExact());
          } else {
            assertThatThrownBy(() -> layout.fileOffset(lastSet, chunk, offsetInChunk))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Long.MAX_VALUE");
          }
        }
      }
    }
    assertThatThrownBy(() -> layout.fileOffset(lastSet + 1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Long.MAX_VALUE");
    assertThatThrownBy(() -> layout.fileOffset(Long.MAX_VALUE, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void addressesStayInsideTheLayout(Layout layout) {
    Random random = new Random(SEED - layout.hashCode());
    for (int i = 0; i < 1000; i++) {
      ChunkAddress a = layout.locate(random.nextLong() & Long.MAX_VALUE);
      assertThat(a.chunkInSet()).isBetween(0, layout.stripeWidth() - 1);
      assertThat(a.offsetInChunk()).isBetween(0L, layout.chunkSize() - 1);
      assertThat(a.chunkIndex()).isEqualTo(a.chunkSet() * layout.stripeWidth() + a.chunkInSet());
    }
  }

  private static void assertRoundTrip(Layout layout, long offset) {
    ChunkAddress address = layout.locate(offset);
    assertThat(layout.fileOffset(address)).as("offset %d at %s", offset, address).isEqualTo(offset);
    assertThat(layout.fileOffset(address.chunkSet(), address.chunkInSet(), address.offsetInChunk()))
        .isEqualTo(offset);
  }

  private static ChunkAddress address(long set, int chunk, long offsetInChunk, int width) {
    return new ChunkAddress(set, chunk, offsetInChunk, set * width + chunk);
  }

  /** The architecture's formula, evaluated without any possibility of overflow. */
  private static ChunkAddress exact(Layout layout, long offset) {
    BigInteger b = BigInteger.valueOf(offset);
    BigInteger su = BigInteger.valueOf(layout.stripeUnit());
    BigInteger width = BigInteger.valueOf(layout.stripeWidth());
    BigInteger u = b.divide(su);
    BigInteger set = u.divide(width.multiply(BigInteger.valueOf(layout.unitsPerChunk())));
    BigInteger inSet = u.mod(width.multiply(BigInteger.valueOf(layout.unitsPerChunk())));
    BigInteger chunk = u.mod(width);
    BigInteger offsetInChunk = inSet.divide(width).multiply(su).add(b.mod(su));
    return new ChunkAddress(
        set.longValueExact(),
        chunk.intValueExact(),
        offsetInChunk.longValueExact(),
        set.multiply(width).add(chunk).longValueExact());
  }

  private static BigInteger exactInverse(Layout layout, long set, int chunk, long offsetInChunk) {
    BigInteger su = BigInteger.valueOf(layout.stripeUnit());
    BigInteger width = BigInteger.valueOf(layout.stripeWidth());
    BigInteger row = BigInteger.valueOf(offsetInChunk).divide(su);
    BigInteger unit = row.multiply(width).add(BigInteger.valueOf(chunk));
    return BigInteger.valueOf(set)
        .multiply(BigInteger.valueOf(layout.chunkSetSpan()))
        .add(unit.multiply(su))
        .add(BigInteger.valueOf(offsetInChunk).mod(su));
  }
}
