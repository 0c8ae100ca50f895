package io.braidfs.common.layout;

import static io.braidfs.common.layout.LayoutGrid.KIB;
import static io.braidfs.common.layout.LayoutGrid.MIB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Layout#segments}: exact cover, order, unit boundaries, and laziness. */
class LayoutSegmentsTest {
  private static final String GRID = "io.braidfs.common.layout.LayoutGrid#layouts";

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void rangesFromBoundariesAreCoveredExactly(Layout layout) {
    long su = layout.stripeUnit();
    long chunk = layout.chunkSize();
    long span = layout.chunkSetSpan();
    long[] starts = {0, 1, su - 1, su, su + 1, chunk - 1, span - 1, span, 5 * span + su / 2};
    long[] lengths = {0, 1, su - 1, su, su + 1, chunk, span - 1, span, span + 1, 2 * span + 3};
    for (long start : starts) {
      for (long length : lengths) {
        checkCover(layout, start, length);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void randomRangesAreCoveredExactly(Layout layout) {
    Random random = new Random(0x5e97L + layout.hashCode());
    long span = layout.chunkSetSpan();
    for (int i = 0; i < 50; i++) {
      long start = (random.nextLong() >>> 2) / span * span + (random.nextLong() >>> 1) % span;
      long length = (random.nextLong() >>> 1) % (3 * span);
      checkCover(layout, start, length);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource(GRID)
  void rangeEndingAtLongMax(Layout layout) {
    long length = 3L * layout.stripeUnit() + 7;
    checkCover(layout, Long.MAX_VALUE - length, length);
    assertThat(layout.segments(Long.MAX_VALUE, 0)).isEmpty();
  }

  @Test
  void oneGibibyteRangeIsWalkedLazily() {
    Layout layout = Layout.of(4 * KIB, 8, 64L * MIB, 1);
    long count = 0;
    long covered = 0;
    for (Segment segment : layout.segments(12345, 1L << 30)) {
      count++;
      covered += segment.length();
    }
    assertThat(covered).isEqualTo(1L << 30);
    // The unaligned start splits one extra unit.
    assertThat(count).isEqualTo((1L << 30) / (4 * KIB) + 1);
  }

  @Test
  void wholeLongRangeIsLazy() {
    Layout layout = Layout.defaults(4);
    Iterator<Segment> it = layout.segments(0, Long.MAX_VALUE).iterator();
    assertThat(it.next()).isEqualTo(new Segment(0, MIB, 0, 0, 0, 0));
    assertThat(it.next()).isEqualTo(new Segment(MIB, MIB, 0, 1, 0, 1));
    assertThat(it.hasNext()).isTrue();
  }

  @Test
  void defaultLayoutExample() {
    Layout layout = Layout.defaults(4);
    List<Segment> segments = new ArrayList<>();
    layout.segments(MIB - 10, 2L * MIB + 20).forEach(segments::add);
    assertThat(segments)
        .containsExactly(
            new Segment(MIB - 10, 10, 0, 0, MIB - 10, 0),
            new Segment(MIB, MIB, 0, 1, 0, 1),
            new Segment(2L * MIB, MIB, 0, 2, 0, 2),
            new Segment(3L * MIB, 10, 0, 3, 0, 3));
    assertThat(segments.get(0).address()).isEqualTo(new ChunkAddress(0, 0, MIB - 10, 0));
    assertThat(segments.get(3).fileEnd()).isEqualTo(3L * MIB + 10);
  }

  @Test
  void iterableCanBeWalkedTwiceAndIteratorEnds() {
    Layout layout = Layout.of(4 * KIB, 2, 8 * KIB, 1);
    Iterable<Segment> segments = layout.segments(100, 10_000);
    List<Segment> first = new ArrayList<>();
    List<Segment> second = new ArrayList<>();
    segments.forEach(first::add);
    segments.forEach(second::add);
    assertThat(first).hasSize(3).isEqualTo(second);

    Iterator<Segment> it = layout.segments(0, 1).iterator();
    it.next();
    assertThat(it.hasNext()).isFalse();
    assertThatThrownBy(it::next).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void argumentsAreCheckedWhenCalled() {
    Layout layout = Layout.defaults(4);
    assertThatThrownBy(() -> layout.segments(0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("length must be >= 0: -1");
    assertThatThrownBy(() -> layout.segments(1, Long.MAX_VALUE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Long.MAX_VALUE");
    assertThatThrownBy(() -> layout.segments(Long.MAX_VALUE, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Long.MAX_VALUE");
  }

  @Test
  void segmentRejectsInvalidComponents() {
    assertThatThrownBy(() -> new Segment(0, 0, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Segment(-1, 1, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Segment(0, 1, 0, 0, 0, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Segments cover [start, start + length) exactly once, in order; none crosses a stripe unit; each
   * is maximal (it starts and ends at the range ends or unit boundaries); each maps to contiguous
   * bytes of one chunk as {@link Layout#locate} says.
   */
  private static void checkCover(Layout layout, long start, long length) {
    long su = layout.stripeUnit();
    long end = start + length;
    long pos = start;
    long count = 0;
    for (Segment s : layout.segments(start, length)) {
      String where = "range [" + start + ", " + end + ") segment " + s;
      assertThat(s.fileOffset()).as(where).isEqualTo(pos);
      assertThat(s.fileEnd()).as(where).isLessThanOrEqualTo(end);
      assertThat(s.fileOffset() / su).as(where).isEqualTo((s.fileEnd() - 1) / su);
      assertThat(s.fileOffset() == start || s.fileOffset() % su == 0).as(where).isTrue();
      assertThat(s.fileEnd() == end || s.fileEnd() % su == 0).as(where).isTrue();
      assertThat(s.address()).as(where).isEqualTo(layout.locate(s.fileOffset()));
      ChunkAddress last = layout.locate(s.fileEnd() - 1);
      assertThat(last.chunkIndex()).as(where).isEqualTo(s.chunkIndex());
      assertThat(last.offsetInChunk()).as(where).isEqualTo(s.offsetInChunk() + s.length() - 1);
      pos = s.fileEnd();
      count++;
    }
    assertThat(pos).isEqualTo(end);
    long units = length == 0 ? 0 : (end - 1) / su - start / su + 1;
    assertThat(count).as("segments of [%d, %d)", start, end).isEqualTo(units);
  }
}
