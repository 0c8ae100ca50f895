package io.braidfs.common.token;

import static io.braidfs.common.token.CapabilityToken.READ;
import static io.braidfs.common.token.CapabilityToken.WRITE;
import static io.braidfs.common.token.TokenFixtures.CLIENT;
import static io.braidfs.common.token.TokenFixtures.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The token value, its validation and its canonical encoding; also {@link ClientId}. */
class CapabilityTokenTest {
  private static final HexFormat HEX = HexFormat.of();

  /** A token whose every field has distinct bytes, so the encoding's layout shows in its hex. */
  private static CapabilityToken distinctBytes() {
    return CapabilityToken.builder()
        .keyId(0x01020304)
        .mdsEpoch(0x1112131415161718L)
        .clientId(new ClientId(0x2122232425262728L, 0x292a2b2c2d2e2f30L))
        .fileId(0x3132333435363738L)
        .fileGeneration(0x4142434445464748L)
        .chunks(0x5152535455565758L, 0x6162636465666768L)
        .chunkVersionFloor(0x7172737475767778L)
        .modes(READ | WRITE)
        .validity(0x0a0b0c0d0e0f1011L, 0x1a1b1c1d1e1f2021L)
        .build();
  }

  @Test
  void canonicalEncodingIsPinned() {
    ByteBuffer body = ByteBuffer.allocate(CapabilityToken.BODY_LENGTH);
    distinctBytes().encodeBody(body);
    assertThat(body.hasRemaining()).isFalse();
    assertThat(HEX.formatHex(body.array()))
        .isEqualTo(
            "01" // version
                + "01020304" // keyId
                + "1112131415161718" // mdsEpoch
                + "2122232425262728292a2b2c2d2e2f30" // clientId
                + "3132333435363738" // fileId
                + "4142434445464748" // fileGeneration
                + "5152535455565758" // chunkFirst
                + "6162636465666768" // chunkLast
                + "7172737475767778" // chunkVersionFloor
                + "03" // modes
                + "0a0b0c0d0e0f1011" // notBefore
                + "1a1b1c1d1e1f2021"); // expiry
    assertThat(CapabilityToken.SIGNED_LENGTH).isEqualTo(118);
  }

  @Test
  void decodeReadsWhatEncodeWrote() {
    for (CapabilityToken token :
        new CapabilityToken[] {
          distinctBytes(),
          token(1).build(),
          token(-1).modes(WRITE).chunks(0, Long.MAX_VALUE).validity(0, Long.MAX_VALUE).build()
        }) {
      ByteBuffer body = ByteBuffer.allocate(CapabilityToken.BODY_LENGTH);
      token.encodeBody(body);
      body.flip();
      assertThat(CapabilityToken.decodeBody(body)).isEqualTo(token);
      assertThat(body.hasRemaining()).isFalse();
    }
  }

