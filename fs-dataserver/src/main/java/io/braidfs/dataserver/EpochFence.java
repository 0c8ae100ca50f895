package io.braidfs.dataserver;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.dataserver.store.ChunkStore;
import java.io.IOException;

/**
 * Fences MDS leaders by epoch: a command or answer from the MDS carries the epoch its sender leads
 * under, and one older than the highest epoch this server has persisted comes from a deposed leader
 * and is refused with NOT_LEADER naming both epochs. Only the MDS's own answers (registration,
 * heartbeat, confirmations: {@link MdsLink}) persist a newer epoch (in every data directory,
 * through {@link ChunkStore#raiseEpoch}), so it stays fenced across restarts; a command's epoch is
 * only checked, as anyone may send a command naming any epoch (its token, checked later, is the
 * proof), and persisting it would let one forged request fence out every real leader for good.
 *
 * <p>Epoch 0 means "not an MDS command": a writer's own CopyChunk or TruncateChunk (and any caller
 * that predates the field) is not checked here, because its capability token carries the epoch of
 * the MDS that issued it and the {@link TokenGate} refuses a token older than the highest epoch
 * persisted. An MDS always sends an epoch of at least 1 (a lone MDS uses 1).
 *
 * <p>The check and the command are not one atomic step: a command admitted just before a newer
 * epoch is seen may still act, as with any lease-free fence. A deposed leader's commands stop at
 * the first one that arrives after its successor reached this server.
 *
 * <p>Thread-safety: thread-safe; raising the epoch is serialized by the store.
 */
final class EpochFence {
  private final String id;
  private final ChunkStore store;

  EpochFence(String id, ChunkStore store) {
    this.id = id;
    this.store = store;
  }

  /**
   * Refuses {@code epoch} if it is older than the highest persisted; touches nothing. Cheap (a
   * volatile read), so it may run on an event loop. Epoch 0 passes.
   *
   * @param what the command and its subject, for the message ("CopyChunk of chunk 7/0")
   * @throws IOException NOT_LEADER naming both epochs
   */
  void check(long epoch, String what) throws IOException {
    long highest = store.maxEpochSeen();
    if (epoch != 0 && epoch < highest) {
      throw StatusExceptions.toIOException(
          Status.NOT_LEADER,
          id
              + ": refusing "
              + what
              + " from a deposed MDS leader: its epoch "
              + epoch
              + " is older than epoch "
              + highest
              + ", the highest this server has seen");
    }
  }
}
