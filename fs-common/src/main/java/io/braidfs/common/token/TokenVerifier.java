package io.braidfs.common.token;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Checks a signed capability token against a request, on a data server, before any work is done.
 *
 * <p>The checks run in the order of ha-meta-security.md section 5.3, and the first failure is the
 * outcome: the encoding (length and version, else {@link Outcome#MALFORMED}); the key id is in the
 * ring; the MAC, compared in constant time; {@code now} in {@code [notBefore, expiry]} widened by
 * the clock skew on both sides; the client; the file and generation, then the chunk range; the
 * mode; the MDS epoch. Authentication comes first so that nothing is learned from a forged token's
 * fields. The research note's last step, the replica's chunk version, is the caller's: compare the
 * replica's version with {@link CapabilityToken#chunkVersionFloor()} of the returned token.
 *
 * <p>Verification never throws for bad token bytes: every problem is an {@link Outcome}. It costs
 * one HMAC-SHA256 over 86 bytes and a few allocations.
 *
 * <p>Thread-safety: immutable and safe for concurrent use. To rotate keys, build a new verifier
 * with {@link #withKeys} and publish it (for example through a volatile field).
 */
public final class TokenVerifier {
  /** The clock skew allowed by {@link #TokenVerifier(TokenKeys)}: 30 seconds. */
  public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(30);

  /**
   * The largest clock skew accepted: 10 minutes. Tokens live 5-15 minutes, so a larger allowance
   * would make expiry meaningless; a skew that large is a clock to fix, not to tolerate.
   */
  public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(10);

  /** Why a token was accepted or refused. */
  public enum Outcome {
    /** Every check passed. */
    OK,
    /** Wrong length, unknown version, or field values no signer produces. */
    MALFORMED,
    /** The key id is not in the ring (retired, or not yet received). */
    UNKNOWN_KEY,
    /** The tag does not match the body: forged, tampered with, or signed with another key. */
    BAD_MAC,
    /** {@code now} is before {@code notBefore - skew}. */
    NOT_YET_VALID,
    /** {@code now} is after {@code expiry + skew}. */
    EXPIRED,
    /** The token was issued to another client. */
    WRONG_CLIENT,
    /** The token is for another file, or another generation of the file. */
    WRONG_FILE,
    /** The requested chunk is outside the token's chunk range. */
    CHUNK_OUT_OF_RANGE,
    /** The token does not grant every requested mode. */
    MODE_DENIED,
    /** The token was issued by an MDS leader older than the data server's minimum epoch. */
    STALE_EPOCH
  }

  /**
   * The outcome of a verification, with the token if it is authentic.
   *
   * @param outcome the first check that failed, or {@link Outcome#OK}
   * @param token the decoded token when the MAC was valid (whatever the outcome after that), else
   *     null: the fields of an unauthenticated token are not to be trusted or logged as facts
   */
  public record Result(Outcome outcome, @Nullable CapabilityToken token) {
    /**
     * Checks consistency.
     *
     * @throws NullPointerException if {@code outcome} is null
     * @throws IllegalArgumentException if {@code outcome} is OK and {@code token} is null
     */
    public Result {
      Objects.requireNonNull(outcome, "outcome");
      if (outcome == Outcome.OK && token == null) {
        throw new IllegalArgumentException("an OK result carries its token");
      }
    }

    /** Whether the request may proceed. */
    public boolean isOk() {
      return outcome == Outcome.OK;
    }
  }

  private static final Result MALFORMED = new Result(Outcome.MALFORMED, null);
  private static final Result UNKNOWN_KEY = new Result(Outcome.UNKNOWN_KEY, null);
  private static final Result BAD_MAC = new Result(Outcome.BAD_MAC, null);

  private final TokenKeys keys;
  private final Duration clockSkew;
  private final long skewMillis;

  /** A verifier with the {@linkplain #DEFAULT_CLOCK_SKEW default clock skew}. */
  public TokenVerifier(TokenKeys keys) {
    this(keys, DEFAULT_CLOCK_SKEW);
  }

  /**
   * A verifier that accepts tokens up to {@code clockSkew} before their {@code notBefore} or after
   * their {@code expiry}, to allow for clock differences between the MDS and data servers.
   *
   * @throws IllegalArgumentException if {@code clockSkew} is negative or longer than {@link
   *     #MAX_CLOCK_SKEW}
   */
  public TokenVerifier(TokenKeys keys, Duration clockSkew) {
    this.keys = Objects.requireNonNull(keys, "keys");
    if (clockSkew.isNegative() || clockSkew.compareTo(MAX_CLOCK_SKEW) > 0) {
      throw new IllegalArgumentException(
          "clockSkew must be in [0, " + MAX_CLOCK_SKEW + "]: " + clockSkew);
    }
    this.clockSkew = clockSkew;
    this.skewMillis = clockSkew.toMillis();
  }

  /** A verifier with the same clock skew and a new key ring. */
  public TokenVerifier withKeys(TokenKeys newKeys) {
    return new TokenVerifier(newKeys, clockSkew);
  }

  /** The key ring. */
  public TokenKeys keys() {
    return keys;
  }

  /** The allowed clock skew. */
  public Duration clockSkew() {
    return clockSkew;
  }

  /**
   * Checks {@code token} (as produced by {@link TokenSigner#sign}) against {@code request} at
   * {@code nowMillis}. The array is only read, and must not change during the call.
   *
   * @param token the signed token as received; null or any length is accepted (and refused)
   * @param nowMillis the data server's clock, epoch milliseconds
   * @throws NullPointerException if {@code request} is null
   */
  public Result verify(byte @Nullable [] token, long nowMillis, AccessRequest request) {
    Objects.requireNonNull(request, "request");
    if (token == null
        || token.length != CapabilityToken.SIGNED_LENGTH
        || (token[0] & 0xFF) != CapabilityToken.VERSION) {
      return MALFORMED;
    }
    SecretKeySpec secret = keys.secret(ByteBuffer.wrap(token).getInt(1));
    if (secret == null) {
      return UNKNOWN_KEY;
    }
    byte[] expected = TokenMac.tag(secret, token, 0, CapabilityToken.BODY_LENGTH);
    byte[] actual =
        Arrays.copyOfRange(token, CapabilityToken.BODY_LENGTH, CapabilityToken.SIGNED_LENGTH);
    if (!MessageDigest.isEqual(expected, actual)) { // constant time: no timing oracle for forgers
      return BAD_MAC;
    }
    CapabilityToken decoded =
        CapabilityToken.decodeBody(ByteBuffer.wrap(token, 0, CapabilityToken.BODY_LENGTH));
    if (decoded == null) {
      return MALFORMED; // authentic but invalid: only a signer bug can produce this
    }
    return new Result(authorize(decoded, nowMillis, request), decoded);
  }

  /** Checks 3-7 of the research note on an authentic token. */
  private Outcome authorize(CapabilityToken t, long now, AccessRequest request) {
    // notBefore and expiry are >= 0 and the skew is small, so neither difference can overflow.
    if (now < t.notBefore() - skewMillis) {
      return Outcome.NOT_YET_VALID;
    }
    if (now > t.expiry() && now - t.expiry() > skewMillis) {
      return Outcome.EXPIRED;
    }
    if (!t.clientId().equals(request.clientId())) {
      return Outcome.WRONG_CLIENT;
    }
    if (t.fileId() != request.fileId() || t.fileGeneration() != request.fileGeneration()) {
      return Outcome.WRONG_FILE;
    }
    if (!t.coversChunk(request.chunkIndex())) {
      return Outcome.CHUNK_OUT_OF_RANGE;
    }
    if (!t.allows(request.mode())) {
      return Outcome.MODE_DENIED;
    }
    if (t.mdsEpoch() < request.minEpoch()) {
      return Outcome.STALE_EPOCH;
    }
    return Outcome.OK;
  }

  @Override
  public String toString() {
    return "TokenVerifier[" + keys + ", clockSkew=" + clockSkew + "]";
  }
}
