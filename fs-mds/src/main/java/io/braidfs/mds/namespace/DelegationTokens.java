package io.braidfs.mds.namespace;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.CallerContext;
import io.braidfs.common.security.DelegationTokenIdentifier;
import io.braidfs.common.security.DelegationTokenPasswords;
import io.braidfs.common.security.DelegationTokenSecrets;
import io.braidfs.common.security.Security;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreView;
import io.braidfs.proto.DelegationKeys;
import io.braidfs.proto.GetDelegationTokenResponse;
import io.braidfs.proto.SigningKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Delegation tokens (Hadoop's model, ha-meta-security.md section 5.1): a Kerberos user asks for
 * one, hands it to a job, and the job's tasks authenticate with it until it expires, is cancelled
 * or passes its max date. Everything lives in the namespace's META family, written by journal
 * records: the delegation keys, the sequence counter and one entry per live token (its identifier
 * and when it expires unless renewed). So tokens survive restarts and follow failover.
 *
 * <p>A token's password is the HMAC of its identifier under a delegation key, so data servers,
 * which receive the keys, check a token's Hello without asking the MDS. Keys rotate every key
 * interval and are kept until every token they made has passed its max date.
 *
 * <p>Thread-safety: the mutating methods run on the mutation thread; {@link #passwordOf} and {@link
 * #keysForDataServers} on any thread.
 */
public final class DelegationTokens implements DelegationTokenPasswords {
  private static final byte[] KEYS = Keys.meta("dt-keys");
  private static final byte[] KEYS_ROTATED = Keys.meta("dt-keys-rotated-ns");
  private static final byte[] SEQUENCE = Keys.meta("dt-sequence");
  private static final String TOKEN_PREFIX = "dt/";

  private final String id;
  private final long renewMs;
  private final long maxLifetimeMs;
  private final long keyIntervalMs;
  private final Set<String> serviceUsers;
  private final LongSupplier clockMs;
  private final SecureRandom random = new SecureRandom();

  private volatile DelegationKeys keys = DelegationKeys.getDefaultInstance();
  private volatile long keysRotatedMs;
  private int sequence;

  /** Live tokens: sequence to identifier and expiry. */
  private volatile Map<Integer, Live> live = new ConcurrentHashMap<>();

  private record Live(byte[] identifier, long expiresMs) {}

  DelegationTokens(
      String id,
      long renewMs,
      long maxLifetimeMs,
      long keyIntervalMs,
      Set<String> serviceUsers,
      LongSupplier clockMs) {
    this.id = id;
    this.renewMs = renewMs;
    this.maxLifetimeMs = maxLifetimeMs;
    this.keyIntervalMs = keyIntervalMs;
    this.serviceUsers = Set.copyOf(serviceUsers);
    this.clockMs = clockMs;
  }

  /**
   * What a standby checks a token's Hello with before it answers NOT_LEADER: the keys in its own
   * copy of the namespace and the token's max date (the leader checks the rest).
   */
  public static DelegationTokenPasswords standby(String id, StoreView store) {
    return (token, identifier, nowMs) -> {
      byte[] k = store.get(ColumnFamily.META, KEYS);
      if (k != null && token.maxMs() >= nowMs) {
        for (SigningKey key : DelegationKeys.parseFrom(k).getKeysList()) {
          if (key.getKeyId() == token.keyId()) {
            return DelegationTokenSecrets.halfPassword(
                DelegationTokenSecrets.mdsHalf(key.getSecret().toByteArray()), identifier);
          }
        }
      }
      throw Resolver.fail(
          Status.NOT_AUTHENTICATED,
          id
              + ": delegation token "
              + token.sequence()
              + " is past its max date or of an unknown key");
    };
  }

  /** Reads keys, counter and live tokens as {@code view} holds them. */
  void load(StoreView view) throws IOException {
    byte[] k = view.get(ColumnFamily.META, KEYS);
    try {
      keys = k == null ? DelegationKeys.getDefaultInstance() : DelegationKeys.parseFrom(k);
    } catch (InvalidProtocolBufferException e) {
      throw Resolver.fail(Status.INTERNAL, id + ": the stored delegation keys are unreadable");
    }
    byte[] rotated = view.get(ColumnFamily.META, KEYS_ROTATED);
    keysRotatedMs = rotated == null ? 0 : ByteBuffer.wrap(rotated).getLong();
    byte[] seq = view.get(ColumnFamily.META, SEQUENCE);
    sequence = seq == null ? 0 : ByteBuffer.wrap(seq).getInt();
    Map<Integer, Live> loaded = new ConcurrentHashMap<>();
    byte[] prefix = Keys.meta(TOKEN_PREFIX);
    byte[] cursor = null;
    do {
      ScanPage page = view.scan(ColumnFamily.META, prefix, cursor, 4096);
      for (ScanPage.Entry e : page.entries()) {
        ByteBuffer v = ByteBuffer.wrap(e.value());
        long expires = v.getLong();
        byte[] identifier = new byte[v.remaining()];
        v.get(identifier);
        loaded.put(
            DelegationTokenIdentifier.parse(identifier).sequence(), new Live(identifier, expires));
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    live = loaded; // swapped whole: Hellos checked meanwhile see the old map, never an empty one
    pending = null;
  }

  /**
   * Forgets what a mutation that never reached the journal decided: the counter and a key rotation.
   * (Live tokens change only when a mutation is applied.)
   */
  void abandoned(StoreView view) throws IOException {
    byte[] seq = view.get(ColumnFamily.META, SEQUENCE);
    sequence = seq == null ? 0 : ByteBuffer.wrap(seq).getInt();
    byte[] rotated = view.get(ColumnFamily.META, KEYS_ROTATED);
    keysRotatedMs = rotated == null ? 0 : ByteBuffer.wrap(rotated).getLong();
    pending = null;
  }

  /**
   * Issues a token to {@code caller} in {@code m}.
   *
   * @throws IOException PERMISSION_DENIED unless the caller authenticated with Kerberos as a user
   *     who is not a service user
   */
  public GetDelegationTokenResponse issue(Mutation m, CallerContext caller, String renewer)
      throws IOException {
    requireKerberos(caller, "get a delegation token");
    if (serviceUsers.contains(caller.user())) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          id + ": " + caller.user() + " is a service user, which gets no delegation tokens");
    }
    long now = m.nowNs() / 1_000_000L;
    rotateKeysIfDue(m);
    SigningKey key = currentKey();
    int seq = sequence + 1;
    DelegationTokenIdentifier token =
        new DelegationTokenIdentifier(
            caller.user(),
            renewer.isEmpty() ? caller.user() : renewer,
            caller.proxied() ? caller.realUser() : "",
            now,
            now + maxLifetimeMs,
            seq,
            key.getKeyId());
    byte[] identifier = token.toBytes();
    long expires = Math.min(token.maxMs(), now + renewMs);
    m.put(ColumnFamily.META, SEQUENCE, ByteBuffer.allocate(Integer.BYTES).putInt(seq).array());
    putToken(m, seq, identifier, expires);
    sequence = seq; // the mutation thread's counter; a failed append reloads (Namespace.abandoned)
    return GetDelegationTokenResponse.newBuilder()
        .setIdentifier(ByteString.copyFrom(identifier))
        .setPassword(
            ByteString.copyFrom(
                DelegationTokenSecrets.password(key.getSecret().toByteArray(), identifier)))
        .setExpiresMs(expires)
        .build();
  }

  /**
   * Renews a token in {@code m}: its renewer, authenticated with Kerberos, may.
   *
   * @return the new expiry
   */
  public long renew(Mutation m, CallerContext caller, byte[] identifier) throws IOException {
    requireKerberos(caller, "renew a delegation token");
    DelegationTokenIdentifier token = liveToken(identifier);
    if (!caller.user().equals(token.renewer())) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          id
              + ": "
              + caller.user()
              + " may not renew delegation token "
              + token.sequence()
              + " of "
              + token.owner()
              + ": its renewer is "
              + token.renewer());
    }
    long now = m.nowNs() / 1_000_000L;
    long expires = Math.min(token.maxMs(), now + renewMs);
    putToken(m, token.sequence(), identifier, expires);
    return expires;
  }

  /** Cancels a token in {@code m}: its owner or its renewer may. */
  public void cancel(Mutation m, CallerContext caller, byte[] identifier) throws IOException {
    if (!caller.authenticated()) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          id + ": delegation tokens need braid.security.authentication=KERBEROS");
    }
    DelegationTokenIdentifier token = liveToken(identifier);
    int own = Security.delegationTokenSequence(caller);
    if (own >= 0 && own != token.sequence()) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          id
              + ": a connection authenticated by delegation token "
              + own
              + " may cancel only that token, not "
              + token.sequence());
    }
    if (!caller.user().equals(token.owner()) && !caller.user().equals(token.renewer())) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          id
              + ": "
              + caller.user()
              + " may not cancel delegation token "
              + token.sequence()
              + ": only its owner "
              + token.owner()
              + " or renewer "
              + token.renewer()
              + " may");
    }
    int seq = token.sequence();
    m.delete(ColumnFamily.META, tokenKey(seq));
    m.afterApply(() -> live.remove(seq));
  }

  /**
   * The leader's housekeeping in {@code m}: drops expired tokens and keys, rotates the current key
   * when due.
   */
  public void expire(Mutation m) {
    long now = m.nowNs() / 1_000_000L;
    for (Map.Entry<Integer, Live> e : live.entrySet()) {
      if (e.getValue().expiresMs < now) {
        int seq = e.getKey();
        m.delete(ColumnFamily.META, tokenKey(seq));
        m.afterApply(() -> live.remove(seq));
      }
    }
    rotateKeysIfDue(m);
  }

  /** The data servers' halves of the live keys (secret: never log them). */
  public DelegationKeys keysForDataServers() {
    DelegationKeys k = keys;
    DelegationKeys cached = forDataServers;
    if (cached == null || cachedFrom != k) {
      DelegationKeys.Builder b = DelegationKeys.newBuilder();
      for (SigningKey key : k.getKeysList()) {
        b.addKeys(
            key.toBuilder()
                .setSecret(
                    ByteString.copyFrom(
                        DelegationTokenSecrets.dataServerHalf(key.getSecret().toByteArray()))));
      }
      cached = b.build();
      forDataServers = cached;
      cachedFrom = k;
    }
    return cached;
  }

  /** The data servers' halves of {@link #keys}, made once per key change (every heartbeat asks). */
  private volatile @Nullable DelegationKeys forDataServers;

  private volatile @Nullable DelegationKeys cachedFrom;

  @Override
  public @Nullable String revoked(int seq, long nowMs) {
    Live l = live.get(seq);
    if (l == null) {
      return "delegation token " + seq + " was cancelled or has expired";
    }
    return l.expiresMs < nowMs ? "delegation token " + seq + " has expired" : null;
  }

  @Override
  public byte[] passwordOf(DelegationTokenIdentifier token, byte[] identifier, long nowMs)
      throws IOException {
    Live l = live.get(token.sequence());
    if (l == null || !Arrays.equals(l.identifier, identifier)) {
      throw Resolver.fail(
          Status.NOT_AUTHENTICATED,
          "delegation token "
              + token.sequence()
              + " of "
              + token.owner()
              + " is not known (cancelled, expired or never issued)");
    }
    if (l.expiresMs < nowMs) {
      throw Resolver.fail(
          Status.NOT_AUTHENTICATED,
          "delegation token " + token.sequence() + " of " + token.owner() + " has expired");
    }
    for (SigningKey k : keys.getKeysList()) {
      if (k.getKeyId() == token.keyId()) {
        return DelegationTokenSecrets.halfPassword(
            DelegationTokenSecrets.mdsHalf(k.getSecret().toByteArray()), identifier);
      }
    }
    throw Resolver.fail(
        Status.NOT_AUTHENTICATED,
        "delegation token " + token.sequence() + " names unknown key " + token.keyId());
  }

  private DelegationTokenIdentifier liveToken(byte[] identifier) throws IOException {
    DelegationTokenIdentifier token;
    try {
      token = DelegationTokenIdentifier.parse(identifier);
    } catch (IllegalArgumentException e) {
      throw Resolver.fail(Status.INVALID_ARGUMENT, id + ": " + e.getMessage());
    }
    passwordOf(token, identifier, clockMs.getAsLong());
    return token;
  }

  private void requireKerberos(CallerContext caller, String what) throws IOException {
    if (!caller.authenticated()) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          id + ": delegation tokens need braid.security.authentication=KERBEROS");
    }
    if (Security.byDelegationToken(caller)) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED,
          id
              + ": a connection authenticated by a delegation token may not "
              + what
              + "; authenticate with Kerberos");
    }
  }

  private void putToken(Mutation m, int seq, byte[] identifier, long expires) {
    m.put(
        ColumnFamily.META,
        tokenKey(seq),
        ByteBuffer.allocate(Long.BYTES + identifier.length)
            .putLong(expires)
            .put(identifier)
            .array());
    Live l = new Live(identifier, expires);
    m.afterApply(() -> live.put(seq, l));
  }

  private static byte[] tokenKey(int seq) {
    return (TOKEN_PREFIX + seq).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The key new tokens use: the second newest, so that data servers have held it for a whole key
   * interval ({@link #rotateKeysIfDue} has made sure there are two).
   */
  private SigningKey currentKey() {
    DelegationKeys k = pending != null ? pending : keys;
    return k.getKeys(Math.max(0, k.getKeysCount() - 2));
  }

  /** Writes the first two keys into a mutation that formats the store. */
  void format(Mutation m) {
    rotateKeysIfDue(m);
  }

  /** A rotation written into a mutation not yet applied (the mutation thread's view). */
  private @Nullable DelegationKeys pending;

  private void rotateKeysIfDue(Mutation m) {
    long now = m.nowNs() / 1_000_000L;
    DelegationKeys current = pending != null ? pending : keys;
    boolean stale = current.getKeysCount() == 0 || now - keysRotatedMs >= keyIntervalMs;
    List<SigningKey> kept = new ArrayList<>();
    for (SigningKey k : current.getKeysList()) {
      if (k.getExpiresNs() / 1_000_000L >= now) {
        kept.add(k);
      }
    }
    if (!stale && kept.size() == current.getKeysCount()) {
      return;
    }
    if (stale) {
      int nextId =
          current.getKeysList().stream().mapToInt(SigningKey::getKeyId).max().orElse(0) + 1;
      // A new key is published an interval before it signs, signs for one interval, and its
      // tokens live at most the max lifetime after that. A first rotation makes two.
      for (int n = kept.isEmpty() ? 2 : 1; n > 0; n--) {
        byte[] secret = new byte[2 * DelegationTokenSecrets.HALF]; // the MDS half, the DS half
        random.nextBytes(secret);
        kept.add(
            SigningKey.newBuilder()
                .setKeyId(nextId++)
                .setSecret(ByteString.copyFrom(secret))
                .setExpiresNs((now + 2 * keyIntervalMs + maxLifetimeMs) * 1_000_000L)
                .build());
      }
    }
    kept.sort(Comparator.comparingInt(SigningKey::getKeyId));
    DelegationKeys next = DelegationKeys.newBuilder().addAllKeys(kept).build();
    m.put(ColumnFamily.META, KEYS, next.toByteArray());
    pending = next;
    long rotatedMs = stale ? now : keysRotatedMs;
    if (stale) {
      m.put(
          ColumnFamily.META,
          KEYS_ROTATED,
          ByteBuffer.allocate(Long.BYTES).putLong(rotatedMs).array());
    }
    keysRotatedMs = rotatedMs;
    m.afterApply(
        () -> {
          keys = next;
          if (pending == next) {
            pending = null;
          }
        });
  }
}
