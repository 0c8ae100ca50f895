package io.braidfs.common.token;

import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 for tokens, shared by the signer and the verifier.
 *
 * <p>A {@link Mac} is not thread-safe, and {@link Mac#getInstance} does a provider lookup and
 * several allocations, which is not worth repeating for an 86-byte MAC on every request; so each
 * thread keeps one {@code Mac} in a {@link ThreadLocal} and reuses it. The key is set on every call
 * with {@link Mac#init}, which only hashes one 64-byte pad: that lets one {@code Mac} per thread
 * serve every key of a ring and every signer and verifier, instead of one {@code ThreadLocal} per
 * instance that would linger in pooled threads after the instance is replaced at each key rotation.
 * The threads that sign and verify are a bounded set (event loops and executors), and so is the
 * number of {@code Mac}s.
 *
 * <p>Thread-safety: safe for use by any thread; each thread uses its own {@code Mac}.
 */
final class TokenMac {
  static final String ALGORITHM = "HmacSHA256";

  /** Bytes in a key: 256 bits, the HMAC-SHA256 output size (RFC 2104 section 3). */
  static final int KEY_LENGTH = 32;

  /** Bytes in a tag. */
  static final int TAG_LENGTH = 32;

  private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(TokenMac::newMac);

  private TokenMac() {}

  /**
   * A key for {@link #tag}; the array is copied.
   *
   * @throws IllegalArgumentException if {@code key.length != 32}
   */
  static SecretKeySpec keySpec(byte[] key) {
    if (key.length != KEY_LENGTH) {
      throw new IllegalArgumentException(
          "a token key has " + KEY_LENGTH + " bytes (256 bits), not " + key.length);
    }
    return new SecretKeySpec(key, ALGORITHM);
  }

  /** The HMAC-SHA256 of {@code data[offset, offset + length)} under {@code key}. */
  static byte[] tag(SecretKeySpec key, byte[] data, int offset, int length) {
    Mac mac = MAC.get();
    try {
      mac.init(key); // also resets any state a failed earlier call left behind
    } catch (InvalidKeyException e) {
      // Every 32-byte HmacSHA256 key is valid; keySpec() is the only way keys are made.
      throw new IllegalStateException("HmacSHA256 rejected a 32-byte key", e);
    }
    mac.update(data, offset, length);
    return mac.doFinal();
  }

  private static Mac newMac() {
    try {
      return Mac.getInstance(ALGORITHM);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide " + ALGORITHM, e);
    }
  }
}
