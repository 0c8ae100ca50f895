package io.braidfs.common.token;

import static io.braidfs.common.token.TokenFixtures.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenKeysTest {

  @Test
  void singleKeyRing() {
    TokenKeys keys = TokenKeys.of(7, key(7));
    assertThat(keys.currentKeyId()).isEqualTo(7);
    assertThat(keys.previousKeyId()).isEmpty();
    assertThat(keys.nextKeyId()).isEmpty();
    assertThat(keys.contains(7)).isTrue();
    assertThat(keys.contains(6)).isFalse();
    assertThat(keys.currentSigner().keyId()).isEqualTo(7);
  }

  @Test
  void fullRing() {
    TokenKeys keys =
        TokenKeys.builder().previous(6, key(6)).current(7, key(7)).next(8, key(8)).build();
    assertThat(keys.currentKeyId()).isEqualTo(7);
    assertThat(keys.previousKeyId()).isEqualTo(OptionalInt.of(6));
    assertThat(keys.nextKeyId()).isEqualTo(OptionalInt.of(8));
    assertThat(keys.contains(6)).isTrue();
    assertThat(keys.contains(7)).isTrue();
    assertThat(keys.contains(8)).isTrue();
    assertThat(keys.contains(9)).isFalse();
    assertThat(keys.secret(6)).isNotNull();
    assertThat(keys.secret(9)).isNull();
    assertThat(keys.secret(6).getEncoded()).isEqualTo(key(6));
    assertThat(keys.secret(8).getEncoded()).isEqualTo(key(8));
  }

  @Test
  void currentKeyIsRequired() {
    TokenKeys.Builder builder = TokenKeys.builder().previous(1, key(1));
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("current");
  }

  @Test
  void idsMustBeDistinct() {
    assertThatThrownBy(() -> TokenKeys.builder().current(1, key(1)).previous(1, key(2)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("distinct");
    assertThatThrownBy(() -> TokenKeys.builder().current(1, key(1)).next(1, key(2)).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                TokenKeys.builder().current(1, key(1)).previous(2, key(2)).next(2, key(3)).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 16, 31, 33, 64})
  void keysHave256Bits(int length) {
    assertThatThrownBy(() -> TokenKeys.of(1, new byte[length]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not " + length);
    assertThatThrownBy(() -> TokenKeys.builder().previous(1, new byte[length]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TokenKeys.builder().next(1, new byte[length]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keyBytesAreCopied() {
    byte[] bytes = key(1);
    TokenKeys keys = TokenKeys.of(1, bytes);
    bytes[0] ^= 1;
    assertThat(keys.secret(1).getEncoded()).isEqualTo(key(1));
  }

  @Test
  void toStringShowsUnsignedIdsButNoKeyMaterial() {
    byte[] secret = key(1);
    TokenKeys keys =
        TokenKeys.builder().previous(-1, key(2)).current(1, secret).next(2, key(3)).build();
    assertThat(keys).hasToString("TokenKeys[current=1, previous=4294967295, next=2]");
    assertThat(TokenKeys.of(5, secret)).hasToString("TokenKeys[current=5]");
    assertThat(keys.toString()).doesNotContain(HexFormat.of().formatHex(secret).substring(0, 8));
  }
}
