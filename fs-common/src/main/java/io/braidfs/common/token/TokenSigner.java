package io.braidfs.common.token;

import java.nio.ByteBuffer;
import java.util.Objects;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs capability tokens with one key: used by the MDS leader, normally obtained from {@link
 * TokenKeys#currentSigner()}.
 *
 * <p>Thread-safety: safe for concurrent use; see {@link TokenMac} for how the non-thread-safe
 * {@link javax.crypto.Mac} is handled.
 */
public final class TokenSigner {
  private final int keyId;
  private final SecretKeySpec secret;

  /**
   * A signer with the given key; the key bytes are copied.
   *
   * @param keyId the key's id, carried in every token it signs
   * @param key the 256-bit key
   * @throws IllegalArgumentException if {@code key.length != 32}
   */
  public TokenSigner(int keyId, byte[] key) {
    this(keyId, TokenMac.keySpec(key));
  }

  TokenSigner(int keyId, SecretKeySpec secret) {
    this.keyId = keyId;
    this.secret = secret;
  }

  /** The id of this signer's key; tokens it signs must carry it. */
  public int keyId() {
    return keyId;
  }

  /**
   * The signed encoding of {@code token}: its {@value CapabilityToken#BODY_LENGTH}-byte body
   * followed by the HMAC-SHA256 tag, {@value CapabilityToken#SIGNED_LENGTH} bytes in a new array.
   * The layout is documented on {@link CapabilityToken}.
   *
   * @throws IllegalArgumentException if {@code token.keyId()} is not this signer's key id
   */
  public byte[] sign(CapabilityToken token) {
    Objects.requireNonNull(token, "token");
    if (token.keyId() != keyId) {
      throw new IllegalArgumentException(
          "token names key "
              + Integer.toUnsignedString(token.keyId())
              + " but this signer holds key "
              + Integer.toUnsignedString(keyId));
    }
    byte[] signed = new byte[CapabilityToken.SIGNED_LENGTH];
    token.encodeBody(ByteBuffer.wrap(signed));
    byte[] tag = TokenMac.tag(secret, signed, 0, CapabilityToken.BODY_LENGTH);
    System.arraycopy(tag, 0, signed, CapabilityToken.BODY_LENGTH, tag.length);
    return signed;
  }

  @Override
  public String toString() {
    return "TokenSigner[keyId=" + Integer.toUnsignedString(keyId) + "]";
  }
}