  /** Offsets and values that make an otherwise valid body invalid. */
  static Stream<Arguments> invalidBodies() {
    return Stream.of(
        Arguments.of("version 0", 0, 0x00),
        Arguments.of("version 2", 0, 0x02),
        Arguments.of("negative mdsEpoch", 5, 0x80),
        Arguments.of("negative fileId", 29, 0x80),
        Arguments.of("negative generation", 37, 0xff),
        Arguments.of("chunkFirst > chunkLast", 45, 0x7f),
        Arguments.of("negative chunkLast", 53, 0x80),
        Arguments.of("negative version floor", 61, 0x80),
        Arguments.of("modes 0", 69, 0x00),
        Arguments.of("modes 4", 69, 0x04),
        Arguments.of("modes 0xff", 69, 0xff),
        Arguments.of("notBefore > expiry", 70, 0x7f),
        Arguments.of("negative expiry", 78, 0x80));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBodies")
  void decodeRefusesInvalidFields(String what, int offset, int value) {
    byte[] body = new byte[CapabilityToken.BODY_LENGTH];
    token(1).build().encodeBody(ByteBuffer.wrap(body));
    body[offset] = (byte) value;
    assertThat(CapabilityToken.decodeBody(ByteBuffer.wrap(body))).isNull();
  }

  @Test
  void decodeOfShortBodyUnderflows() {
    ByteBuffer shortBody = ByteBuffer.allocate(CapabilityToken.BODY_LENGTH - 1);
    assertThatThrownBy(() -> CapabilityToken.decodeBody(shortBody))
        .isInstanceOf(BufferUnderflowException.class);
  }

  static Stream<Arguments> invalidBuilders() {
    return Stream.<Arguments>of(
        invalid("mdsEpoch", b -> b.mdsEpoch(-1)),
        invalid("fileId", b -> b.fileId(-1)),
        invalid("fileGeneration", b -> b.fileGeneration(Long.MIN_VALUE)),
        invalid("chunkVersionFloor", b -> b.chunkVersionFloor(-5)),
        invalid("chunkFirst", b -> b.chunks(-1, 5)),
        invalid("chunkLast", b -> b.chunks(6, 5)),
        invalid("modes", b -> b.modes(0)),
        invalid("modes", b -> b.modes(4)),
        invalid("modes", b -> b.modes(READ | 8)),
        invalid("notBefore", b -> b.validity(-1, 5)),
        invalid("expiry", b -> b.validity(6, 5)));
  }

  private static Arguments invalid(String field, UnaryOperator<CapabilityToken.Builder> change) {
    return Arguments.of(field, change);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidBuilders")
  void builderRefusesInvalidFields(String field, UnaryOperator<CapabilityToken.Builder> change) {
    CapabilityToken.Builder builder = change.apply(token(1));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(field);
  }

  @Test
  void builderRequiresClient() {
    assertThatThrownBy(() -> CapabilityToken.builder().modes(READ).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("clientId");
  }

  @Test
  void degenerateButValidValues() {
    CapabilityToken t =
        CapabilityToken.builder().clientId(CLIENT).modes(READ).validity(5, 5).build();
    assertThat(t.keyId()).isZero();
    assertThat(t.chunkFirst()).isZero();
    assertThat(t.chunkLast()).isZero();
    assertThat(t.version()).isEqualTo(1);
  }

  @Test
  void accessors() {
    CapabilityToken t = distinctBytes();
    assertThat(t.keyId()).isEqualTo(0x01020304);
    assertThat(t.mdsEpoch()).isEqualTo(0x1112131415161718L);
    assertThat(t.clientId()).isEqualTo(new ClientId(0x2122232425262728L, 0x292a2b2c2d2e2f30L));
    assertThat(t.fileId()).isEqualTo(0x3132333435363738L);
    assertThat(t.fileGeneration()).isEqualTo(0x4142434445464748L);
    assertThat(t.chunkFirst()).isEqualTo(0x5152535455565758L);
    assertThat(t.chunkLast()).isEqualTo(0x6162636465666768L);
    assertThat(t.chunkVersionFloor()).isEqualTo(0x7172737475767778L);
    assertThat(t.modes()).isEqualTo(3);
    assertThat(t.notBefore()).isEqualTo(0x0a0b0c0d0e0f1011L);
    assertThat(t.expiry()).isEqualTo(0x1a1b1c1d1e1f2021L);
  }

  @Test
  void allowsAndCovers() {
    CapabilityToken read = token(1).modes(READ).build();
    assertThat(read.allows(READ)).isTrue();
    assertThat(read.allows(WRITE)).isFalse();
    assertThat(read.allows(READ | WRITE)).isFalse();
    assertThat(read.allows(0)).isFalse();
    CapabilityToken both = token(1).build();
    assertThat(both.allows(READ | WRITE)).isTrue();
    assertThat(both.coversChunk(9)).isFalse();
    assertThat(both.coversChunk(10)).isTrue();
    assertThat(both.coversChunk(19)).isTrue();
    assertThat(both.coversChunk(20)).isFalse();
  }

  static Stream<UnaryOperator<CapabilityToken.Builder>> singleFieldChanges() {
    return Stream.of(
        b -> b.keyId(2),
        b -> b.mdsEpoch(8),
        b -> b.clientId(TokenFixtures.OTHER_CLIENT),
        b -> b.fileId(1),
        b -> b.fileGeneration(4),
        b -> b.chunks(10, 20),
        b -> b.chunks(11, 19),
        b -> b.chunkVersionFloor(101),
        b -> b.modes(READ),
        b -> b.validity(TokenFixtures.NOT_BEFORE + 1, TokenFixtures.EXPIRY),
        b -> b.validity(TokenFixtures.NOT_BEFORE, TokenFixtures.EXPIRY + 1));
  }

  @ParameterizedTest
  @MethodSource("singleFieldChanges")
  void equalityCoversEveryField(UnaryOperator<CapabilityToken.Builder> change) {
    CapabilityToken base = token(1).build();
    CapabilityToken changed = change.apply(token(1)).build();
    assertThat(changed).isNotEqualTo(base);
    assertThat(change.apply(base.toBuilder()).build()).isEqualTo(changed);
    assertThat(change.apply(token(1)).build().hashCode()).isEqualTo(changed.hashCode());
  }

  @Test
  void valueSemantics() {
    CapabilityToken a = token(1).build();
    assertThat(a).isEqualTo(token(1).build()).isEqualTo(a).hasSameHashCodeAs(token(1).build());
    assertThat(a.toBuilder().build()).isEqualTo(a);
    assertThat(a).isNotEqualTo(null).isNotEqualTo("token");
    assertThat(token(-1).modes(READ).build())
        .hasToString(
            "CapabilityToken[keyId=4294967295, mdsEpoch=7, client=0123456789abcdeffedcba9876543210,"
                + " file=4242/3, chunks=[10, 19], chunkVersionFloor=100, modes=R,"
                + " valid=[1779999940000, 1780000600000]]");
    assertThat(a.toString()).contains("modes=RW");
  }

  @Test
  void clientIdBytesRoundTrip() {
    byte[] bytes = HEX.parseHex("00112233445566778899aabbccddeeff");
    ClientId id = ClientId.of(bytes);
    assertThat(id).isEqualTo(new ClientId(0x0011223344556677L, 0x8899aabbccddeeffL));
    assertThat(id.toBytes()).isEqualTo(bytes);
    assertThat(id).hasToString("00112233445566778899aabbccddeeff");
    bytes[0] = 1; // the id does not share the caller's array
    assertThat(id.toBytes()[0]).isZero();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 8, 15, 17, 32})
  void clientIdHasSixteenBytes(int length) {
    assertThatThrownBy(() -> ClientId.of(new byte[length]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(length));
  }
}
