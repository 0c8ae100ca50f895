package io.braidfs.common.checksum;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli) checksums of data, one per {@value #BLOCK_SIZE}-byte block, and CRC
 * combination.
 *
 * <p><b>Blocks.</b> A region is cut into blocks of {@link #BLOCK_SIZE} bytes from its first byte;
 * the last block may be shorter. Regions must therefore start on a block boundary of whatever they
 * are part of (normally a chunk), so that the writer, every replica and the reader agree on the
 * blocks. The CRCs use {@link CRC32C}, which the JIT compiles to the CPU's CRC32C instructions, and
 * read direct buffers in place.
 *
 * <p><b>Combination.</b> {@link #combine} computes {@code crc(A || B)} from {@code crc(A)}, {@code
 * crc(B)} and the length of {@code B} alone. With it a checksum of a whole file can be composed
 * from the stored block CRCs of its chunks, whatever the layout (the HDFS {@code COMPOSITE_CRC}
 * idea), so two files with equal bytes have equal checksums even if striped differently.
 *
 * <p>CRCs are returned as {@code int}s holding the 32-bit value; compare them with {@code ==} and
 * print them with {@code Integer.toHexString}.
 *
 * <p>Thread-safety: stateless; every method is safe to call from any thread. Buffers passed in are
 * borrowed: they are read, never released, and their indices are left unchanged, but they must not
 * be written concurrently.
 */
public final class Checksums {
  /** Bytes covered by one stored CRC: 64 KiB. */
  public static final int BLOCK_SIZE = 65536;

  /** The Castagnoli polynomial 0x1EDC6F41, bit-reversed as CRC32C processes bits LSB first. */
  private static final int POLY = 0x82F63B78;

  /**
   * {@code X2N[k] = x^(2^k) mod P} in the reflected representation. 66 entries cover shifts up to
   * {@code 8 * Long.MAX_VALUE} bits without assuming that the sequence is periodic.
   */
  private static final int[] X2N = powersOfX(66);

  /** {@code x^(8 * BLOCK_SIZE) mod P}: the shift that appending one full block applies. */
  private static final int BLOCK_SHIFT = xPowModP(BLOCK_SIZE);

  private Checksums() {}

  /**
   * The number of blocks, so of CRCs, for a region of {@code length} bytes: {@code ceil(length /
   * BLOCK_SIZE)}.
   *
   * @throws IllegalArgumentException if {@code length < 0}
   */
  public static long blockCount(long length) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0: " + length);
    }
    return length / BLOCK_SIZE + (length % BLOCK_SIZE == 0 ? 0 : 1);
  }

  /**
   * The CRC32C of each block of the bytes between {@code region}'s position and limit. The buffer's
   * position, limit and mark are unchanged.
   */
  public static int[] blockCrcs(ByteBuffer region) {
    return crcs(new ByteBuffer[] {region.duplicate()}, region.remaining());
  }

  /**
   * The CRC32C of each block of {@code region}'s readable bytes. Borrows {@code region}: its
   * indices and reference count are unchanged. Direct and composite buffers are read through their
   * NIO views without copying; a block may span several components.
   */
  public static int[] blockCrcs(ByteBuf region) {
    return crcs(nioBuffers(region), region.readableBytes());
  }

  /**
   * Checks the bytes between {@code region}'s position and limit against {@code expected}, one CRC
   * per block. The buffer's position, limit and mark are unchanged.
   *
   * @param regionOffset the offset of the region's first byte in the chunk (or whatever the CRCs
   *     cover); only used to report where a mismatch is
   * @return empty if every block matches, otherwise the first block that does not
   * @throws IllegalArgumentException if {@code expected.length} is not {@code
   *     blockCount(region.remaining())}
   * @throws IllegalArgumentException if {@code regionOffset} is negative or not a multiple of
   *     {@link #BLOCK_SIZE}, or the region's end would exceed {@link Long#MAX_VALUE}
   */
  public static Optional<ChecksumMismatch> verify(
      ByteBuffer region, long regionOffset, int[] expected) {
    checkVerifyArguments(region.remaining(), regionOffset, expected);
    return firstMismatch(blockCrcs(region), regionOffset, expected);
  }

  /**
   * Checks {@code region}'s readable bytes against {@code expected}, one CRC per block. Borrows
   * {@code region}: its indices and reference count are unchanged.
   *
   * @param regionOffset the offset of the region's first byte in the chunk (or whatever the CRCs
   *     cover); only used to report where a mismatch is
   * @return empty if every block matches, otherwise the first block that does not
   * @throws IllegalArgumentException if {@code expected.length} is not {@code
   *     blockCount(region.readableBytes())}
   * @throws IllegalArgumentException if {@code regionOffset} is negative or not a multiple of
   *     {@link #BLOCK_SIZE}, or the region's end would exceed {@link Long#MAX_VALUE}
   */
  public static Optional<ChecksumMismatch> verify(
      ByteBuf region, long regionOffset, int[] expected) {
    checkVerifyArguments(region.readableBytes(), regionOffset, expected);
    return firstMismatch(blockCrcs(region), regionOffset, expected);
  }

  /**
   * The number of pieces a region of {@code length} bytes starting at {@code regionOffset} is cut
   * into at block boundaries of its container (the chunk): the blocks it touches.
   *
   * @throws IllegalArgumentException if an argument is negative
   */
  public static long pieceCount(long regionOffset, long length) {
    if (regionOffset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "regionOffset and length must be >= 0: " + regionOffset + ", " + length);
    }
    if (length == 0) {
      return 0;
    }
    return (regionOffset + length - 1) / BLOCK_SIZE - regionOffset / BLOCK_SIZE + 1;
  }

  /**
   * The CRC32C of each piece of {@code region}'s readable bytes, cut at the block boundaries of the
   * container the region starts in at {@code regionOffset}: the first piece runs from the region's
   * start to the next boundary, the last may be short. This is how a write that starts inside a
   * block is checksummed on the wire. Borrows {@code region}.
   *
   * @throws IllegalArgumentException if {@code regionOffset} is negative
   */
  public static int[] pieceCrcs(ByteBuf region, long regionOffset) {
    if (regionOffset < 0) {
      throw new IllegalArgumentException("regionOffset must be >= 0: " + regionOffset);
    }
    int length = region.readableBytes();
    int first = (int) (regionOffset % BLOCK_SIZE);
    return crcs(nioBuffers(region), length, first, (int) pieceCount(regionOffset, length));
  }

  /**
   * Checks {@code region}'s readable bytes, which start at {@code regionOffset} in their container,
   * against one expected CRC per piece as {@link #pieceCrcs} cuts them. Borrows {@code region}.
   *
   * @return empty if every piece matches, otherwise the first piece that does not ({@link
   *     ChecksumMismatch#offset()} is then the piece's offset in the container)
   * @throws IllegalArgumentException if {@code expected.length} is not the piece count
   */
  public static Optional<ChecksumMismatch> verifyPieces(
      ByteBuf region, long regionOffset, int[] expected) {
    long pieces = pieceCount(regionOffset, region.readableBytes());
    if (expected.length != pieces) {
      throw new IllegalArgumentException(
          region.readableBytes()
              + " bytes at offset "
              + regionOffset
              + " make "
              + pieces
              + " pieces, but "
              + expected.length
              + " CRCs were given");
    }
    int[] actual = pieceCrcs(region, regionOffset);
    for (int i = 0; i < actual.length; i++) {
      if (actual[i] != expected[i]) {
        long offset = i == 0 ? regionOffset : (regionOffset / BLOCK_SIZE + i) * (long) BLOCK_SIZE;
        return Optional.of(new ChecksumMismatch(i, offset, expected[i], actual[i]));
      }
    }
    return Optional.empty();
  }

  /**
   * The CRC32C of the concatenation {@code A || B}, given {@code crcA = crc32c(A)}, {@code crcB =
   * crc32c(B)} and {@code lengthB}, the length of {@code B} in bytes. Costs O(log lengthB).
   *
   * @throws IllegalArgumentException if {@code lengthB < 0}
   */
  public static int combine(int crcA, int crcB, long lengthB) {
    if (lengthB < 0) {
      throw new IllegalArgumentException("lengthB must be >= 0: " + lengthB);
    }
    // CRC32C's initial and final inversions cancel between the parts, leaving the linear part:
    // crc(A || B) = crc(A) * x^(8 * |B|) mod P  xor  crc(B).
    return multModP(xPowModP(lengthB), crcA) ^ crcB;
  }

  /**
   * The CRC32C of {@code length} zero bytes, without touching any: a hole in a sparse file reads as
   * zeros, and its CRC is needed to compose a file checksum across it. Costs O(log length).
   *
   * @throws IllegalArgumentException if {@code length < 0}
   */
  public static int zeros(long length) {
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0: " + length);
    }
    // Zero bytes add nothing to the linear part, so only the initial all-ones register, shifted
    // through 8 * length bits, survives, and the final inversion is applied to it.
    return multModP(xPowModP(length), ~0) ^ ~0;
  }

  /**
   * The CRC32C of a whole region, given the CRCs of its blocks as {@link #blockCrcs} returns them
   * and the region's length.
   *
   * @throws IllegalArgumentException if {@code length < 0}
   * @throws IllegalArgumentException if {@code blockCrcs.length} is not {@code blockCount(length)}
   */
  public static int composite(int[] blockCrcs, long length) {
    if (blockCrcs.length != blockCount(length)) {
      throw new IllegalArgumentException(
          "a region of "
              + length
              + " bytes has "
              + blockCount(length)
              + " blocks, not "
              + blockCrcs.length);
    }
    int crc = 0; // the CRC32C of no bytes
    for (int i = 0; i < blockCrcs.length - 1; i++) {
      crc = multModP(BLOCK_SHIFT, crc) ^ blockCrcs[i];
    }
    if (blockCrcs.length > 0) {
      long last = length - (long) (blockCrcs.length - 1) * BLOCK_SIZE;
      crc = combine(crc, blockCrcs[blockCrcs.length - 1], last);
    }
    return crc;
  }

  /** NIO views of the readable bytes; their position and limit are ours to change. */
  private static ByteBuffer[] nioBuffers(ByteBuf region) {
    if (region.nioBufferCount() < 0) {
      // A buffer with no NIO view (none of Netty's own): copy once rather than fail.
      return new ByteBuffer[] {ByteBuffer.wrap(ByteBufUtil.getBytes(region))};
    }
    return region.nioBuffers();
  }

  /** Feeds the pieces, in order, through one CRC32C, cutting a CRC at every block boundary. */
  private static int[] crcs(ByteBuffer[] pieces, int length) {
    return crcs(pieces, length, 0, (int) blockCount(length));
  }

  /**
   * As above, with the region starting {@code first} bytes into its first block, so the first piece
   * is cut short at that block's end.
   */
  private static int[] crcs(ByteBuffer[] pieces, int length, int first, int count) {
    int[] crcs = new int[count];
    CRC32C crc = new CRC32C();
    int block = 0;
    int filled = first; // bytes of the current block fed so far (or skipped, for the first)
    for (ByteBuffer piece : pieces) {
      int limit = piece.limit();
      while (piece.hasRemaining()) {
        int n = Math.min(piece.remaining(), BLOCK_SIZE - filled);
        piece.limit(piece.position() + n);
        crc.update(piece); // advances position to the temporary limit
        piece.limit(limit);
        filled += n;
        if (filled == BLOCK_SIZE) {
          crcs[block++] = (int) crc.getValue();
          crc.reset();
          filled = 0;
        }
      }
    }
    if (filled > (block == 0 ? first : 0)) {
      crcs[block] = (int) crc.getValue();
    }
    return crcs;
  }

  private static void checkVerifyArguments(int length, long regionOffset, int[] expected) {
    if (regionOffset < 0
        || regionOffset % BLOCK_SIZE != 0
        || regionOffset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException(
          "regionOffset must be a non-negative multiple of " + BLOCK_SIZE + ": " + regionOffset);
    }
    if (expected.length != blockCount(length)) {
      throw new IllegalArgumentException(
          "a region of "
              + length
              + " bytes has "
              + blockCount(length)
              + " blocks, but "
              + expected.length
              + " CRCs were given");
    }
  }

  private static Optional<ChecksumMismatch> firstMismatch(
      int[] actual, long regionOffset, int[] expected) {
    for (int i = 0; i < actual.length; i++) {
      if (actual[i] != expected[i]) {
        return Optional.of(
            new ChecksumMismatch(i, regionOffset + (long) i * BLOCK_SIZE, expected[i], actual[i]));
      }
    }
    return Optional.empty();
  }

  // ---- GF(2) polynomial arithmetic modulo P ----------------------------------------------------
  // Polynomials are 32-bit ints in CRC32C's reflected order: bit 31 is x^0, bit 0 is x^31. This is
  // the "x^n mod P" method of zlib 1.2.12's crc32_combine, which replaced the older 32x32 GF(2)
  // matrix squaring with the same result at a fraction of the cost.

  /** {@code a(x) * b(x) mod P}. */
  static int multModP(int a, int b) {
    int product = 0;
    // For each term x^i of a (from x^0 down the bits), add b * x^i; b is multiplied by x (a right
    // shift in reflected order, reduced by P when x^31 overflows) as i grows.
    for (int m = 1 << 31; m != 0; m >>>= 1) {
      if ((a & m) != 0) {
        product ^= b;
      }
      b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
    }
    return product;
  }

  /** {@code x^(8 * bytes) mod P}, from the binary expansion of {@code bytes}. */
  static int xPowModP(long bytes) {
    int p = 1 << 31; // x^0
    int k = 3; // bit j of bytes contributes x^(2^(j + 3)), since 8 = 2^3
    for (long n = bytes; n != 0; n >>>= 1, k++) {
      if ((n & 1) != 0) {
        p = multModP(X2N[k], p);
      }
    }
    return p;
  }

  private static int[] powersOfX(int count) {
    int[] table = new int[count];
    table[0] = 1 << 30; // x^1
    for (int k = 1; k < count; k++) {
      table[k] = multModP(table[k - 1], table[k - 1]);
    }
    return table;
  }
}
