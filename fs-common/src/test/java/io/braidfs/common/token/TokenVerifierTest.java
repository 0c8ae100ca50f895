package io.braidfs.common.token;

import static io.braidfs.common.token.CapabilityToken.READ;
import static io.braidfs.common.token.CapabilityToken.WRITE;
import static io.braidfs.common.token.TokenFixtures.CLIENT;
import static io.braidfs.common.token.TokenFixtures.EPOCH;
import static io.braidfs.common.token.TokenFixtures.EXPIRY;
import static io.braidfs.common.token.TokenFixtures.FILE;
import static io.braidfs.common.token.TokenFixtures.FIRST_CHUNK;
import static io.braidfs.common.token.TokenFixtures.GENERATION;
import static io.braidfs.common.token.TokenFixtures.LAST_CHUNK;
import static io.braidfs.common.token.TokenFixtures.NOT_BEFORE;
import static io.braidfs.common.token.TokenFixtures.NOW;
import static io.braidfs.common.token.TokenFixtures.OTHER_CLIENT;
import static io.braidfs.common.token.TokenFixtures.key;
import static io.braidfs.common.token.TokenFixtures.readRequest;
import static io.braidfs.common.token.TokenFixtures.request;
import static io.braidfs.common.token.TokenFixtures.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.token.TokenVerifier.Outcome;
import io.braidfs.common.token.TokenVerifier.Result;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenVerifierTest {
  private static final int KEY_ID = 7;
  private static final long SKEW = TokenVerifier.DEFAULT_CLOCK_SKEW.toMillis();

  private final TokenSigner signer = new TokenSigner(KEY_ID, key(KEY_ID));
  private final TokenVerifier verifier = new TokenVerifier(TokenKeys.of(KEY_ID, key(KEY_ID)));
  private final CapabilityToken token = token(KEY_ID).build();
  private final byte[] signed = signer.sign(token);

  private Outcome verify(byte[] bytes, long now, AccessRequest request) {
    return verifier.verify(bytes, now, request).outcome();
  }

  @Test
  void validTokenIsAcceptedForEveryCoveredChunkAndMode() {
    for (long chunk = FIRST_CHUNK; chunk <= LAST_CHUNK; chunk++) {
      for (int mode : new int[] {READ, WRITE, READ | WRITE}) {
        Result result = verifier.verify(signed, NOW, request(chunk, mode));
        assertThat(result.outcome()).isEqualTo(Outcome.OK);
        assertThat(result.isOk()).isTrue();
        assertThat(result.token()).isEqualTo(token);
      }
    }
  }

  @Test
  void everySingleByteTamperIsRejected() {
    for (int i = 0; i < signed.length; i++) {
      for (int flip : new int[] {0x01, 0x80, 0xff}) {
        byte[] tampered = signed.clone();
        tampered[i] ^= (byte) flip;
        Result result = verifier.verify(tampered, NOW, readRequest());
        Outcome expected;
        if (i == 0) {
          expected = Outcome.MALFORMED; // version
        } else if (i <= 4) {
          expected = Outcome.UNKNOWN_KEY; // key id
        } else {
          expected = Outcome.BAD_MAC; // any other body byte, or the tag
        }
        assertThat(result.outcome()).as("byte %d ^ %02x", i, flip).isEqualTo(expected);
        assertThat(result.token()).isNull();
      }
    }
  }

  @Test
  void widenedChunkRangeWithOldTagIsBadMac() {
    assertThat(verify(signed, NOW, request(LAST_CHUNK + 1, READ)))
        .isEqualTo(Outcome.CHUNK_OUT_OF_RANGE);
    CapabilityToken widened = token.toBuilder().chunks(FIRST_CHUNK, LAST_CHUNK + 100).build();
    assertThat(verify(withOldTag(widened), NOW, request(LAST_CHUNK + 1, READ)))
        .isEqualTo(Outcome.BAD_MAC);
  }

  @Test
  void otherEditsWithOldTagAreBadMac() {
    CapabilityToken[] edits = {
      token.toBuilder().validity(NOT_BEFORE, EXPIRY + 3_600_000).build(),
      token.toBuilder().fileId(FILE + 1).build(),
      token.toBuilder().clientId(OTHER_CLIENT).build(),
      token.toBuilder().modes(WRITE).build(),
      token.toBuilder().mdsEpoch(EPOCH + 1).build(),
    };
    for (CapabilityToken edit : edits) {
      assertThat(verify(withOldTag(edit), NOW, readRequest()))
          .as(edit.toString())
          .isEqualTo(Outcome.BAD_MAC);
    }
  }

  @Test
  void expiryWithSkewAllowance() {
    assertThat(verify(signed, EXPIRY, readRequest())).isEqualTo(Outcome.OK);
    assertThat(verify(signed, EXPIRY + SKEW, readRequest())).isEqualTo(Outcome.OK);
    assertThat(verify(signed, EXPIRY + SKEW + 1, readRequest())).isEqualTo(Outcome.EXPIRED);
    assertThat(verify(signed, Long.MAX_VALUE, readRequest())).isEqualTo(Outcome.EXPIRED);
  }

  @Test
  void notBeforeWithSkewAllowance() {
    assertThat(verify(signed, NOT_BEFORE, readRequest())).isEqualTo(Outcome.OK);
    assertThat(verify(signed, NOT_BEFORE - SKEW, readRequest())).isEqualTo(Outcome.OK);
    assertThat(verify(signed, NOT_BEFORE - SKEW - 1, readRequest()))
        .isEqualTo(Outcome.NOT_YET_VALID);
    assertThat(verify(signed, Long.MIN_VALUE, readRequest())).isEqualTo(Outcome.NOT_YET_VALID);
  }

  @Test
  void skewIsConfigurable() {
    TokenKeys keys = TokenKeys.of(KEY_ID, key(KEY_ID));
    TokenVerifier strict = new TokenVerifier(keys, Duration.ZERO);
    assertThat(strict.verify(signed, EXPIRY, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(strict.verify(signed, EXPIRY + 1, readRequest()).outcome())
        .isEqualTo(Outcome.EXPIRED);
    assertThat(strict.verify(signed, NOT_BEFORE - 1, readRequest()).outcome())
        .isEqualTo(Outcome.NOT_YET_VALID);

    TokenVerifier lenient = new TokenVerifier(keys, Duration.ofMinutes(2));
    assertThat(lenient.verify(signed, EXPIRY + 120_000, readRequest()).outcome())
        .isEqualTo(Outcome.OK);
    assertThat(lenient.verify(signed, EXPIRY + 120_001, readRequest()).outcome())
        .isEqualTo(Outcome.EXPIRED);
    assertThat(lenient.clockSkew()).isEqualTo(Duration.ofMinutes(2));
    assertThat(new TokenVerifier(keys).clockSkew()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void extremeValidityDoesNotOverflow() {
    TokenVerifier max =
        new TokenVerifier(TokenKeys.of(KEY_ID, key(KEY_ID)), Duration.ofMinutes(10));
    byte[] forever = signer.sign(token.toBuilder().validity(0, Long.MAX_VALUE).build());
    assertThat(max.verify(forever, Long.MAX_VALUE, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(max.verify(forever, 0, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(max.verify(forever, -600_000, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(max.verify(forever, -600_001, readRequest()).outcome())
        .isEqualTo(Outcome.NOT_YET_VALID);
    byte[] instant = signer.sign(token.toBuilder().validity(0, 0).build());
    assertThat(max.verify(instant, Long.MAX_VALUE, readRequest()).outcome())
        .isEqualTo(Outcome.EXPIRED);
  }

  @ParameterizedTest
  @ValueSource(longs = {-1, 600_001, Long.MAX_VALUE / 1_000_000})
  void skewMustBeBetweenZeroAndTenMinutes(long millis) {
    TokenKeys keys = TokenKeys.of(KEY_ID, key(KEY_ID));
    assertThatThrownBy(() -> new TokenVerifier(keys, Duration.ofMillis(millis)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clockSkew");
  }

  @Test
  void unknownKeyIdIsRejected() {
    byte[] otherKey = new TokenSigner(8, key(8)).sign(token(8).build());
    Result result = verifier.verify(otherKey, NOW, readRequest());
    assertThat(result.outcome()).isEqualTo(Outcome.UNKNOWN_KEY);
    assertThat(result.token()).isNull();
  }

  @Test
  void sameKeyIdWithOtherKeyMaterialIsBadMac() {
    byte[] forged = new TokenSigner(KEY_ID, key(99)).sign(token);
    assertThat(verify(forged, NOW, readRequest())).isEqualTo(Outcome.BAD_MAC);
  }

  @Test
  void keyRotationOverlap() {
    byte[] fromKey1 = new TokenSigner(1, key(1)).sign(token(1).build());
    byte[] fromKey2 = new TokenSigner(2, key(2)).sign(token(2).build());
    byte[] fromKey3 = new TokenSigner(3, key(3)).sign(token(3).build());

    TokenVerifier v1 =
        new TokenVerifier(TokenKeys.builder().current(1, key(1)).next(2, key(2)).build());
    assertThat(v1.verify(fromKey1, NOW, readRequest()).outcome()).isEqualTo(Outcome.OK);
    // A data server that already has the next key accepts tokens from an MDS that switched to it.
    assertThat(v1.verify(fromKey2, NOW, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(v1.verify(fromKey3, NOW, readRequest()).outcome()).isEqualTo(Outcome.UNKNOWN_KEY);

    TokenVerifier v2 =
        v1.withKeys(
            TokenKeys.builder().previous(1, key(1)).current(2, key(2)).next(3, key(3)).build());
    assertThat(v2.verify(fromKey1, NOW, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(v2.verify(fromKey2, NOW, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(v2.verify(fromKey3, NOW, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(v2.clockSkew()).isEqualTo(v1.clockSkew());

    // Key 1 retired: its tokens are refused even though they have not expired.
    TokenVerifier v3 =
        v2.withKeys(TokenKeys.builder().previous(2, key(2)).current(3, key(3)).build());
    assertThat(v3.verify(fromKey1, NOW, readRequest()).outcome()).isEqualTo(Outcome.UNKNOWN_KEY);
    assertThat(v3.verify(fromKey2, NOW, readRequest()).outcome()).isEqualTo(Outcome.OK);
    assertThat(v3.keys().contains(1)).isFalse();
  }

  @Test
  void wrongClientIsRejected() {
    AccessRequest other =
        new AccessRequest(OTHER_CLIENT, FILE, GENERATION, FIRST_CHUNK, READ, EPOCH);
    Result result = verifier.verify(signed, NOW, other);
    assertThat(result.outcome()).isEqualTo(Outcome.WRONG_CLIENT);
    assertThat(result.token()).isEqualTo(token); // authentic, so available for the audit log
  }

  @Test
  void wrongFileOrGenerationIsRejected() {
    assertThat(
            verify(signed, NOW, new AccessRequest(CLIENT, FILE + 1, GENERATION, 10, READ, EPOCH)))
        .isEqualTo(Outcome.WRONG_FILE);
    assertThat(
            verify(signed, NOW, new AccessRequest(CLIENT, FILE, GENERATION + 1, 10, READ, EPOCH)))
        .isEqualTo(Outcome.WRONG_FILE);
    assertThat(
            verify(signed, NOW, new AccessRequest(CLIENT, FILE, GENERATION - 1, 10, READ, EPOCH)))
        .isEqualTo(Outcome.WRONG_FILE);
  }

  @Test
  void chunkOutsideTheRangeIsRejected() {
    assertThat(verify(signed, NOW, request(FIRST_CHUNK - 1, READ)))
        .isEqualTo(Outcome.CHUNK_OUT_OF_RANGE);
    assertThat(verify(signed, NOW, request(LAST_CHUNK + 1, READ)))
        .isEqualTo(Outcome.CHUNK_OUT_OF_RANGE);
    assertThat(verify(signed, NOW, request(-1, READ))).isEqualTo(Outcome.CHUNK_OUT_OF_RANGE);
    assertThat(verify(signed, NOW, request(Long.MAX_VALUE, READ)))
        .isEqualTo(Outcome.CHUNK_OUT_OF_RANGE);
  }

  @Test
  void modeNotGrantedIsRejected() {
    byte[] readOnly = signer.sign(token.toBuilder().modes(READ).build());
    byte[] writeOnly = signer.sign(token.toBuilder().modes(WRITE).build());
    assertThat(verify(readOnly, NOW, request(10, READ))).isEqualTo(Outcome.OK);
    assertThat(verify(readOnly, NOW, request(10, WRITE))).isEqualTo(Outcome.MODE_DENIED);
    assertThat(verify(readOnly, NOW, request(10, READ | WRITE))).isEqualTo(Outcome.MODE_DENIED);
    assertThat(verify(writeOnly, NOW, request(10, WRITE))).isEqualTo(Outcome.OK);
    assertThat(verify(writeOnly, NOW, request(10, READ))).isEqualTo(Outcome.MODE_DENIED);
  }

  @Test
  void staleEpochIsRejected() {
    AccessRequest atEpoch = new AccessRequest(CLIENT, FILE, GENERATION, 10, READ, EPOCH);
    AccessRequest newer = new AccessRequest(CLIENT, FILE, GENERATION, 10, READ, EPOCH + 1);
    AccessRequest older = new AccessRequest(CLIENT, FILE, GENERATION, 10, READ, 0);
    assertThat(verify(signed, NOW, atEpoch)).isEqualTo(Outcome.OK);
    assertThat(verify(signed, NOW, older)).isEqualTo(Outcome.OK);
    assertThat(verify(signed, NOW, newer)).isEqualTo(Outcome.STALE_EPOCH);
  }

  @Test
  void truncatedAndOversizedInputsAreMalformed() {
    for (int length = 0; length < signed.length; length++) {
      assertThat(verify(Arrays.copyOf(signed, length), NOW, readRequest()))
          .as("length %d", length)
          .isEqualTo(Outcome.MALFORMED);
    }
    for (int length : new int[] {signed.length + 1, signed.length + 32, 4096}) {
      assertThat(verify(Arrays.copyOf(signed, length), NOW, readRequest()))
          .as("length %d", length)
          .isEqualTo(Outcome.MALFORMED);
    }
    assertThat(verify(null, NOW, readRequest())).isEqualTo(Outcome.MALFORMED);
    assertThat(verify(new byte[signed.length], NOW, readRequest())).isEqualTo(Outcome.MALFORMED);
  }

  @Test
  void authenticTokenWithInvalidFieldsIsMalformed() {
    byte[] body = new byte[CapabilityToken.BODY_LENGTH];
    token.encodeBody(ByteBuffer.wrap(body));
    body[69] = 4; // modes: an unknown bit, which no signer writes
    byte[] forged = Arrays.copyOf(body, CapabilityToken.SIGNED_LENGTH);
    byte[] tag = TokenMac.tag(TokenMac.keySpec(key(KEY_ID)), body, 0, body.length);
    System.arraycopy(tag, 0, forged, body.length, tag.length);
    Result result = verifier.verify(forged, NOW, readRequest());
    assertThat(result.outcome()).isEqualTo(Outcome.MALFORMED);
    assertThat(result.token()).isNull();
  }

  @Test
  void checksRunInTheResearchNoteOrder() {
    AccessRequest wrongEverything = new AccessRequest(OTHER_CLIENT, FILE + 1, 0, 99, WRITE, 99);
    byte[] readOnly = signer.sign(token.toBuilder().modes(READ).build());
    long late = EXPIRY + SKEW + 1;
    assertThat(verify(withOldTag(token.toBuilder().fileId(1).build()), late, wrongEverything))
        .isEqualTo(Outcome.BAD_MAC);
    assertThat(verify(readOnly, late, wrongEverything)).isEqualTo(Outcome.EXPIRED);
    assertThat(verify(readOnly, NOW, wrongEverything)).isEqualTo(Outcome.WRONG_CLIENT);
    assertThat(
            verify(readOnly, NOW, new AccessRequest(CLIENT, FILE + 1, GENERATION, 99, WRITE, 99)))
        .isEqualTo(Outcome.WRONG_FILE);
    assertThat(verify(readOnly, NOW, new AccessRequest(CLIENT, FILE, GENERATION, 99, WRITE, 99)))
        .isEqualTo(Outcome.CHUNK_OUT_OF_RANGE);
    assertThat(verify(readOnly, NOW, new AccessRequest(CLIENT, FILE, GENERATION, 10, WRITE, 99)))
        .isEqualTo(Outcome.MODE_DENIED);
    assertThat(verify(readOnly, NOW, new AccessRequest(CLIENT, FILE, GENERATION, 10, READ, 99)))
        .isEqualTo(Outcome.STALE_EPOCH);
    byte[] unknownKey = new TokenSigner(8, key(8)).sign(token(8).build());
    assertThat(verify(unknownKey, late, wrongEverything)).isEqualTo(Outcome.UNKNOWN_KEY);
  }

  @Test
  void requestModeIsValidated() {
    for (int mode : new int[] {0, 4, -1, READ | 8}) {
      assertThatThrownBy(() -> request(10, mode))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(String.valueOf(mode));
    }
    assertThatThrownBy(() -> verifier.verify(signed, NOW, null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void okResultMustCarryItsToken() {
    assertThatThrownBy(() -> new Result(Outcome.OK, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new Result(Outcome.EXPIRED, null).isOk()).isFalse();
  }

  @Test
  void toStringShowsConfigurationWithoutKeys() {
    assertThat(verifier).hasToString("TokenVerifier[TokenKeys[current=7], clockSkew=PT30S]");
  }

  /** Signing and verifying from many threads at once share no Mac state. */
  @Test
  void concurrentUseFromManyThreads() throws Exception {
    TokenKeys keys = TokenKeys.builder().previous(1, key(1)).current(2, key(2)).build();
    TokenVerifier shared = new TokenVerifier(keys);
    TokenSigner oldSigner = new TokenSigner(1, key(1));
    TokenSigner newSigner = keys.currentSigner();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<Integer>> tasks = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        int task = t;
        tasks.add(
            () -> {
              int ok = 0;
              for (int i = 0; i < 500; i++) {
                boolean old = (i + task) % 2 == 0;
                TokenSigner s = old ? oldSigner : newSigner;
                byte[] bytes = s.sign(token(s.keyId()).chunkVersionFloor(i).build());
                Result r = shared.verify(bytes, NOW, readRequest());
                ok += r.isOk() && r.token().chunkVersionFloor() == i ? 1 : 0;
                bytes[50] ^= 1;
                ok -= shared.verify(bytes, NOW, readRequest()).isOk() ? 1 : 0;
              }
              return ok;
            });
      }
      for (Future<Integer> f : pool.invokeAll(tasks)) {
        assertThat(f.get()).isEqualTo(500);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** The signed encoding of {@code edited} carrying the tag of the original token. */
  private byte[] withOldTag(CapabilityToken edited) {
    byte[] bytes = signer.sign(edited);
    System.arraycopy(
        signed,
        CapabilityToken.BODY_LENGTH,
        bytes,
        CapabilityToken.BODY_LENGTH,
        CapabilityToken.TAG_LENGTH);
    return bytes;
  }
}
