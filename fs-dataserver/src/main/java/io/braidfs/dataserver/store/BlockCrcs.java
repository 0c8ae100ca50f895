package io.braidfs.dataserver.store;

import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A replica's CRC32C per 64 KiB block, held in memory (so reads never read the meta file) and
 * written through to the meta file on every change. The array only grows; entries past the
 * replica's block count are stale and never used.
 *
 * <p>Thread-safety: not thread-safe; guarded by the owning {@link Replica}'s lock.
 */
final class BlockCrcs {
  private static final int BLOCK = Checksums.BLOCK_SIZE;

  /** The CRC of a whole block of zeros: what every block inside a hole has. */
  private static final int ZERO_BLOCK_CRC = Checksums.blockCrcs(ByteBuffer.allocate(BLOCK))[0];

  private final ReplicaFiles files;
  private int[] crcs;

  BlockCrcs(ReplicaFiles files, int[] crcs) {
    this.files = files;
    this.crcs = crcs;
  }

  /** The stored CRC of block {@code b}. */
  int get(int b) {
    return crcs[b];
  }

  /** The CRCs of blocks {@code [from, to)}. */
  int[] copy(int from, int to) {
    return Arrays.copyOfRange(crcs, from, to);
  }

  /**
   * The first block whose bytes a write at {@code offset} changes: the written block, or the old
   * last block if it was partial and the write leaves a hole after it (its tail becomes zeros).
   */
  static int firstChanged(long offset, long oldLength) {
    int oldBlocks = blockCount(oldLength);
    return Math.min(blockOf(offset), oldLength % BLOCK == 0 ? oldBlocks : oldBlocks - 1);
  }

  /**
   * Computes, persists and installs the CRCs of the blocks that writing {@code [offset, end)}
   * (already in the data file) changed. Blocks the write covers whole take the caller's piece CRCs;
   * blocks it covers in part are read back; blocks in the hole it leaves get the zero-block CRC. On
   * failure nothing is installed (the meta file may hold some of the new CRCs).
   */
  void afterWrite(long offset, long end, long oldLength, int[] pieceCrcs) throws IOException {
    int from = firstChanged(offset, oldLength);
    int to = blockCount(end);
    long newLength = Math.max(oldLength, end);
    int[] updated = new int[to - from];
    for (int b = from; b < to; b++) {
      updated[b - from] = crcAfterWrite(b, offset, end, oldLength, newLength, pieceCrcs);
    }
    files.writeCrcs(from, updated, 0, updated.length);
    if (to > crcs.length) {
      crcs = Arrays.copyOf(crcs, Math.max(to, 2 * crcs.length));
    }
    System.arraycopy(updated, 0, crcs, from, updated.length);
  }

  /** The CRC of block {@code b} after {@code [offset, end)} was written. */
  private int crcAfterWrite(
      int b, long offset, long end, long oldLength, long newLength, int[] pieceCrcs)
      throws IOException {
    long start = (long) b * BLOCK;
    int blockLength = blockLength(b, newLength);
    int firstBlock = blockOf(offset);
    if (b < firstBlock && start >= oldLength) {
      return ZERO_BLOCK_CRC; // wholly inside the hole before the write
    }
    if (b >= firstBlock && offset <= start && Math.min(end, start + BLOCK) == start + blockLength) {
      return pieceCrcs[b - firstBlock]; // the write covers the whole block
    }
    return files.blockCrc(b, blockLength); // covered in part: the block's other bytes count too
  }

  /**
   * Recomputes blocks {@code [from, blockCount(length))} from the data file and persists them: the
   * repair after a write that failed part-way.
   */
  void recomputeFrom(int from, long length) throws IOException {
    int blocks = blockCount(length);
    for (int b = from; b < blocks; b++) {
      crcs[b] = files.blockCrc(b, blockLength(b, length));
    }
    if (from < blocks) {
      files.writeCrcs(from, crcs, from, blocks - from);
    }
  }

  /**
   * Drops the CRCs past {@code newLength} (the data file is already cut there) and recomputes the
   * last block's if the cut falls inside it.
   */
  void cut(long newLength) throws IOException {
    int blocks = blockCount(newLength);
    if (newLength % BLOCK != 0) {
      int last = blocks - 1;
      crcs[last] = files.blockCrc(last, blockLength(last, newLength));
      files.writeCrcs(last, crcs, last, 1);
    }
    files.truncateMeta(blocks);
  }

  /**
   * One CRC per {@code pieceSize} bytes of {@code [0, covered)} of a replica of {@code total}
   * bytes, {@code pieceSize} a multiple or a divisor of the block size. A block that {@code
   * covered} cuts is read: its stored CRC covers more.
   */
  int[] pieces(long covered, long total, int pieceSize) throws IOException {
    if (pieceSize < BLOCK) {
      return subBlockPieces(covered, total, pieceSize);
    }
    int blocksPerPiece = pieceSize / BLOCK;
    int blocks = blockCount(covered);
    int[] blockCrcs = Arrays.copyOf(crcs, blocks);
    if (blocks > 0 && blockLength(blocks - 1, covered) != blockLength(blocks - 1, total)) {
      blockCrcs[blocks - 1] = files.blockCrc(blocks - 1, blockLength(blocks - 1, covered));
    }
    int pieces = (int) ((blocks + (long) blocksPerPiece - 1) / blocksPerPiece);
    int[] result = new int[pieces];
    for (int p = 0; p < pieces; p++) {
      int first = p * blocksPerPiece;
      int last = (int) Math.min((long) first + blocksPerPiece, blocks);
      int crc = blockCrcs[first];
      for (int b = first + 1; b < last; b++) {
        crc = Checksums.combine(crc, blockCrcs[b], blockLength(b, covered));
      }
      result[p] = crc;
    }
    return result;
  }

  /**
   * Pieces smaller than a block (striping with stripe units under 64 KiB): the stored CRCs cannot
   * be split, so each block is read, checked against its stored CRC (these CRCs leave the server in
   * place of the data, so corrupt bytes must not become a plausible checksum), and cut.
   */
  private int[] subBlockPieces(long covered, long total, int pieceSize) throws IOException {
    int[] result = new int[(int) ((covered + pieceSize - 1) / pieceSize)];
    int perBlock = BLOCK / pieceSize;
    CRC32C crc = new CRC32C();
    for (int b = 0; b < blockCount(covered); b++) {
      ByteBuffer block = files.readBlock(b, blockLength(b, total));
      crc.reset();
      crc.update(block.duplicate());
      if ((int) crc.getValue() != crcs[b]) {
        throw StatusExceptions.toIOException(
            Status.CHECKSUM_MISMATCH,
            "block " + b + " of " + files.dataPath() + " does not match its stored CRC");
      }
      int inBlock = blockLength(b, covered);
      for (int at = 0; at < inBlock; at += pieceSize) {
        crc.reset();
        crc.update(block.slice(at, Math.min(pieceSize, inBlock - at)));
        result[b * perBlock + at / pieceSize] = (int) crc.getValue();
      }
    }
    return result;
  }

  static int blockOf(long offset) {
    return (int) (offset / BLOCK);
  }

  static int blockCount(long length) {
    return (int) Checksums.blockCount(length);
  }

  /** The length of block {@code b} of a replica of {@code length} bytes. */
  static int blockLength(int b, long length) {
    long start = (long) b * BLOCK;
    return (int) (Math.min(start + BLOCK, length) - start);
  }
}
