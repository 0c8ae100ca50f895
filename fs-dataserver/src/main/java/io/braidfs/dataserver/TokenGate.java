package io.braidfs.dataserver;

import static java.util.Objects.requireNonNull;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.CallerContext;
import io.braidfs.common.security.DelegationKeys;
import io.braidfs.common.token.AccessRequest;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.common.token.ClientId;
import io.braidfs.common.token.TokenKeys;
import io.braidfs.common.token.TokenVerifier;
import io.braidfs.common.token.TokenVerifier.Outcome;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.proto.SigningKeys;
import java.io.IOException;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Admits a client request only with a capability token the MDS signed for it: right client, file,
 * chunk, mode and epoch, still valid.
 *
 * <p>Two relaxations, each safe by construction. A request forwarded down a write chain comes from
 * the previous data server, not the client; that server has already matched the token to its
 * client, so a peer's request (and the MDS's copy commands) is checked against the token's own
 * client id. (Peers are recognised by their Hello name, {@link #PEER_PREFIX}, without
 * authentication; with Kerberos, by having authenticated as one of the cluster's service users,
 * whatever their name, so a user's client naming itself like a peer gains nothing.) And a replica
 * remembers the file generation it was written under: a token of an older generation is refused
 * (the file was truncated or replaced since), one of a newer generation is accepted (the MDS issued
 * it after the change, and a truncate has already cut the replica through its version).
 *
 * <p>Thread-safety: thread-safe; the keys are swapped atomically.
 */
final class TokenGate {
  /** Client names of data servers talking to each other (write chains, copies). */
  static final String PEER_PREFIX = "braid-ds-";

  private final String id;
  private final Duration clockSkew;
  private final LongSupplier minEpoch;
  private final LongSupplier clock;
  private final Predicate<CallerContext> servicePeer;
  private volatile @Nullable TokenVerifier verifier;
  private final DelegationKeys delegationKeys = new DelegationKeys();

  /**
   * @param servicePeer whether a caller is one of the cluster's servers (the MDS, a peer): with
   *     Kerberos, authenticated as a service user; without, its Hello name ({@link #PEER_PREFIX})
   */
  TokenGate(
      String id,
      Duration clockSkew,
      LongSupplier minEpoch,
      LongSupplier clockMillis,
      Predicate<CallerContext> servicePeer) {
    this.id = id;
    this.servicePeer = servicePeer;
    this.clockSkew = clockSkew;
    this.minEpoch = minEpoch;
    this.clock = clockMillis;
  }

  /** Installs the MDS's current signing keys. */
  void updateKeys(SigningKeys keys) {
    verifier = new TokenVerifier(TokenKeys.fromProto(keys), clockSkew);
  }

  /**
   * The MDS's delegation keys, with which this server checks the Hello of a job's task holding a
   * delegation token (updated with the signing keys).
   */
  DelegationKeys delegationKeys() {
    return delegationKeys;
  }

  /**
   * Checks {@code token} for {@code mode} on {@code chunk}.
   *
   * @param replicaGeneration the generation the replica holds, or 0 when there is no replica yet
   * @return the verified token
   * @throws IOException INVALID_TOKEN naming the chunk and the reason; UNAVAILABLE before the MDS
   *     has sent any keys
   */
  CapabilityToken check(
      CallerContext caller, ChunkKey chunk, byte[] token, int mode, long replicaGeneration)
      throws IOException {
    TokenVerifier v = verifier;
    if (v == null) {
      throw StatusExceptions.toIOException(
          Status.UNAVAILABLE, id + ": not registered with the MDS yet; no token can be checked");
    }
    long now = clock.getAsLong();
    ClientId client = ClientId.of(caller.clientId());
    TokenVerifier.Result r = v.verify(token, now, request(client, chunk, replicaGeneration, mode));
    CapabilityToken t = r.token();
    if (t != null && (r.outcome() == Outcome.WRONG_CLIENT || r.outcome() == Outcome.WRONG_FILE)) {
      ClientId who = servicePeer.test(caller) ? t.clientId() : client;
      long generation =
          t.fileId() == chunk.inodeId()
              ? Math.max(replicaGeneration, t.fileGeneration())
              : replicaGeneration;
      r = v.verify(token, now, request(who, chunk, generation, mode));
    }
    if (!r.isOk()) {
      throw StatusExceptions.toIOException(
          Status.INVALID_TOKEN,
          id + ": token refused for chunk " + chunk + " (" + r.outcome() + ") from " + caller);
    }
    return requireNonNull(r.token()); // an OK result carries its token
  }

  private AccessRequest request(ClientId client, ChunkKey chunk, long generation, int mode) {
    return new AccessRequest(
        client, chunk.inodeId(), generation, chunk.index(), mode, minEpoch.getAsLong());
  }
}
