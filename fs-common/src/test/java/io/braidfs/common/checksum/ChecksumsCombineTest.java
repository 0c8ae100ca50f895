package io.braidfs.common.checksum;

import static io.braidfs.common.checksum.Checksums.BLOCK_SIZE;
import static io.braidfs.common.checksum.ChecksumsTest.crcOf;
import static io.braidfs.common.checksum.ChecksumsTest.randomBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Checksums#combine}, {@link Checksums#composite} and {@link Checksums#zeros}: against CRCs
 * of real concatenated data, and against an independent implementation of the classic zlib GF(2)
 * matrix method for lengths too large to materialise.
 */
class ChecksumsCombineTest {
  private static final int POLY = 0x82F63B78;

  @Test
  void combineEqualsCrcOfConcatenationForRandomSplits() {
    Random random = new Random(0xc0b1eL);
    byte[] data = randomBytes(300_000, 31);
    for (int i = 0; i < 300; i++) {
      int length = random.nextInt(data.length + 1);
      int split = random.nextInt(length + 1);
      checkSplit(data, length, split);
    }
  }

  @Test
  void combineWithEmptyParts() {
    byte[] data = randomBytes(3 * BLOCK_SIZE + 5, 37);
    for (int length : new int[] {0, 1, 4, BLOCK_SIZE, data.length}) {
      checkSplit(data, length, 0);
      checkSplit(data, length, length);
    }
    int crc = crcOf(data);
    assertThat(Checksums.combine(crc, 0, 0)).isEqualTo(crc);
    assertThat(Checksums.combine(0, crc, data.length)).isEqualTo(crc);
    assertThat(Checksums.combine(0, 0, 0)).isZero();
  }

  @Test
  void combineOfThreePartsInEitherGrouping() {
    byte[] data = randomBytes(200_000, 41);
    int a = crcOf(data, 0, 1000);
    int b = crcOf(data, 1000, 150_001);
    int c = crcOf(data, 150_001, data.length);
    int left = Checksums.combine(Checksums.combine(a, b, 149_001), c, 49_999);
    int right = Checksums.combine(a, Checksums.combine(b, c, 49_999), 199_000);
    assertThat(left).isEqualTo(right).isEqualTo(crcOf(data));
  }

  @Test
  void agreesWithMatrixMethodUpToLongMax() {
    Random random = new Random(0x3a7L);
    long[] fixed = {0, 1, 2, 3, 7, 8, BLOCK_SIZE, 1L << 32, (1L << 40) + 1, Long.MAX_VALUE};
    for (long length : fixed) {
      int a = random.nextInt();
      int b = random.nextInt();
      assertThat(Checksums.combine(a, b, length))
          .as("length %d", length)
          .isEqualTo(matrixCombine(a, b, length));
    }
    for (int i = 0; i < 500; i++) {
      long length = random.nextLong() >>> (1 + random.nextInt(63));
      int a = random.nextInt();
      int b = random.nextInt();
      assertThat(Checksums.combine(a, b, length))
          .as("length %d", length)
          .isEqualTo(matrixCombine(a, b, length));
    }
  }

  @Test
  void hugeLengthsCombineAssociatively() {
    Random random = new Random(0xa55L);
    for (int i = 0; i < 200; i++) {
      long n = random.nextLong() >>> 2;
      long m = random.nextLong() >>> 2;
      int x = random.nextInt();
      int y = random.nextInt();
      int z = random.nextInt();
      assertThat(Checksums.combine(Checksums.combine(x, y, n), z, m))
          .isEqualTo(Checksums.combine(x, Checksums.combine(y, z, m), n + m));
    }
  }

  @Test
  void powersOfXMultiply() {
    Random random = new Random(0x9f2L);
    assertThat(Checksums.xPowModP(0)).isEqualTo(1 << 31);
    for (int i = 0; i < 200; i++) {
      long a = random.nextLong() >>> 2;
      long b = random.nextLong() >>> 2;
      assertThat(Checksums.multModP(Checksums.xPowModP(a), Checksums.xPowModP(b)))
          .isEqualTo(Checksums.xPowModP(a + b));
      int c = random.nextInt();
      assertThat(Checksums.multModP(1 << 31, c)).isEqualTo(c);
      assertThat(Checksums.multModP(c, 1 << 31)).isEqualTo(c);
    }
  }

  @ParameterizedTest
  @MethodSource("io.braidfs.common.checksum.ChecksumsTest#lengths")
  void compositeOfBlockCrcsIsCrcOfRegion(int length) {
    byte[] data = randomBytes(length, 43L + length);
    int[] blocks = Checksums.blockCrcs(ByteBuffer.wrap(data));
    assertThat(Checksums.composite(blocks, length)).isEqualTo(crcOf(data));
  }

