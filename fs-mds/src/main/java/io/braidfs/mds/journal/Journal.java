package io.braidfs.mds.journal;

import io.braidfs.common.lifecycle.Service;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreView;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The MDS's write-ahead journal: the ordered, durable sequence of mutations (ARCHITECTURE section
 * 4). Each record is a {@link JournalRecord}: the writes of one mutation with every decision
 * already made (inode ids, timestamps, placements), so applying it needs nothing but the record and
 * replaying the journal twice gives byte-identical stores.
 *
 * <p>{@link #append} makes the record visible at once through {@link #view()}, which the appending
 * thread reads to decide its next mutations; it applies the record to the metadata store before its
 * future completes, and completes the future only when the record is durable: concurrent appends
 * share one store write and one sync (group commit). So a read may see a mutation before it is
 * acknowledged, as on the HDFS NameNode, and a crash may lose such a mutation (with every later
 * one); nothing is acknowledged before it is durable. The single-MDS implementation, {@link
 * WalJournal}, is the RocksDB WAL itself; a replicated journal (BookKeeper) implements the same
 * contract later.
 *
 * <p>Thread-safety: {@link #append} is called by one thread at a time (the namespace's mutation
 * thread), which fixes the journal order; everything else is thread-safe. Futures complete on the
 * journal's sync thread: chained actions must not block.
 */
public interface Journal extends Service {
  /**
   * Appends {@code batch} as the next record: {@link #view()} sees it at once, the store before the
   * future completes.
   *
   * @param operation the mutation's name for logs and tools ("create /a/b")
   * @return a future completed with the record's index once it is durable, or failed with a {@link
   *     io.braidfs.mds.store.StoreException} if it cannot be made durable (the journal then refuses
   *     further appends and the MDS must stop)
   * @throws IOException if the journal is closed or has failed; nothing was applied
   */
  CompletableFuture<Long> append(String operation, StoreBatch batch) throws IOException;

  /**
   * The store as every record appended so far leaves it, written or not: what the appending thread
   * reads to decide the next record. Other threads read the store itself.
   */
  StoreView view();

  /** A future completed once every record appended before this call is durable. */
  CompletableFuture<Long> barrier();

  /** The index of the last appended record, 0 if none. */
  long lastIndex();

  /**
   * Up to {@code limit} records from index {@code fromIndex} on, in order (replay, standbys).
   *
   * @throws IOException if the records before {@code fromIndex + limit} were trimmed or unreadable
   */
  List<JournalRecord> read(long fromIndex, int limit) throws IOException;
}
