package io.braidfs.common.layout;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * How a file's bytes are striped over chunks (ARCHITECTURE section 5), and the math that maps file
 * offsets to chunk offsets and back.
 *
 * <p>A file is cut into stripe units of {@link #stripeUnit()} bytes. Units are dealt round-robin
 * over the {@link #stripeWidth()} chunks of a <em>chunk set</em>, one row of units at a time, until
 * each chunk of the set holds {@link #chunkSize()} bytes; the next unit starts the next chunk set.
 * For byte {@code b}:
 *
 * <pre>{@code
 * u            = b / stripeUnit                        // stripe unit of the file
 * unitsPerSet  = stripeWidth * (chunkSize / stripeUnit)
 * chunkSet     = u / unitsPerSet
 * chunkInSet   = (u mod unitsPerSet) mod stripeWidth
 * row          = (u mod unitsPerSet) / stripeWidth    // unit index inside the chunk
 * offsetInChunk = row * stripeUnit + b mod stripeUnit
 * chunkIndex   = chunkSet * stripeWidth + chunkInSet  // global, as the MDS and tokens name it
 * }</pre>
 *
 * <p>Width 1 with large chunks behaves like HDFS blocks; wider layouts spread one client's
 * sequential I/O over several servers. {@link #replication()} does not affect the math; it travels
 * with the layout because both are chosen together per directory or file.
 *
 * <p>Overflow: every non-negative {@code long} is a valid file offset. The limits on the fields
 * keep {@code chunkSetSpan()} at most 2^48 bytes, so intermediate products never overflow; the
 * inverse mapping rejects addresses whose file offset would exceed {@link Long#MAX_VALUE}.
 *
 * <p>Thread-safety: immutable.
 */
public final class Layout {
  /** The smallest stripe unit, 4 KiB: the page size, below which striping only adds overhead. */
  public static final int MIN_STRIPE_UNIT = 4 << 10;

  /** The largest stripe unit, 64 MiB. */
  public static final int MAX_STRIPE_UNIT = 64 << 20;

  /** The most chunks in one chunk set. */
  public static final int MAX_STRIPE_WIDTH = 256;

  /**
   * The largest chunk, 1 TiB. Far above any sensible chunk, it catches unit mistakes and bounds
   * {@code chunkSetSpan()} (with {@link #MAX_STRIPE_WIDTH}) to 2^48 bytes.
   */
  public static final long MAX_CHUNK_SIZE = 1L << 40;

  /** The most replicas of each chunk. */
  public static final int MAX_REPLICATION = 16;

  /** The default stripe unit, 1 MiB. */
  public static final int DEFAULT_STRIPE_UNIT = 1 << 20;

  /** The default chunk size, 64 MiB. */
  public static final long DEFAULT_CHUNK_SIZE = 64L << 20;

  /** {@link #defaults} uses this width, or the number of data servers if that is smaller. */
  public static final int DEFAULT_STRIPE_WIDTH = 4;

  /** {@link #defaults} uses this replication, or the number of data servers if smaller. */
  public static final int DEFAULT_REPLICATION = 3;

  private final int stripeUnit;
  private final int stripeWidth;
  private final long chunkSize;
  private final int replication;

  // Derived once; stripeUnit is a power of two, so division by it is a shift and mod is a mask.
  private final int unitShift;
  private final long unitMask;
  private final long unitsPerChunk;
  private final long unitsPerSet;
  private final long chunkSetSpan;

  private Layout(int stripeUnit, int stripeWidth, long chunkSize, int replication) {
    this.stripeUnit = stripeUnit;
    this.stripeWidth = stripeWidth;
    this.chunkSize = chunkSize;
    this.replication = replication;
    this.unitShift = Integer.numberOfTrailingZeros(stripeUnit);
    this.unitMask = stripeUnit - 1L;
    this.unitsPerChunk = chunkSize >>> unitShift;
    this.unitsPerSet = unitsPerChunk * stripeWidth;
    this.chunkSetSpan = chunkSize * stripeWidth;
  }

  /**
   * A layout with the given parameters.
   *
   * @param stripeUnit bytes per stripe unit
   * @param stripeWidth chunks per chunk set
   * @param chunkSize bytes per chunk
   * @param replication replicas per chunk
   * @throws IllegalArgumentException if {@code stripeUnit} is not a power of two in [{@value
   *     #MIN_STRIPE_UNIT}, {@value #MAX_STRIPE_UNIT}]
   * @throws IllegalArgumentException if {@code stripeWidth} is not in [1, {@value
   *     #MAX_STRIPE_WIDTH}]
   * @throws IllegalArgumentException if {@code chunkSize} is not a positive multiple of {@code
   *     stripeUnit} of at most {@link #MAX_CHUNK_SIZE}
   * @throws IllegalArgumentException if {@code replication} is not in [1, {@value
   *     #MAX_REPLICATION}]
   */
  public static Layout of(int stripeUnit, int stripeWidth, long chunkSize, int replication) {
    if (stripeUnit < MIN_STRIPE_UNIT
        || stripeUnit > MAX_STRIPE_UNIT
        || Integer.bitCount(stripeUnit) != 1) {
      throw new IllegalArgumentException(
          String.format(
              "stripeUnit must be a power of two in [%d, %d] bytes: %d",
              MIN_STRIPE_UNIT, MAX_STRIPE_UNIT, stripeUnit));
    }
    if (stripeWidth < 1 || stripeWidth > MAX_STRIPE_WIDTH) {
      throw new IllegalArgumentException(
          "stripeWidth must be in [1, " + MAX_STRIPE_WIDTH + "]: " + stripeWidth);
    }
    if (chunkSize <= 0 || chunkSize > MAX_CHUNK_SIZE || chunkSize % stripeUnit != 0) {
      throw new IllegalArgumentException(
          String.format(
              "chunkSize must be a positive multiple of stripeUnit (%d) of at most %d bytes: %d",
              stripeUnit, MAX_CHUNK_SIZE, chunkSize));
    }
    if (replication < 1 || replication > MAX_REPLICATION) {
      throw new IllegalArgumentException(
          "replication must be in [1, " + MAX_REPLICATION + "]: " + replication);
    }
    return new Layout(stripeUnit, stripeWidth, chunkSize, replication);
  }

  /**
   * The default layout for a cluster of {@code dataServers} data servers: stripe unit {@value
   * #DEFAULT_STRIPE_UNIT} bytes, chunk {@value #DEFAULT_CHUNK_SIZE} bytes, width {@code min(4,
   * dataServers)} and replication {@code min(3, dataServers)}.
   *
   * @throws IllegalArgumentException if {@code dataServers < 1}
   */
  public static Layout defaults(int dataServers) {
    if (dataServers < 1) {
      throw new IllegalArgumentException("dataServers must be >= 1: " + dataServers);
    }
    return of(
        DEFAULT_STRIPE_UNIT,
        Math.min(DEFAULT_STRIPE_WIDTH, dataServers),
        DEFAULT_CHUNK_SIZE,
        Math.min(DEFAULT_REPLICATION, dataServers));
  }

  /**
   * A builder with the default stripe unit and chunk size; the stripe width and replication have no
   * default (they depend on the cluster, see {@link #defaults}) and must be set.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this layout's parameters, to derive a changed copy. */
  public Builder toBuilder() {
    return new Builder()
        .stripeUnit(stripeUnit)
        .stripeWidth(stripeWidth)
        .chunkSize(chunkSize)
        .replication(replication);
  }

  /** Bytes per stripe unit: a power of two. */
  public int stripeUnit() {
    return stripeUnit;
  }

  /** Chunks per chunk set. */
  public int stripeWidth() {
    return stripeWidth;
  }

  /** Bytes per chunk: a multiple of the stripe unit. */
  public long chunkSize() {
    return chunkSize;
  }

  /** Replicas per chunk. */
  public int replication() {
    return replication;
  }

  /** Stripe units per chunk, {@code chunkSize / stripeUnit}. */
  public long unitsPerChunk() {
    return unitsPerChunk;
  }

  /** Bytes of file covered by one chunk set, {@code stripeWidth * chunkSize}. */
  public long chunkSetSpan() {
    return chunkSetSpan;
  }

  /**
   * Where byte {@code fileOffset} of a file lives.
   *
   * @throws IllegalArgumentException if {@code fileOffset < 0}
   */
  public ChunkAddress locate(long fileOffset) {
    checkNonNegative("fileOffset", fileOffset);
    long unit = fileOffset >>> unitShift;
    long chunkSet = unit / unitsPerSet;
    long unitInSet = unit - chunkSet * unitsPerSet;
    int chunkInSet = (int) (unitInSet % stripeWidth);
    long row = unitInSet / stripeWidth;
    return new ChunkAddress(
        chunkSet,
        chunkInSet,
        (row << unitShift) | (fileOffset & unitMask),
        chunkSet * stripeWidth + chunkInSet);
  }

  /**
   * The file offset stored at {@code offsetInChunk} of the given chunk: the inverse of {@link
   * #locate}.
   *
   * @throws IllegalArgumentException if {@code chunkSet < 0}
   * @throws IllegalArgumentException if {@code chunkInSet} is not in {@code [0, stripeWidth)}
   * @throws IllegalArgumentException if {@code offsetInChunk} is not in {@code [0, chunkSize)}
   * @throws IllegalArgumentException if the file offset would exceed {@link Long#MAX_VALUE}
   */
  public long fileOffset(long chunkSet, int chunkInSet, long offsetInChunk) {
    checkNonNegative("chunkSet", chunkSet);
    checkChunkInSet(chunkInSet);
    if (offsetInChunk < 0 || offsetInChunk >= chunkSize) {
      throw new IllegalArgumentException(
          "offsetInChunk must be in [0, " + chunkSize + "): " + offsetInChunk);
    }
    long row = offsetInChunk >>> unitShift;
    long offsetInSet = ((row * stripeWidth + chunkInSet) << unitShift) | (offsetInChunk & unitMask);
    if (chunkSet > (Long.MAX_VALUE - offsetInSet) / chunkSetSpan) {
      throw new IllegalArgumentException(
          "chunk set " + chunkSet + " lies beyond the largest file offset, Long.MAX_VALUE");
    }
    return chunkSet * chunkSetSpan + offsetInSet;
  }

  /**
   * The file offset of {@code address}: the inverse of {@link #locate}.
   *
   * @throws IllegalArgumentException if {@code address.chunkIndex()} is not {@code chunkSet *
   *     stripeWidth + chunkInSet} for this layout (the address came from another layout)
   * @throws IllegalArgumentException for the same reasons as {@link #fileOffset(long, int, long)}
   */
  public long fileOffset(ChunkAddress address) {
    checkChunkInSet(address.chunkInSet());
    // Compared by division so that a huge chunkSet cannot overflow the product.
    if (address.chunkIndex() / stripeWidth != address.chunkSet()
        || address.chunkIndex() % stripeWidth != address.chunkInSet()) {
      throw new IllegalArgumentException(
          "chunk index does not match chunk set and position for width "
              + stripeWidth
              + ": "
              + address);
    }
    return fileOffset(address.chunkSet(), address.chunkInSet(), address.offsetInChunk());
  }

  /**
   * The number of chunk sets that hold data of a file of {@code fileLength} bytes.
   *
   * @throws IllegalArgumentException if {@code fileLength < 0}
   */
  public long chunkSetCount(long fileLength) {
    checkNonNegative("fileLength", fileLength);
    return fileLength / chunkSetSpan + (fileLength % chunkSetSpan == 0 ? 0 : 1);
  }

  /**
   * How many bytes the given chunk holds for a file of {@code fileLength} bytes: {@link
   * #chunkSize()} for chunks wholly inside the file, 0 for chunks past its end, and the stored
   * length (the bytes up to its last written offset) in between. Summed over all chunks this is
   * {@code fileLength}.
   *
   * @throws IllegalArgumentException if {@code fileLength < 0} or {@code chunkSet < 0}
   * @throws IllegalArgumentException if {@code chunkInSet} is not in {@code [0, stripeWidth)}
   */
  public long chunkLength(long fileLength, long chunkSet, int chunkInSet) {
    checkNonNegative("fileLength", fileLength);
    checkNonNegative("chunkSet", chunkSet);
    checkChunkInSet(chunkInSet);
    long fullSets = fileLength / chunkSetSpan;
    if (chunkSet < fullSets) {
      return chunkSize;
    }
    if (chunkSet > fullSets) {
      return 0;
    }
    // The last, partial set: fullUnits whole units, then a partial unit in chunk (fullUnits mod
    // width). Chunk c holds one unit per completed row plus one if c comes before that point.
    long inSet = fileLength - fullSets * chunkSetSpan;
    long fullUnits = inSet >>> unitShift;
    long rows = fullUnits / stripeWidth;
    int nextChunk = (int) (fullUnits % stripeWidth);
    long units = rows + (chunkInSet < nextChunk ? 1 : 0);
    long partial = chunkInSet == nextChunk ? inSet & unitMask : 0;
    return (units << unitShift) + partial;
  }

  /**
   * The range {@code [fileOffset, fileOffset + length)} cut into segments at every stripe-unit
   * boundary, in file order. Each segment is the largest piece that stays inside one stripe unit
   * (and so one chunk); adjacent segments are in different chunks unless the width is 1.
   *
   * <p>The iterable is lazy: each iteration computes segments one at a time, allocating only the
   * segments themselves, so a range of any size costs constant memory. The arguments are checked
   * here, not when iterating.
   *
   * @throws IllegalArgumentException if {@code fileOffset < 0} or {@code length < 0}
   * @throws IllegalArgumentException if {@code fileOffset + length} exceeds {@link Long#MAX_VALUE}
   */
  public Iterable<Segment> segments(long fileOffset, long length) {
    checkNonNegative("fileOffset", fileOffset);
    checkNonNegative("length", length);
    if (length > Long.MAX_VALUE - fileOffset) {
      throw new IllegalArgumentException(
          "range end exceeds Long.MAX_VALUE: fileOffset=" + fileOffset + ", length=" + length);
    }
    long end = fileOffset + length;
    return () -> new SegmentIterator(fileOffset, end);
  }

  /** The segment starting at {@code pos}, ending at the unit boundary or at {@code end}. */
  private Segment segmentAt(long pos, long end) {
    // The same math as locate(), repeated so that a segment costs one allocation, not two.
    long unit = pos >>> unitShift;
    long chunkSet = unit / unitsPerSet;
    long unitInSet = unit - chunkSet * unitsPerSet;
    int chunkInSet = (int) (unitInSet % stripeWidth);
    long row = unitInSet / stripeWidth;
    long inUnit = pos & unitMask;
    int length = (int) Math.min(stripeUnit - inUnit, end - pos);
    return new Segment(
        pos,
        length,
        chunkSet,
        chunkInSet,
        (row << unitShift) | inUnit,
        chunkSet * stripeWidth + chunkInSet);
  }

  private void checkChunkInSet(int chunkInSet) {
    if (chunkInSet < 0 || chunkInSet >= stripeWidth) {
      throw new IllegalArgumentException(
          "chunkInSet must be in [0, " + stripeWidth + "): " + chunkInSet);
    }
  }

  private static void checkNonNegative(String name, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be >= 0: " + value);
    }
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Layout)) {
      return false;
    }
    Layout other = (Layout) o;
    return stripeUnit == other.stripeUnit
        && stripeWidth == other.stripeWidth
        && chunkSize == other.chunkSize
        && replication == other.replication;
  }

  @Override
  public int hashCode() {
    int h = stripeUnit;
    h = 31 * h + stripeWidth;
    h = 31 * h + Long.hashCode(chunkSize);
    return 31 * h + replication;
  }

  /** For example {@code Layout[stripeUnit=1MiB, stripeWidth=4, chunkSize=64MiB, replication=3]}. */
  @Override
  public String toString() {
    return "Layout[stripeUnit="
        + formatBytes(stripeUnit)
        + ", stripeWidth="
        + stripeWidth
        + ", chunkSize="
        + formatBytes(chunkSize)
        + ", replication="
        + replication
        + "]";
  }

  /** Sizes here are multiples of 4 KiB, so the largest exact binary unit is always KiB or more. */
  private static String formatBytes(long bytes) {
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    String text = bytes + "B";
    long value = bytes;
    for (String unit : units) {
      if (value % 1024 != 0) {
        break;
      }
      value /= 1024;
      text = value + unit;
    }
    return text;
  }

  /** Walks a range; the state is just the next file offset. */
  private final class SegmentIterator implements Iterator<Segment> {
    private long pos;
    private final long end;

    SegmentIterator(long pos, long end) {
      this.pos = pos;
      this.end = end;
    }

    @Override
    public boolean hasNext() {
      return pos < end;
    }

    @Override
    public Segment next() {
      if (pos >= end) {
        throw new NoSuchElementException("no segment after file offset " + end);
      }
      Segment segment = segmentAt(pos, end);
      pos += segment.length();
      return segment;
    }
  }

  /**
   * Collects layout parameters; {@link #build} validates them all at once.
   *
   * <p>Thread-safety: not thread-safe; confine a builder to one thread.
   */
  public static final class Builder {
    private int stripeUnit = DEFAULT_STRIPE_UNIT;
    private int stripeWidth;
    private long chunkSize = DEFAULT_CHUNK_SIZE;
    private int replication;
    private boolean stripeWidthSet;
    private boolean replicationSet;

    private Builder() {}

    /** Bytes per stripe unit; checked by {@link #build}. */
    public Builder stripeUnit(int stripeUnit) {
      this.stripeUnit = stripeUnit;
      return this;
    }

    /** Chunks per chunk set; required; checked by {@link #build}. */
    public Builder stripeWidth(int stripeWidth) {
      this.stripeWidth = stripeWidth;
      this.stripeWidthSet = true;
      return this;
    }

    /** Bytes per chunk; checked by {@link #build}. */
    public Builder chunkSize(long chunkSize) {
      this.chunkSize = chunkSize;
      return this;
    }

    /** Replicas per chunk; required; checked by {@link #build}. */
    public Builder replication(int replication) {
      this.replication = replication;
      this.replicationSet = true;
      return this;
    }

    /**
     * The layout.
     *
     * @throws IllegalStateException if the stripe width or the replication was not set
     * @throws IllegalArgumentException for the reasons listed on {@link Layout#of}
     */
    public Layout build() {
      if (!stripeWidthSet) {
        throw new IllegalStateException("stripeWidth is not set");
      }
      if (!replicationSet) {
        throw new IllegalStateException("replication is not set");
      }
      return of(stripeUnit, stripeWidth, chunkSize, replication);
    }
  }
}
