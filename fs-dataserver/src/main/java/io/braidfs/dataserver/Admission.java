package io.braidfs.dataserver;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.CallerContext;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.ChunkStore;
import io.braidfs.dataserver.store.Replica;
import java.io.IOException;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The check every data-path request passes before it touches a replica, in one place so that reads,
 * writes and copies refuse alike: the replica the request names is looked up, its capability token
 * verified by the {@link TokenGate} for the operation's mode against that replica's file
 * generation, and the version the request names compared with the replica's.
 *
 * <p>The first failure is the answer, in this order: NOT_FOUND (no replica where one must exist),
 * then the gate's INVALID_TOKEN (or UNAVAILABLE before the MDS sent keys), then STALE_VERSION. The
 * handlers check a request's own arguments (lengths, CRCs, piece sizes) before this.
 *
 * <p>Thread-safety: thread-safe.
 */
final class Admission {
  private final String id;
  private final ChunkStore store;
  private final TokenGate gate;

  Admission(String id, ChunkStore store, TokenGate gate) {
    this.id = id;
    this.store = store;
    this.gate = gate;
  }

  /**
   * A request admitted to a chunk that may have no replica here yet.
   *
   * @param token the verified token (its generation is the one a new replica gets)
   * @param replica the replica, or null if there is none
   */
  record Grant(CapabilityToken token, @Nullable Replica replica) {}

  /**
   * Admits a request that makes the replica if it is missing (WriteChunk, CopyChunk); a token for a
   * chunk with no replica yet is checked against its own generation.
   *
   * @throws IOException INVALID_TOKEN or UNAVAILABLE from the gate
   */
  Grant mayCreate(CallerContext caller, ChunkKey key, ByteString token, int mode)
      throws IOException {
    Replica r = store.get(key);
    CapabilityToken t =
        gate.check(caller, key, token.toByteArray(), mode, r == null ? 0 : r.generation());
    return new Grant(t, r);
  }

  /**
   * Admits a request on the existing replica of {@code key} for {@code mode}, whatever its version.
   *
   * @throws IOException NOT_FOUND, then INVALID_TOKEN or UNAVAILABLE from the gate
   */
  Replica existing(CallerContext caller, ChunkKey key, ByteString token, int mode)
      throws IOException {
    Replica r = replica(key);
    gate.check(caller, key, token.toByteArray(), mode, r.generation());
    return r;
  }

  /**
   * As {@link #existing(CallerContext, ChunkKey, ByteString, int)}, and the replica must be at
   * exactly {@code version}.
   *
   * @param op the operation, for the STALE_VERSION message
   * @throws IOException NOT_FOUND, then INVALID_TOKEN or UNAVAILABLE, then STALE_VERSION
   */
  Replica atVersion(
      CallerContext caller, ChunkKey key, ByteString token, int mode, long version, String op)
      throws IOException {
    return atVersion(caller, key, token, r -> mode, version, op);
  }

  /**
   * As {@link #atVersion(CallerContext, ChunkKey, ByteString, int, long, String)}, with the mode
   * the request needs given the replica (a sync of a finalized replica changes no data).
   */
  Replica atVersion(
      CallerContext caller,
      ChunkKey key,
      ByteString token,
      ToIntFunction<Replica> mode,
      long version,
      String op)
      throws IOException {
    Replica r = replica(key);
    gate.check(caller, key, token.toByteArray(), mode.applyAsInt(r), r.generation());
    requireVersion(r, version, op);
    return r;
  }

  /**
   * Admits a reader of the replica of {@code key}: READ mode, and the replica at {@code version} or
   * newer (a replaced replica keeps the bytes the reader knew about; an older one is stale).
   *
   * @param op the operation, for the STALE_VERSION message
   * @throws IOException NOT_FOUND, then INVALID_TOKEN or UNAVAILABLE, then STALE_VERSION
   */
  Replica reader(CallerContext caller, ChunkKey key, ByteString token, long version, String op)
      throws IOException {
    Replica r = existing(caller, key, token, CapabilityToken.READ);
    if (r.version() < version) {
      throw StatusExceptions.toIOException(
          Status.STALE_VERSION,
          id
              + ": "
              + op
              + " of chunk "
              + key
              + " wants version "
              + version
              + " but the replica is at "
              + r.version());
    }
    return r;
  }

  /** STALE_VERSION unless the replica is at exactly {@code version}. */
  void requireVersion(Replica r, long version, String op) throws IOException {
    if (r.version() != version) {
      throw StatusExceptions.toIOException(
          Status.STALE_VERSION,
          id
              + ": "
              + op
              + " of chunk "
              + r.key()
              + " names version "
              + version
              + " but the replica is at "
              + r.version());
    }
  }

  /** The replica of {@code key}, or NOT_FOUND naming it. */
  private Replica replica(ChunkKey key) throws IOException {
    Replica r = store.get(key);
    if (r == null) {
      throw StatusExceptions.toIOException(
          Status.NOT_FOUND, id + ": no replica of chunk " + key + " here");
    }
    return r;
  }
}