  /** A file's checksum composed from its chunks' block CRCs does not depend on the chunk size. */
  @Test
  void compositeIsIndependentOfChunking() {
    byte[] file = randomBytes(10 * BLOCK_SIZE + 123, 47);
    for (int chunk : new int[] {BLOCK_SIZE, 2 * BLOCK_SIZE, 3 * BLOCK_SIZE, 64 * BLOCK_SIZE}) {
      int crc = 0;
      for (int from = 0; from < file.length; from += chunk) {
        int length = Math.min(chunk, file.length - from);
        int[] blocks = Checksums.blockCrcs(ByteBuffer.wrap(file, from, length));
        crc = Checksums.combine(crc, Checksums.composite(blocks, length), length);
      }
      assertThat(crc).as("chunk %d", chunk).isEqualTo(crcOf(file));
    }
  }

  @Test
  void zerosEqualsCrcOfZeroBytes() {
    Random random = new Random(0x2e70L);
    int[] lengths = {0, 1, 2, 3, 4, 7, 8, 4095, 4096, BLOCK_SIZE - 1, BLOCK_SIZE, BLOCK_SIZE + 1};
    for (int length : lengths) {
      assertThat(Checksums.zeros(length))
          .as("length %d", length)
          .isEqualTo(crcOf(new byte[length]));
    }
    for (int i = 0; i < 50; i++) {
      int length = random.nextInt(3 * BLOCK_SIZE);
      assertThat(Checksums.zeros(length))
          .as("length %d", length)
          .isEqualTo(crcOf(new byte[length]));
    }
    assertThat(Checksums.zeros(0)).isZero();
  }

  /** Lengths too large to allocate: zeros of n + m bytes are zeros of n followed by zeros of m. */
  @Test
  void zerosOfHugeLengthsCompose() {
    Random random = new Random(0x2e71L);
    for (int i = 0; i < 200; i++) {
      long n = random.nextLong() >>> 2;
      long m = random.nextLong() >>> 2;
      assertThat(Checksums.combine(Checksums.zeros(n), Checksums.zeros(m), m))
          .as("%d + %d", n, m)
          .isEqualTo(Checksums.zeros(n + m));
    }
    // By doubling from one zero byte, independently of zeros' own method.
    int crc = crcOf(new byte[1]);
    long length = 1;
    for (int k = 1; k < 62; k++) {
      crc = Checksums.combine(crc, crc, length);
      length *= 2;
      assertThat(Checksums.zeros(length)).as("2^%d", k).isEqualTo(crc);
    }
  }

  /** Random data followed by a run of zeros, composed without materialising the zeros. */
  @Test
  void dataThenZerosComposes() {
    byte[] data = randomBytes(BLOCK_SIZE + 77, 53);
    byte[] padded = Arrays.copyOf(data, data.length + 3 * BLOCK_SIZE + 5);
    int zeros = padded.length - data.length;
    assertThat(Checksums.combine(crcOf(data), Checksums.zeros(zeros), zeros))
        .isEqualTo(crcOf(padded));
  }

  @Test
  void invalidArguments() {
    assertThatThrownBy(() -> Checksums.combine(1, 2, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lengthB must be >= 0: -1");
    assertThatThrownBy(() -> Checksums.composite(new int[1], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 blocks, not 1");
    assertThatThrownBy(() -> Checksums.composite(new int[1], BLOCK_SIZE + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Checksums.composite(new int[0], -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Checksums.composite(new int[0], 0)).isZero();
    assertThatThrownBy(() -> Checksums.zeros(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("length must be >= 0: -1");
  }

  private static void checkSplit(byte[] data, int length, int split) {
    int whole = crcOf(data, 0, length);
    int a = crcOf(data, 0, split);
    int b = crcOf(data, split, length);
    assertThat(Checksums.combine(a, b, length - split))
        .as("length %d split at %d", length, split)
        .isEqualTo(whole);
  }

  // ---- the zlib (pre-1.2.12) GF(2) matrix method, as an independent reference ---------------

  private static int matrixCombine(int crc1, int crc2, long len2) {
    if (len2 == 0) {
      return crc1 ^ crc2;
    }
    int[] even = new int[32]; // even-power-of-two zeros operator
    int[] odd = new int[32]; // odd-power-of-two zeros operator
    odd[0] = POLY; // operator for one zero bit
    int row = 1;
    for (int n = 1; n < 32; n++) {
      odd[n] = row;
      row <<= 1;
    }
    square(even, odd); // two zero bits
    square(odd, even); // four zero bits
    long len = len2;
    while (true) {
      square(even, odd); // first pass: one zero byte
      if ((len & 1) != 0) {
        crc1 = times(even, crc1);
      }
      len >>>= 1;
      if (len == 0) {
        break;
      }
      square(odd, even);
      if ((len & 1) != 0) {
        crc1 = times(odd, crc1);
      }
      len >>>= 1;
      if (len == 0) {
        break;
      }
    }
    return crc1 ^ crc2;
  }

  private static int times(int[] matrix, int vector) {
    int sum = 0;
    for (int i = 0; vector != 0; i++, vector >>>= 1) {
      if ((vector & 1) != 0) {
        sum ^= matrix[i];
      }
    }
    return sum;
  }

  private static void square(int[] square, int[] matrix) {
    for (int n = 0; n < 32; n++) {
      square[n] = times(matrix, matrix[n]);
    }
  }
}
