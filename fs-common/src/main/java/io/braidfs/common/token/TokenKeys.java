package io.braidfs.common.token;

import java.util.OptionalInt;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The token key ring: the current key, which signs new tokens, and optionally the previous key
 * (still accepted until tokens it signed have expired) and the next key (accepted early, so that a
 * data server that has already received it verifies tokens from an MDS that has already switched).
 * The MDS leader generates 256-bit random keys, keeps them in replicated state and sends the ring
 * to data servers (ha-meta-security.md section 5.3); a key outside the ring is refused.
 *
 * <p>Key ids are opaque unsigned 32-bit values and must be distinct within a ring. Key bytes are
 * copied in and never exposed; {@link #toString} shows only ids.
 *
 * <p>Thread-safety: immutable. To rotate, build a new ring and swap it in (for example {@code new
 * TokenVerifier(newKeys)} published through a volatile field).
 */
public final class TokenKeys {
  private final Key current;
  private final @Nullable Key previous;
  private final @Nullable Key next;

  private TokenKeys(Key current, @Nullable Key previous, @Nullable Key next) {
    this.current = current;
    this.previous = previous;
    this.next = next;
  }

  /**
   * A ring holding only a current key.
   *
   * @throws IllegalArgumentException if {@code key.length != 32}
   */
  public static TokenKeys of(int keyId, byte[] key) {
    return builder().current(keyId, key).build();
  }

  /** An empty builder; a current key is required. */
  /**
   * The ring a data server receives from the MDS (current, and next and previous when set).
   *
   * @throws IllegalArgumentException if the current key is missing or a secret is not 32 bytes
   */
  public static TokenKeys fromProto(io.braidfs.proto.SigningKeys keys) {
    if (!keys.hasCurrent()) {
      throw new IllegalArgumentException("signing keys without a current key");
    }
    Builder b =
        builder()
            .current(keys.getCurrent().getKeyId(), keys.getCurrent().getSecret().toByteArray());
    if (keys.hasNext()) {
      b.next(keys.getNext().getKeyId(), keys.getNext().getSecret().toByteArray());
    }
    if (keys.hasPrevious()) {
      b.previous(keys.getPrevious().getKeyId(), keys.getPrevious().getSecret().toByteArray());
    }
    return b.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The id of the key that signs new tokens. */
  public int currentKeyId() {
    return current.id;
  }

  /** The id of the previous key, if the ring has one. */
  public OptionalInt previousKeyId() {
    return previous == null ? OptionalInt.empty() : OptionalInt.of(previous.id);
  }

  /** The id of the next key, if the ring has one. */
  public OptionalInt nextKeyId() {
    return next == null ? OptionalInt.empty() : OptionalInt.of(next.id);
  }

  /** Whether tokens signed with key {@code keyId} are accepted. */
  public boolean contains(int keyId) {
    return secret(keyId) != null;
  }

  /** A signer with the current key. */
  public TokenSigner currentSigner() {
    return new TokenSigner(current.id, current.secret);
  }

  /** The key with this id, or null if the ring does not hold it. */
  @Nullable SecretKeySpec secret(int keyId) {
    if (current.id == keyId) {
      return current.secret;
    }
    if (previous != null && previous.id == keyId) {
      return previous.secret;
    }
    if (next != null && next.id == keyId) {
      return next.secret;
    }
    return null;
  }

  @Override
  public String toString() {
    return "TokenKeys[current="
        + Integer.toUnsignedString(current.id)
        + (previous == null ? "" : ", previous=" + Integer.toUnsignedString(previous.id))
        + (next == null ? "" : ", next=" + Integer.toUnsignedString(next.id))
        + "]";
  }

  /** One key of the ring. */
  private static final class Key {
    final int id;
    final SecretKeySpec secret;

    Key(int id, byte[] key) {
      this.id = id;
      this.secret = TokenMac.keySpec(key);
    }
  }

  /**
   * Collects the keys of a ring; each key is checked and copied when it is set.
   *
   * <p>Thread-safety: not thread-safe; confine a builder to one thread.
   */
  public static final class Builder {
    private @Nullable Key current;
    private @Nullable Key previous;
    private @Nullable Key next;

    private Builder() {}

    /**
     * The key that signs new tokens; required.
     *
     * @throws IllegalArgumentException if {@code key.length != 32}
     */
    public Builder current(int keyId, byte[] key) {
      this.current = new Key(keyId, key);
      return this;
    }

    /**
     * The key that signed tokens before the current one.
     *
     * @throws IllegalArgumentException if {@code key.length != 32}
     */
    public Builder previous(int keyId, byte[] key) {
      this.previous = new Key(keyId, key);
      return this;
    }

    /**
     * The key that will sign tokens after the current one.
     *
     * @throws IllegalArgumentException if {@code key.length != 32}
     */
    public Builder next(int keyId, byte[] key) {
      this.next = new Key(keyId, key);
      return this;
    }

    /**
     * The ring.
     *
     * @throws IllegalStateException if no current key was set
     * @throws IllegalArgumentException if two keys have the same id
     */
    public TokenKeys build() {
      Key cur = current;
      if (cur == null) {
        throw new IllegalStateException("the current key is not set");
      }
      Key prev = previous;
      Key nxt = next;
      if ((prev != null && prev.id == cur.id)
          || (nxt != null && nxt.id == cur.id)
          || (prev != null && nxt != null && prev.id == nxt.id)) {
        throw new IllegalArgumentException(
            "key ids in a ring must be distinct: " + new TokenKeys(cur, prev, nxt));
      }
      return new TokenKeys(cur, prev, nxt);
    }
  }
}
