package io.braidfs.common.layout;

/**
 * A brute-force model of a layout for its first few chunk sets: it deals stripe units to chunks one
 * at a time, the way the architecture describes striping, with counters instead of the closed-form
 * division. The tests check {@link Layout}'s math against it.
 */
final class LayoutReference {
  private final long stripeUnit;
  private final int width;
  private final int sets;
  private final long[] unitSet;
  private final int[] unitChunk;
  private final long[] unitRow;

  LayoutReference(Layout layout, int sets) {
    this.stripeUnit = layout.stripeUnit();
    this.width = layout.stripeWidth();
    this.sets = sets;
    int units = Math.toIntExact(layout.unitsPerChunk() * width * sets);
    unitSet = new long[units];
    unitChunk = new int[units];
    unitRow = new long[units];
    long set = 0;
    int chunk = 0;
    long row = 0;
    for (int u = 0; u < units; u++) {
      unitSet[u] = set;
      unitChunk[u] = chunk;
      unitRow[u] = row;
      // Next unit goes to the next chunk of the row; a full row starts the next row; a chunk
      // full of rows starts the next set.
      if (++chunk == width) {
        chunk = 0;
        if (++row == layout.unitsPerChunk()) {
          row = 0;
          set++;
        }
      }
    }
  }

  /** The file bytes the model covers. */
  long coveredBytes() {
    return unitSet.length * stripeUnit;
  }

  ChunkAddress locate(long offset) {
    int u = Math.toIntExact(offset / stripeUnit);
    return new ChunkAddress(
        unitSet[u],
        unitChunk[u],
        unitRow[u] * stripeUnit + offset % stripeUnit,
        unitSet[u] * width + unitChunk[u]);
  }

  /** Bytes per chunk for a file of {@code length} bytes, indexed [set][chunkInSet]. */
  long[][] chunkLengths(long length) {
    long[][] lengths = new long[sets + 1][width];
    for (int u = 0; u < unitSet.length && u * stripeUnit < length; u++) {
      long bytes = Math.min(stripeUnit, length - u * stripeUnit);
      lengths[(int) unitSet[u]][unitChunk[u]] += bytes;
    }
    return lengths;
  }
}
