package io.braidfs.common.checksum;

import static io.braidfs.common.checksum.Checksums.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Block CRCs and verification of {@link Checksums} over every kind of buffer. */
class ChecksumsTest {

  static IntStream lengths() {
    return IntStream.of(
        0,
        1,
        9,
        4096,
        BLOCK_SIZE - 1,
        BLOCK_SIZE,
        BLOCK_SIZE + 1,
        3 * BLOCK_SIZE + 17,
        5 * BLOCK_SIZE,
        5 * BLOCK_SIZE - 1);
  }

  @Test
  void knownVectors() {
    assertThat(crcOf("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xE3069283);
    // RFC 3720 (iSCSI) appendix B.4.
    byte[] ascending = new byte[32];
    byte[] descending = new byte[32];
    byte[] ones = new byte[32];
    for (int i = 0; i < 32; i++) {
      ascending[i] = (byte) i;
      descending[i] = (byte) (31 - i);
      ones[i] = (byte) 0xFF;
    }
    assertThat(crcOf(new byte[32])).isEqualTo(0x8A9136AA);
    assertThat(crcOf(ones)).isEqualTo(0x62A8AB43);
    assertThat(crcOf(ascending)).isEqualTo(0x46DD794E);
    assertThat(crcOf(descending)).isEqualTo(0x113FDB5C);
  }

  @Test
  void blockCount() {
    assertThat(Checksums.blockCount(0)).isZero();
    assertThat(Checksums.blockCount(1)).isEqualTo(1);
    assertThat(Checksums.blockCount(BLOCK_SIZE - 1)).isEqualTo(1);
    assertThat(Checksums.blockCount(BLOCK_SIZE)).isEqualTo(1);
    assertThat(Checksums.blockCount(BLOCK_SIZE + 1)).isEqualTo(2);
    assertThat(Checksums.blockCount(64L << 20)).isEqualTo(1024);
    assertThat(Checksums.blockCount(Long.MAX_VALUE)).isEqualTo((Long.MAX_VALUE >> 16) + 1);
    assertThatThrownBy(() -> Checksums.blockCount(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("length must be >= 0: -1");
  }

  @ParameterizedTest
  @MethodSource("lengths")
  void heapDirectAndCompositeAgreeWithReference(int length) {
    byte[] data = randomBytes(length, length);
    int[] expected = referenceCrcs(data);

    assertThat(Checksums.blockCrcs(ByteBuffer.wrap(data))).containsExactly(expected);
    ByteBuffer direct = ByteBuffer.allocateDirect(length).put(data).flip();
    assertThat(Checksums.blockCrcs(direct)).containsExactly(expected);

    for (ByteBuf buf : allKinds(data)) {
      try {
        assertThat(Checksums.blockCrcs(buf)).as(buf.toString()).containsExactly(expected);
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void blockStraddlingManyComponents() {
    byte[] data = randomBytes(4 * BLOCK_SIZE + 333, 7);
    // Cut points chosen so that blocks start and end inside components, and one component is
    // smaller than a block and another larger than two.
    int[] cuts = {1, BLOCK_SIZE - 5, BLOCK_SIZE + 10, BLOCK_SIZE + 11, 3 * BLOCK_SIZE + 1};
    ByteBuf composite = compositeOf(data, cuts, Parts.MIXED);
    try {
      assertThat(composite.nioBufferCount()).isEqualTo(cuts.length + 1);
      assertThat(Checksums.blockCrcs(composite)).containsExactly(referenceCrcs(data));
    } finally {
      composite.release();
    }
  }

  @Test
  void onlyReadableBytesAreCoveredAndIndicesAreKept() {
    byte[] data = randomBytes(2 * BLOCK_SIZE + 100, 11);
    ByteBuf buf = Unpooled.directBuffer(data.length + 50).writeBytes(new byte[20]).writeBytes(data);
    buf.writeBytes(new byte[30]);
    try {
      buf.readerIndex(20).writerIndex(20 + data.length);
      assertThat(Checksums.blockCrcs(buf)).containsExactly(referenceCrcs(data));
      assertThat(buf.readerIndex()).isEqualTo(20);
      assertThat(buf.writerIndex()).isEqualTo(20 + data.length);
      assertThat(buf.refCnt()).isEqualTo(1);
    } finally {
      buf.release();
    }
  }

  @Test
  void byteBufferPositionAndLimitAreKept() {
    byte[] data = randomBytes(3 * BLOCK_SIZE, 13);
    ByteBuffer buffer = ByteBuffer.allocateDirect(data.length + 40);
    buffer.position(15);
    buffer.put(data);
    buffer.limit(15 + data.length).position(15);
    buffer.mark();
    assertThat(Checksums.blockCrcs(buffer)).containsExactly(referenceCrcs(data));
    assertThat(buffer.position()).isEqualTo(15);
    assertThat(buffer.limit()).isEqualTo(15 + data.length);
    buffer.position(16).reset(); // the mark survived
    assertThat(buffer.position()).isEqualTo(15);
  }

  @Test
  void emptyRegion() {
    assertThat(Checksums.blockCrcs(ByteBuffer.allocate(0))).isEmpty();
    assertThat(Checksums.blockCrcs(Unpooled.EMPTY_BUFFER)).isEmpty();
    assertThat(Checksums.verify(ByteBuffer.allocate(0), 0, new int[0])).isEmpty();
    CompositeByteBuf empty = Unpooled.compositeBuffer();
    try {
      assertThat(Checksums.blockCrcs(empty)).isEmpty();
      assertThat(Checksums.verify(empty, BLOCK_SIZE, new int[0])).isEmpty();
    } finally {
      empty.release();
    }
  }

  @ParameterizedTest
  @MethodSource("lengths")
  void intactRegionsVerify(int length) {
    byte[] data = randomBytes(length, 17);
    int[] crcs = referenceCrcs(data);
    assertThat(Checksums.verify(ByteBuffer.wrap(data), 0, crcs)).isEmpty();
    for (ByteBuf buf : allKinds(data)) {
      try {
        assertThat(Checksums.verify(buf, 7L * BLOCK_SIZE, crcs)).as(buf.toString()).isEmpty();
      } finally {
        buf.release();
      }
    }
  }

  static Stream<Integer> flippedBits() {
    int length = 4 * BLOCK_SIZE + 1000;
    return Stream.of(
        0, 7, 8 * BLOCK_SIZE - 1, 8 * BLOCK_SIZE, 8 * (2 * BLOCK_SIZE) + 3, 8 * length - 1);
  }

  @ParameterizedTest
  @MethodSource("flippedBits")
  void flippedBitIsFoundInItsBlock(int bit) {
    byte[] data = randomBytes(4 * BLOCK_SIZE + 1000, 19);
    int[] crcs = referenceCrcs(data);
    data[bit / 8] ^= (byte) (1 << (bit % 8));
    int block = bit / 8 / BLOCK_SIZE;
    long regionOffset = 3L * BLOCK_SIZE;

    Optional<ChecksumMismatch> heap = Checksums.verify(ByteBuffer.wrap(data), regionOffset, crcs);
    assertThat(heap).isPresent();
    ChecksumMismatch mismatch = heap.orElseThrow();
    assertThat(mismatch.blockIndex()).isEqualTo(block);
    assertThat(mismatch.offset()).isEqualTo(regionOffset + (long) block * BLOCK_SIZE);
    assertThat(mismatch.expectedCrc()).isEqualTo(crcs[block]);
    assertThat(mismatch.actualCrc()).isEqualTo(referenceCrcs(data)[block]);
    for (ByteBuf buf : allKinds(data)) {
      try {
        assertThat(Checksums.verify(buf, regionOffset, crcs)).as(buf.toString()).contains(mismatch);
      } finally {
        buf.release();
      }
    }
  }

  @Test
  void firstOfSeveralBadBlocksIsReported() {
    byte[] data = randomBytes(4 * BLOCK_SIZE, 23);
    int[] crcs = referenceCrcs(data);
    data[3 * BLOCK_SIZE] ^= 1;
    data[BLOCK_SIZE + 5] ^= 1;
    assertThat(Checksums.verify(ByteBuffer.wrap(data), 0, crcs).orElseThrow().blockIndex())
        .isEqualTo(1);
  }

  @Test
  void wrongExpectedCrcIsAMismatchNotAnError() {
    byte[] data = randomBytes(BLOCK_SIZE + 1, 29);
    int[] crcs = referenceCrcs(data);
    crcs[1] = ~crcs[1];
    assertThat(Checksums.verify(ByteBuffer.wrap(data), 0, crcs))
        .contains(new ChecksumMismatch(1, BLOCK_SIZE, crcs[1], ~crcs[1]));
    assertThat(new ChecksumMismatch(1, BLOCK_SIZE, 0xE3069283, 0x1))
        .hasToString(
            "ChecksumMismatch[block 1 at offset 65536: expected e3069283, actual 00000001]");
  }

  @Test
  void wrongNumberOfExpectedCrcsIsACallerBug() {
    ByteBuffer region = ByteBuffer.allocate(BLOCK_SIZE + 1);
    assertThatThrownBy(() -> Checksums.verify(region, 0, new int[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65537 bytes has 2 blocks, but 1 CRCs");
    ByteBuf buf = Unpooled.wrappedBuffer(new byte[10]);
    try {
      assertThatThrownBy(() -> Checksums.verify(buf, 0, new int[2]))
          .isInstanceOf(IllegalArgumentException.class);
    } finally {
      buf.release();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {-BLOCK_SIZE, -1, 1, BLOCK_SIZE - 1, BLOCK_SIZE + 4096})
  void regionOffsetMustBeBlockAligned(long regionOffset) {
    ByteBuffer region = ByteBuffer.allocate(10);
    assertThatThrownBy(() -> Checksums.verify(region, regionOffset, new int[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(regionOffset));
  }

  @Test
  void regionMustNotEndPastLongMax() {
    long lastBlock = Long.MAX_VALUE / BLOCK_SIZE * BLOCK_SIZE;
    int[] crcs = referenceCrcs(new byte[10]);
    assertThat(Checksums.verify(ByteBuffer.allocate(10), lastBlock, crcs)).isEmpty();
    int[] big = referenceCrcs(new byte[BLOCK_SIZE]);
    assertThatThrownBy(() -> Checksums.verify(ByteBuffer.allocate(BLOCK_SIZE), lastBlock, big))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- helpers ------------------------------------------------------------------------------

  static byte[] randomBytes(int length, long seed) {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    return data;
  }

  static int crcOf(byte[] data) {
    return crcOf(data, 0, data.length);
  }

  static int crcOf(byte[] data, int from, int to) {
    CRC32C crc = new CRC32C();
    crc.update(data, from, to - from);
    return (int) crc.getValue();
  }

  /** The block CRCs computed independently, one CRC32C per array slice. */
  static int[] referenceCrcs(byte[] data) {
    int blocks = (data.length + BLOCK_SIZE - 1) / BLOCK_SIZE;
    int[] crcs = new int[blocks];
    for (int i = 0; i < blocks; i++) {
      crcs[i] = crcOf(data, i * BLOCK_SIZE, Math.min(data.length, (i + 1) * BLOCK_SIZE));
    }
    return crcs;
  }

  /** Heap, direct, sliced and composite (heap, direct and mixed) buffers holding {@code data}. */
  private static ByteBuf[] allKinds(byte[] data) {
    ByteBuf padded = Unpooled.buffer(data.length + 8).writeBytes(new byte[3]).writeBytes(data);
    padded.writeBytes(new byte[5]);
    ByteBuf slice = padded.slice(3, data.length); // shares padded's reference count
    int third = data.length / 3;
    int[] cuts = {third, 2 * third + 1};
    return new ByteBuf[] {
      Unpooled.wrappedBuffer(data.clone()),
      Unpooled.directBuffer(Math.max(data.length, 1)).writeBytes(data),
      slice,
      compositeOf(data, cuts, Parts.HEAP),
      compositeOf(data, cuts, Parts.DIRECT),
      compositeOf(data, cuts, Parts.MIXED),
      compositeOf(data, new int[] {1, 2, 3}, Parts.MIXED),
    };
  }

  /** What a composite buffer is made of; MIXED alternates heap and direct components. */
  private enum Parts {
    HEAP,
    DIRECT,
    MIXED
  }

  /** A composite buffer holding {@code data}, cut into components at {@code cuts}. */
  private static ByteBuf compositeOf(byte[] data, int[] cuts, Parts parts) {
    CompositeByteBuf composite = Unpooled.compositeBuffer(cuts.length + 1);
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? Math.min(Math.max(cuts[i], from), data.length) : data.length;
      boolean direct = parts == Parts.DIRECT || (parts == Parts.MIXED && i % 2 == 1);
      ByteBuf part =
          direct
              ? Unpooled.directBuffer(Math.max(1, to - from)).writeBytes(data, from, to - from)
              : Unpooled.wrappedBuffer(Arrays.copyOfRange(data, from, to));
      composite.addComponent(true, part);
      from = to;
    }
    return composite;
  }
}
