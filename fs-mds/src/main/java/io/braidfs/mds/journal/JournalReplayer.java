package io.braidfs.mds.journal;

import io.braidfs.mds.store.StoreException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Copies a journal's records into another store through its {@link WalJournal}: rebuilding a store
 * from a journal, or bringing a copy (a checkpoint) up to date. Because {@link WalJournal#replay}
 * writes each record exactly as the source wrote it, a target that starts where the source started
 * (a fresh store, or a checkpoint of the source) and has the same {@code
 * braid.mds.journal.retained-records} ends byte-identical to the source: every column family, the
 * journal family included, and the applied index.
 *
 * <p>Thread-safety: stateless; the target is written by the calling thread, which must be its only
 * appender meanwhile.
 */
public final class JournalReplayer {
  /** Records read from the source at a time. */
  static final int PAGE = 1024;

  private JournalReplayer() {}

  /**
   * Replays every record of {@code source} after {@code target.lastIndex()} into {@code target}, in
   * order, and waits until they are durable there.
   *
   * @return the number of records replayed
   * @throws IOException if {@code source} no longer holds the next record (trimmed), a record is
   *     corrupt, or {@code target} fails to write or sync (it then refuses further appends)
   * @throws InterruptedIOException if the thread is interrupted while waiting (its interrupt flag
   *     is kept); what was replayed stays
   */
  public static long replay(Journal source, WalJournal target) throws IOException {
    long replayed = 0;
    while (true) {
      List<JournalRecord> page = source.read(target.lastIndex() + 1, PAGE);
      if (page.isEmpty()) {
        break;
      }
      for (JournalRecord record : page) {
        // After a failed write the target refuses the next record, so the loop ends there.
        target.replay(record);
      }
      replayed += page.size();
    }
    await(target.barrier());
    return replayed;
  }

  private static void await(CompletableFuture<Long> future) throws IOException {
    try {
      future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for replayed records to be durable");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StoreException se) {
        throw se;
      }
      throw new IOException("replay failed: " + e.getCause(), e.getCause());
    }
  }
}
