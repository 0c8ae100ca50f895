package io.braidfs.common.security;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.CallerContext;
import io.braidfs.common.rpc.HelloAuthenticator;
import io.braidfs.proto.DelegationTokenProof;
import io.braidfs.proto.HelloRequest;
import java.io.IOException;
import java.net.SocketAddress;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A server's side of a delegation token's Hello: the proof must be a MAC under the token's password
 * over this connection's client id, a time within {@link #SKEW} of this server's clock and a nonce
 * not seen before. The connection then acts as the token's owner, with the groups this server looks
 * up; its principal is {@code token:<sequence>/<owner>}, which no service check accepts.
 *
 * <p>Thread-safety: thread-safe.
 */
final class DelegationTokenAuthenticator implements HelloAuthenticator {
  /** How far a Hello's time may be from the server's; replays are remembered this long twice. */
  static final Duration SKEW = Duration.ofMinutes(5);

  private static final String PRINCIPAL_PREFIX = "token:";
  private static final int MAX_REMEMBERED = 200_000;

  /**
   * The most Hellos one token may make in the replay window: far above a job's connections (one per
   * server per task), and low enough that a holder who floods cannot fill the window for the rest.
   */
  private static final int MAX_PER_TOKEN = 20_000;

  private final String serverId;
  private final DelegationTokenPasswords passwords;
  private final GroupLookup groups;
  private final Set<String> serviceUsers;
  private final LongSupplier clock;

  /** Proofs seen within the replay window, by token sequence then nonce: this server's time. */
  private final ConcurrentHashMap<Integer, ConcurrentHashMap<String, Long>> seen =
      new ConcurrentHashMap<>();

  /** How many entries {@link #seen} holds in all. */
  private final java.util.concurrent.atomic.AtomicInteger remembered =
      new java.util.concurrent.atomic.AtomicInteger();

  DelegationTokenAuthenticator(
      String serverId,
      DelegationTokenPasswords passwords,
      GroupLookup groups,
      Set<String> serviceUsers,
      LongSupplier clockMs) {
    this.serverId = serverId;
    this.passwords = passwords;
    this.groups = groups;
    this.serviceUsers = Set.copyOf(serviceUsers);
    this.clock = clockMs;
  }

  /** Whether {@code caller} authenticated with a delegation token (not Kerberos). */
  static boolean byToken(CallerContext caller) {
    return caller.principal().startsWith(PRINCIPAL_PREFIX);
  }

  /** The sequence number of the token {@code caller} authenticated with, or -1 for none. */
  static int tokenSequence(CallerContext caller) {
    String p = caller.principal();
    int slash = p.indexOf('/');
    if (!p.startsWith(PRINCIPAL_PREFIX) || slash < 0) {
      return -1;
    }
    try {
      return Integer.parseInt(p.substring(PRINCIPAL_PREFIX.length(), slash));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public @Nullable String revoked(CallerContext caller) {
    int seq = tokenSequence(caller);
    return seq < 0 ? null : passwords.revoked(seq, clock.getAsLong());
  }

  @Override
  public Identity authenticate(HelloRequest hello, SocketAddress remote) throws IOException {
    DelegationTokenProof p = hello.getDelegationToken();
    byte[] identifier = p.getIdentifier().toByteArray();
    DelegationTokenIdentifier id;
    try {
      id = DelegationTokenIdentifier.parse(identifier);
    } catch (IllegalArgumentException e) {
      throw refused(remote, String.valueOf(e.getMessage()));
    }
    if (serviceUsers.contains(id.owner())) {
      throw refused(remote, "a token of service user " + id.owner() + " is never accepted");
    }
    long now = clock.getAsLong();
    if (Math.abs(now - p.getTimeMs()) > SKEW.toMillis()) {
      throw refused(
          remote,
          "its time is "
              + (p.getTimeMs() - now) / 1000
              + " s from this server's (at most "
              + SKEW.toSeconds()
              + " s): check both clocks");
    }
    byte[] password = passwords.passwordOf(id, identifier, now);
    boolean toMds = !passwords.dataServer();
    byte[] expected =
        DelegationTokenSecrets.clientProof(
            password,
            toMds,
            hello.getClientId().toByteArray(),
            p.getTimeMs(),
            p.getNonce().toByteArray());
    byte[] proof = (toMds ? p.getProof() : p.getDataServerProof()).toByteArray();
    if (!MessageDigest.isEqual(expected, proof)) {
      throw refused(remote, "the proof does not match token " + id.sequence() + "'s password");
    }
    rememberOnce(id, p, now, remote);
    String claimed = hello.getUser();
    if (!claimed.isEmpty() && !claimed.equals(id.owner())) {
      throw StatusExceptions.toIOException(
          Status.PERMISSION_DENIED,
          serverId
              + ": a delegation token of "
              + id.owner()
              + " may not act as "
              + claimed
              + " (from "
              + remote
              + ")",
          null);
    }
    return new Identity(
        id.owner(),
        groups.groupsOf(id.owner()),
        PRINCIPAL_PREFIX + id.sequence() + "/" + id.owner(),
        id.owner(),
        DelegationTokenSecrets.serverProof(password, proof));
  }

  private void rememberOnce(
      DelegationTokenIdentifier id, DelegationTokenProof p, long now, SocketAddress remote)
      throws IOException {
    long oldest = now - 2 * SKEW.toMillis(); // a replay older than that fails the time check
    if (remembered.get() > MAX_REMEMBERED / 2) {
      for (ConcurrentHashMap<String, Long> nonces : seen.values()) {
        forgetOlder(nonces, oldest);
      }
      seen.values().removeIf(ConcurrentHashMap::isEmpty);
    }
    ConcurrentHashMap<String, Long> nonces =
        seen.computeIfAbsent(id.sequence(), k -> new ConcurrentHashMap<>());
    if (nonces.size() >= MAX_PER_TOKEN) {
      forgetOlder(nonces, oldest);
    }
    if (nonces.size() >= MAX_PER_TOKEN || remembered.get() >= MAX_REMEMBERED) {
      throw StatusExceptions.toIOException(
          Status.BUSY,
          serverId + ": too many Hellos of delegation token " + id.sequence() + "; try again",
          null);
    }
    if (nonces.putIfAbsent(HexFormat.of().formatHex(p.getNonce().toByteArray()), now) != null) {
      throw refused(remote, "a replayed Hello of token " + id.sequence());
    }
    remembered.incrementAndGet();
  }

  private void forgetOlder(ConcurrentHashMap<String, Long> nonces, long oldest) {
    for (var it = nonces.values().iterator(); it.hasNext(); ) {
      if (it.next() < oldest) {
        it.remove();
        remembered.decrementAndGet();
      }
    }
  }

  private IOException refused(SocketAddress remote, String why) {
    return StatusExceptions.toIOException(
        Status.NOT_AUTHENTICATED,
        serverId + ": delegation token from " + remote + " refused: " + why,
        null);
  }
}
