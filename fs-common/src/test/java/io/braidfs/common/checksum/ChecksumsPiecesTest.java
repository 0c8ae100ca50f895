package io.braidfs.common.checksum;

import static io.braidfs.common.checksum.Checksums.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Piece CRCs of regions that start inside a block (unaligned writes on the wire). */
class ChecksumsPiecesTest {

  @ParameterizedTest
  @CsvSource({
    "0, 0",
    "0, 1",
    "5, 1",
    "65535, 1",
    "65535, 2",
    "100, 65536",
    "65536, 65536",
    "70000, 200000",
    "131071, 131074",
    "0, 196608"
  })
  void piecesAreCutAtContainerBlockBoundaries(long offset, int length) {
    byte[] data = new byte[length];
    new Random(offset * 31 + length).nextBytes(data);
    ByteBuf region = Unpooled.wrappedBuffer(data);
    try {
      int[] expected = reference(data, offset);
      assertThat(Checksums.pieceCount(offset, length)).isEqualTo(expected.length);
      assertThat(Checksums.pieceCrcs(region, offset)).containsExactly(expected);
      assertThat(Checksums.verifyPieces(region, offset, expected)).isEmpty();
      assertThat(region.readerIndex()).isZero();
    } finally {
      region.release();
    }
  }

  @ParameterizedTest
  @CsvSource({"100, 200000, 0", "100, 200000, 70000", "65536, 10, 3"})
  void aCorruptByteIsFoundInItsPiece(long offset, int length, int flipAt) {
    byte[] data = new byte[length];
    new Random(7).nextBytes(data);
    int[] expected = reference(data, offset);
    data[flipAt] ^= 0x10;
    ByteBuf region = Unpooled.wrappedBuffer(data);
    try {
      ChecksumMismatch m = Checksums.verifyPieces(region, offset, expected).orElseThrow();
      long pieceStart = Math.max(offset, ((offset + flipAt) / BLOCK_SIZE) * BLOCK_SIZE);
      assertThat(m.offset()).isEqualTo(pieceStart);
      assertThat(m.blockIndex())
          .isEqualTo((int) ((offset + flipAt) / BLOCK_SIZE - offset / BLOCK_SIZE));
    } finally {
      region.release();
    }
  }

  @ParameterizedTest
  @CsvSource({"100, 200000, 3", "0, 10, 2"})
  void aWrongNumberOfCrcsIsACallerBug(long offset, int length, int given) {
    ByteBuf region = Unpooled.wrappedBuffer(new byte[length]);
    try {
      assertThatThrownBy(() -> Checksums.verifyPieces(region, offset, new int[given]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("pieces");
    } finally {
      region.release();
    }
  }

  /** Straightforward: walk the bytes, start a new CRC at every container block boundary. */
  private static int[] reference(byte[] data, long offset) {
    List<Integer> crcs = new ArrayList<>();
    int i = 0;
    while (i < data.length) {
      long pos = offset + i;
      int n = (int) Math.min(data.length - i, BLOCK_SIZE - pos % BLOCK_SIZE);
      CRC32C crc = new CRC32C();
      crc.update(data, i, n);
      crcs.add((int) crc.getValue());
      i += n;
    }
    return crcs.stream().mapToInt(Integer::intValue).toArray();
  }
}
