package io.braidfs.common.layout;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The layouts every parameterized layout test runs over, and helpers shared by those tests. */
final class LayoutGrid {
  static final int KIB = 1 << 10;
  static final int MIB = 1 << 20;
  static final int[] STRIPE_UNITS = {4 * KIB, 64 * KIB, MIB, 4 * MIB};
  static final int[] UNITS_PER_CHUNK = {1, 2, 3, 16};
  static final int MAX_WIDTH = 8;

  private LayoutGrid() {}

  /** Widths 1-8 x stripe units 4 KiB, 64 KiB, 1 MiB, 4 MiB x 1, 2, 3, 16 units per chunk. */
  static Stream<Layout> layouts() {
    List<Layout> all = new ArrayList<>();
    for (int width = 1; width <= MAX_WIDTH; width++) {
      for (int unit : STRIPE_UNITS) {
        for (int units : UNITS_PER_CHUNK) {
          all.add(Layout.of(unit, width, (long) unit * units, 1));
        }
      }
    }
    return all.stream();
  }

  /**
   * Every interesting offset of the first {@code sets} chunk sets: each stripe-unit boundary and
   * its neighbours (so 0, su-1, su, su+1, each chunk's last byte, each set's last byte and the next
   * set's first byte), and the middle of each unit.
   */
  static long[] boundaries(Layout layout, int sets) {
    long su = layout.stripeUnit();
    long units = layout.unitsPerChunk() * layout.stripeWidth() * sets;
    long limit = layout.chunkSetSpan() * sets;
    List<Long> offsets = new ArrayList<>();
    for (long k = 0; k <= units; k++) {
      for (long off : new long[] {k * su - 1, k * su, k * su + 1, k * su + su / 2}) {
        if (off >= 0 && off <= limit) {
          offsets.add(off);
        }
      }
    }
    return offsets.stream().mapToLong(Long::longValue).distinct().toArray();
  }
}
