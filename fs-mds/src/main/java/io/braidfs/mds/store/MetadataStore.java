package io.braidfs.mds.store;

import io.braidfs.common.lifecycle.Service;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The durable state of one MDS replica: the namespace in the column families of {@link
 * ColumnFamily}, and the index of the last journal record applied to it.
 *
 * <p>Every mutation arrives as a {@link StoreBatch} with its journal index and is applied
 * atomically, together with the new applied index: after a crash, the store holds exactly the
 * batches up to {@link #appliedIndex()}, and the journal is replayed from the next index. Indexes
 * must increase; they need not be contiguous.
 *
 * <p>After a write fails, the store refuses every further write with a {@link StoreException}
 * ({@code UNAVAILABLE}): its state may no longer match the journal, and the MDS must stop (the
 * apply path's invariant, HOUSE-STYLE). Reads keep working until it is closed.
 *
 * <p>Writes are durable when they return if the store syncs ({@code braid.mds.store.sync}). The
 * journal ({@code io.braidfs.mds.journal.WalJournal}) instead writes each mutation without a sync,
 * so that it is visible at once, and makes everything written so far durable with one {@link
 * #syncWal()}, which concurrent mutations share (group commit).
 *
 * <p>Thread-safety: implementations are thread-safe. Writes are serialized; reads run concurrently
 * with them and with each other.
 */
public interface MetadataStore extends StoreView, Service {
  /**
   * Applies {@code batch} as journal record {@code journalIndex}, atomically with the applied
   * index.
   *
   * @throws IllegalArgumentException if {@code journalIndex} is not greater than {@link
   *     #appliedIndex()}
   * @throws StoreException with {@code UNAVAILABLE} if the store is closed or has failed, or if
   *     this write fails (the store then refuses further writes)
   */
  default void apply(StoreBatch batch, long journalIndex) throws IOException {
    applyAll(List.of(batch), journalIndex);
  }

  /**
   * Applies {@code batches} in order as journal records {@code firstIndex}, {@code firstIndex + 1},
   * and so on, in one atomic write that also sets the applied index to the last of them. A later
   * batch's write to a key wins over an earlier one's.
   *
   * @throws IllegalArgumentException if {@code batches} is empty, or {@code firstIndex} is not
   *     greater than {@link #appliedIndex()}, or the last index would overflow
   * @throws StoreException with {@code UNAVAILABLE} if the store is closed or has failed, or if
   *     this write fails (the store then refuses further writes; none of the batches is visible)
   */
  void applyAll(List<StoreBatch> batches, long firstIndex) throws IOException;

  /**
   * {@link #applyAll(List, long)}, syncing the write-ahead log before returning if {@code sync} is
   * true and never if it is false, whatever {@code braid.mds.store.sync} says. An unsynced write is
   * visible to reads at once; it becomes durable at the next {@link #syncWal()} (or synced write),
   * and a crash of the machine may lose it, but never an earlier write without a later one: after a
   * crash the store holds the batches up to its applied index, a prefix of what was written.
   *
   * @throws IllegalArgumentException as {@link #applyAll(List, long)}
   * @throws StoreException as {@link #applyAll(List, long)}
   */
  void applyAll(List<StoreBatch> batches, long firstIndex, boolean sync) throws IOException;

  /**
   * Makes every write that returned before this call durable, by syncing the write-ahead log once.
   * Runs concurrently with writes: a write that returns while the sync runs may or may not be
   * covered by it.
   *
   * @throws StoreException with {@code UNAVAILABLE} if the store is closed or has failed, or if the
   *     sync fails (the store then refuses further writes and syncs, as after a failed write)
   */
  void syncWal() throws IOException;

  /**
   * A consistent read-only view of the current state, to be closed by the caller.
   *
   * @throws StoreException with {@code UNAVAILABLE} if the store is closed
   */
  StoreSnapshot snapshot() throws IOException;

  /**
   * Writes a consistent, openable copy of the store into {@code target} (to bootstrap a standby or
   * back up), pausing writes while it is made. The copy opens as a store of its own.
   *
   * @param target a directory that must not exist yet; its parent must
   * @return the applied index the copy holds
   * @throws StoreException with {@code UNAVAILABLE} if the store is closed
   * @throws IOException if {@code target} exists or the copy fails
   */
  long checkpoint(Path target) throws IOException;

  /** Whether writes are accepted: the store is running and no write has failed. */
  boolean isWritable();
}
