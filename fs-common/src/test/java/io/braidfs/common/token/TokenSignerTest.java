package io.braidfs.common.token;

import static io.braidfs.common.token.TokenFixtures.key;
import static io.braidfs.common.token.TokenFixtures.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class TokenSignerTest {

  @Test
  void signedTokenIsBodyThenHmac() throws Exception {
    CapabilityToken token = token(3).build();
    byte[] signed = new TokenSigner(3, key(3)).sign(token);

    assertThat(signed).hasSize(CapabilityToken.SIGNED_LENGTH);
    byte[] body = new byte[CapabilityToken.BODY_LENGTH];
    token.encodeBody(ByteBuffer.wrap(body));
    assertThat(Arrays.copyOf(signed, CapabilityToken.BODY_LENGTH)).isEqualTo(body);

    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key(3), "HmacSHA256"));
    assertThat(Arrays.copyOfRange(signed, CapabilityToken.BODY_LENGTH, signed.length))
        .isEqualTo(mac.doFinal(body));
  }

  @Test
  void signingIsDeterministicAndKeyDependent() {
    CapabilityToken token = token(3).build();
    byte[] first = new TokenSigner(3, key(3)).sign(token);
    assertThat(new TokenSigner(3, key(3)).sign(token)).isEqualTo(first);
    assertThat(new TokenSigner(3, key(4)).sign(token)).isNotEqualTo(first);
  }

  @Test
  void tokenMustNameTheSignersKey() {
    TokenSigner signer = new TokenSigner(3, key(3));
    CapabilityToken other = token(-2).build();
    assertThatThrownBy(() -> signer.sign(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4294967294")
        .hasMessageContaining("key 3");
  }

  @Test
  void keyMustHave256Bits() {
    assertThatThrownBy(() -> new TokenSigner(1, new byte[16]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("256 bits");
  }

  @Test
  void keyBytesAreCopied() {
    byte[] bytes = key(3);
    TokenSigner signer = new TokenSigner(3, bytes);
    byte[] before = signer.sign(token(3).build());
    Arrays.fill(bytes, (byte) 0);
    assertThat(signer.sign(token(3).build())).isEqualTo(before);
  }

  @Test
  void ringSignerUsesTheCurrentKey() {
    TokenKeys keys = TokenKeys.builder().previous(2, key(2)).current(3, key(3)).build();
    assertThat(keys.currentSigner().sign(token(3).build()))
        .isEqualTo(new TokenSigner(3, key(3)).sign(token(3).build()));
  }

  @Test
  void toStringHidesTheKey() {
    assertThat(new TokenSigner(9, key(9))).hasToString("TokenSigner[keyId=9]");
  }
}
