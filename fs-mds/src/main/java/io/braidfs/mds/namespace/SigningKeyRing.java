package io.braidfs.mds.namespace;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.braidfs.common.error.Status;
import io.braidfs.common.token.TokenKeys;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.StoreView;
import io.braidfs.proto.SigningKey;
import io.braidfs.proto.SigningKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import org.jspecify.annotations.Nullable;

/**
 * The keys capability tokens are signed with, kept in the namespace's META family so that they
 * travel in the journal: a standby that takes over signs with the keys the old leader's data
 * servers already hold.
 *
 * <p>Rotation (ha-meta-security.md section 5.3, as HDFS's block keys): every interval, the previous
 * key is dropped, the current key becomes previous, the next key becomes current and a new random
 * key becomes next. Data servers receive the whole ring with every heartbeat, so they hold a key
 * for a whole interval before the MDS signs with it, and keep it for a whole interval after. The
 * interval is never shorter than the token lifetime, so every token the previous key signed has
 * expired by the time that key is dropped.
 *
 * <p>A namespace formatted before rotation existed holds one key under {@code signing-key}; it is
 * loaded as the current key (id 1) and the first rotation adds a next key without switching.
 *
 * <p>Thread-safety: {@link #load}, {@link #format} and {@link #rotateIfDue} run on the mutation
 * thread; the getters are thread-safe (the ring is swapped through a volatile field).
 */
final class SigningKeyRing {
  private static final byte[] LEGACY_KEY = Keys.meta("signing-key");
  private static final byte[] RING = Keys.meta("signing-keys");
  private static final byte[] ROTATED = Keys.meta("signing-keys-rotated-ns");

  private final String id;
  private final long intervalNs;
  private final SecureRandom random = new SecureRandom();

  private volatile @Nullable State state;

  private record State(SigningKeys ring, TokenKeys keys, long rotatedNs) {}

  /**
   * @param intervalMs how often to rotate; raised to {@code tokenLifetimeMs} if shorter
   */
  SigningKeyRing(String id, long intervalMs, long tokenLifetimeMs) {
    this.id = id;
    this.intervalNs = Math.max(intervalMs, tokenLifetimeMs) * 1_000_000L;
  }

  /** Writes the first ring (a current and a next key) into a mutation that formats the store. */
  void format(Mutation m) {
    SigningKeys ring = SigningKeys.newBuilder().setCurrent(newKey(1)).setNext(newKey(2)).build();
    m.put(ColumnFamily.META, RING, ring.toByteArray());
    m.put(ColumnFamily.META, ROTATED, longBytes(m.nowNs()));
  }

  /** Reads the ring as {@code view} holds it. */
  void load(StoreView view) throws IOException {
    byte[] ring = view.get(ColumnFamily.META, RING);
    if (ring != null) {
      byte[] rotated = view.get(ColumnFamily.META, ROTATED);
      try {
        install(
            SigningKeys.parseFrom(ring), rotated == null ? 0 : ByteBuffer.wrap(rotated).getLong());
      } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
        throw Resolver.fail(Status.INTERNAL, id + ": the stored signing keys are unreadable: " + e);
      }
      return;
    }
    byte[] legacy = view.get(ColumnFamily.META, LEGACY_KEY);
    if (legacy == null) {
      throw Resolver.fail(Status.INTERNAL, id + ": the namespace holds no signing key");
    }
    install(
        SigningKeys.newBuilder()
            .setCurrent(
                SigningKey.newBuilder()
                    .setKeyId(1)
                    .setSecret(ByteString.copyFrom(legacy))
                    .setExpiresNs(Long.MAX_VALUE))
            .build(),
        0);
  }

  /**
   * Rotates the ring in {@code m} if an interval has passed since the last rotation (or the ring
   * has no next key yet); the new ring is served once {@code m} is applied.
   *
   * @return whether {@code m} now holds a rotation
   */
  boolean rotateIfDue(Mutation m) {
    State s = loaded();
    long now = m.nowNs();
    if (s.ring.hasNext() && now - s.rotatedNs < intervalNs) {
      return false;
    }
    SigningKeys ring;
    if (!s.ring.hasNext()) {
      // A ring loaded from a single legacy key: publish a next key before signing with it.
      ring = s.ring.toBuilder().setNext(newKey(s.ring.getCurrent().getKeyId() + 1)).build();
    } else {
      SigningKey next = s.ring.getNext();
      ring =
          SigningKeys.newBuilder()
              .setPrevious(s.ring.getCurrent().toBuilder().setExpiresNs(now + intervalNs))
              .setCurrent(next)
              .setNext(newKey(next.getKeyId() + 1))
              .build();
    }
    m.put(ColumnFamily.META, RING, ring.toByteArray());
    m.put(ColumnFamily.META, ROTATED, longBytes(now));
    SigningKeys installed = ring;
    m.afterApply(() -> install(installed, now));
    return true;
  }

  /** The keys tokens are signed and checked with. */
  TokenKeys keys() {
    return loaded().keys;
  }

  /** The ring for data servers (secret: never log it). */
  SigningKeys ring() {
    return loaded().ring;
  }

  private State loaded() {
    State s = state;
    if (s == null) {
      throw new IllegalStateException(id + ": signing keys not loaded");
    }
    return s;
  }

  private void install(SigningKeys ring, long rotatedNs) {
    state = new State(ring, TokenKeys.fromProto(ring), rotatedNs);
  }

  private SigningKey newKey(int keyId) {
    byte[] secret = new byte[32];
    random.nextBytes(secret);
    return SigningKey.newBuilder()
        .setKeyId(keyId)
        .setSecret(ByteString.copyFrom(secret))
        .setExpiresNs(Long.MAX_VALUE)
        .build();
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
  }
}
