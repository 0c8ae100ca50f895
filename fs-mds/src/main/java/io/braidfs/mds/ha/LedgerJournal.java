package io.braidfs.mds.ha;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.error.Status;
import io.braidfs.mds.journal.Journal;
import io.braidfs.mds.journal.JournalRecord;
import io.braidfs.mds.journal.WalJournal;
import io.braidfs.mds.store.PendingWrites;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreException;
import io.braidfs.mds.store.StoreView;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.bookkeeper.client.api.WriteHandle;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HA leader's {@link Journal}: each record is appended to this term's BookKeeper ledger and,
 * once a quorum of bookies has it, applied to the replica's own store through its {@link
 * WalJournal}; only then is it acknowledged. So the local store never holds a record the ledger may
 * lack, and a leader that loses its ledger (fenced by a successor, or a quorum of bookies gone) can
 * rejoin as a standby whose store is a prefix of the journal.
 *
 * <p>Design. {@link #append} gives the record the next index, enters its writes in this journal's
 * {@link PendingWrites view} (over the local journal's view), and sends it with {@code
 * appendAsync}, pipelined: BookKeeper groups concurrent entries on the wire and each bookie syncs
 * its journal for many at once, so the group commit happens there. Acknowledgements come back in
 * entry order; each hands its record to the local journal (whose view then holds it), removes it
 * from this view, and completes the record's future when the local store has it. The local store is
 * not synced (the ledger is the durable copy; a replica that crashes catches up from it).
 *
 * <p>Failure. A failed append (fenced, closed, not enough bookies, timed out) has an unknown
 * outcome: a successor's recovery may keep the entry. Every record not yet acknowledged fails with
 * {@code NOT_LEADER}, so clients retry at the leader with the same call id (the retry cache, which
 * travels in the records, settles it), further appends are refused, and the failure listener is
 * told: the MDS must stop leading.
 *
 * <p>Thread-safety: {@link #append} is called by one thread at a time (the namespace thread);
 * everything else is thread-safe. Futures complete on BookKeeper's callback thread or the local
 * journal's write thread: chained actions must not block.
 */
public final class LedgerJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerJournal.class);

  /** A record sent to the ledger and not yet acknowledged. */
  private record InFlight(
      JournalRecord record, PendingWrites.Added added, CompletableFuture<Long> future) {}

  /** Starts the term's next ledger once the current one holds enough records. */
  @FunctionalInterface
  public interface Roller {
    /**
     * Creates the next ledger, whose first entry will be record {@code firstIndex}, and publishes
     * it as the journal's last; called on the appending thread after the current ledger is closed.
     *
     * @throws IOException if it cannot: the journal then fails, as on a refused append
     */
    WriteHandle next(long firstIndex) throws IOException;
  }

  private final String id;
  private final WalJournal local;
  private final Roller roller;
  private final long recordsPerLedger;

  /** The ledger appends go to, and the index of its first record; changed only by a roll. */
  private volatile WriteHandle ledger;

  private volatile long firstIndex;

  /** The last append's completion, acknowledgement handled: what a roll waits for. */
  private volatile CompletableFuture<?> lastAppend = CompletableFuture.completedFuture(null);

  private final Clock clock;
  private final Consumer<IOException> onFailure;
  private final PendingWrites view;
  private final ReentrantLock lock = new ReentrantLock();

  @GuardedBy("lock")
  private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

  private volatile long lastIndex;
  private volatile @Nullable StoreException failure;
  private volatile boolean closed;

  /**
   * A journal continuing {@code local} (which must hold every record before {@code firstIndex}) in
   * {@code ledger}, whose first entry will be record {@code firstIndex}.
   *
   * @param recordsPerLedger records after which {@code roller} starts the next ledger
   * @param onFailure told once, on a BookKeeper thread, when the ledger refuses an append
   */
  public LedgerJournal(
      String id,
      WalJournal local,
      WriteHandle ledger,
      long firstIndex,
      long recordsPerLedger,
      Roller roller,
      Clock clock,
      Consumer<IOException> onFailure) {
    this.id = id;
    this.recordsPerLedger = recordsPerLedger;
    this.roller = roller;
    this.local = Objects.requireNonNull(local, "local");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.firstIndex = firstIndex;
    this.clock = clock;
    this.onFailure = onFailure;
    this.lastIndex = local.lastIndex();
    if (lastIndex + 1 != firstIndex) {
      throw new IllegalArgumentException(
          id + ": ledger starts at record " + firstIndex + " but the store ends at " + lastIndex);
    }
    this.view = new PendingWrites(local.view(), () -> lastIndex);
  }

  /** Nothing to start: the ledger is open and the local journal runs. */
  @Override
  public void start() {}

  @Override
  public CompletableFuture<Long> append(String operation, StoreBatch batch) throws IOException {
    StoreException f = failure;
    if (f != null) {
      throw f;
    }
    if (closed) {
      throw new StoreException(Status.NOT_LEADER, id + ": the journal is closed", null);
    }
    long index = lastIndex + 1;
    if (index - firstIndex >= recordsPerLedger) {
      roll(index);
    }
    JournalRecord record =
        new JournalRecord(index, operation, clock.currentTimeMillis() * 1_000_000L, batch);
    byte[] entry = Ledgers.encode(record); // refuses a batch writing the journal family
    CompletableFuture<Long> future = new CompletableFuture<>();
    lock.lock();
    try {
      inFlight.addLast(new InFlight(record, view.add(batch), future));
      lastIndex = index;
    } finally {
      lock.unlock();
    }
    lastAppend =
        ledger.appendAsync(entry).whenComplete((entryId, err) -> acknowledged(index, entryId, err));
    return future;
  }

  /**
   * Closes the current ledger once every record sent to it is acknowledged, then continues in the
   * next one from record {@code next}. Appends wait meanwhile (a few milliseconds every {@code
   * recordsPerLedger} records): so every ledger but the last is closed before its successor is
   * published, and a reader or a recovery never meets an open ledger in the middle of the list.
   */
  private void roll(long next) throws IOException {
    WriteHandle old = ledger;
    try {
      lastAppend.get(Ledgers.OP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      StoreException f = failure;
      if (f != null) {
        throw f;
      }
      old.closeAsync().get(Ledgers.OP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      WriteHandle h = roller.next(next);
      ledger = h;
      firstIndex = next;
      LOG.info(
          "{}: journal continues in ledger {} from record {} (ledger {} closed)",
          id,
          h.getId(),
          next,
          old.getId());
    } catch (StoreException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      Throwable c =
          e instanceof java.util.concurrent.ExecutionException && e.getCause() != null
              ? e.getCause()
              : e;
      lock.lock();
      try {
        LOG.warn(
            "{}: cannot start the journal's next ledger; this MDS stops leading: {}",
            id,
            c.toString());
        StoreException f =
            new StoreException(
                Status.NOT_LEADER,
                id + ": cannot start the journal's next ledger at record " + next + ": " + c,
                c);
        failLocked(f);
        throw f;
      } finally {
        lock.unlock();
      }
    }
  }

  /** Called in entry order for each append's outcome. */
  private void acknowledged(long index, @Nullable Long entryId, @Nullable Throwable err) {
    if (err != null) {
      fail(index, err);
      return;
    }
    lock.lock();
    try {
      InFlight head = inFlight.peekFirst();
      if (failure != null || head == null) {
        return; // already failed
      }
      if (head.record().index() != index || entryId == null || entryId != index - firstIndex) {
        failLocked(
            new StoreException(
                Status.INTERNAL,
                id
                    + ": ledger acknowledged entry "
                    + entryId
                    + " for record "
                    + index
                    + " out of order",
                null));
        return;
      }
      inFlight.pollFirst();
      CompletableFuture<Long> applied;
      try {
        applied = local.replay(head.record());
      } catch (IOException e) {
        failLocked(
            e instanceof StoreException se
                ? se
                : new StoreException(Status.UNAVAILABLE, id + ": " + e.getMessage(), e));
        head.future().completeExceptionally(failure);
        return;
      }
      view.written(head.added());
      applied.whenComplete(
          (i, e) -> {
            if (e == null) {
              head.future().complete(index);
            } else {
              head.future().completeExceptionally(e);
            }
          });
    } finally {
      lock.unlock();
    }
  }

  private void fail(long index, Throwable err) {
    lock.lock();
    try {
      if (failure == null) {
        LOG.warn(
            "{}: journal ledger {} refused record {}; this MDS stops leading: {}",
            id,
            ledger.getId(),
            index,
            err.toString());
        // NOT_LEADER: the client retries at the leader with the same call id.
        failLocked(
            new StoreException(
                Status.NOT_LEADER,
                id
                    + ": the journal ledger refused record "
                    + index
                    + " (outcome unknown; another MDS may lead now): "
                    + err,
                err));
      }
    } finally {
      lock.unlock();
    }
  }

  @GuardedBy("lock")
  private void failLocked(StoreException cause) {
    if (failure != null) {
      return;
    }
    failure = cause;
    LOG.info(
        "{}: journal ledger {} ends: records {}..{} acknowledged, {} not",
        id,
        ledger.getId(),
        firstIndex,
        firstIndex + ledger.getLastAddConfirmed(),
        inFlight.size());
    // The listener first: whoever sees a record fail may rely on the MDS knowing already.
    if (!closed) {
      onFailure.accept(cause);
    }
    InFlight f;
    while ((f = inFlight.pollFirst()) != null) {
      f.future().completeExceptionally(cause);
    }
  }

  @Override
  public StoreView view() {
    return view;
  }

  @Override
  public CompletableFuture<Long> barrier() {
    CompletableFuture<Long> last;
    lock.lock();
    try {
      InFlight tail = inFlight.peekLast();
      last = tail == null ? null : tail.future();
    } finally {
      lock.unlock();
    }
    StoreException f = failure;
    if (last == null) {
      return f != null ? CompletableFuture.failedFuture(f) : local.barrier();
    }
    return last.thenCompose(i -> local.barrier());
  }

  @Override
  public long lastIndex() {
    return lastIndex;
  }

  /** The ledger this term writes. */
  public long ledgerId() {
    return ledger.getId();
  }

  @Override
  public List<JournalRecord> read(long fromIndex, int limit) throws IOException {
    return local.read(fromIndex, limit);
  }

  /**
   * Stops appending: waits briefly for records in flight, fails the rest, and closes the ledger (so
   * a successor's recovery has nothing to settle). The local journal stays open.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      barrier().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
    lock.lock();
    try {
      failLocked(new StoreException(Status.NOT_LEADER, id + ": the journal was closed", null));
    } finally {
      lock.unlock();
    }
    try {
      ledger.closeAsync().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.debug("{}: closing ledger {}: {}", id, ledger.getId(), e.toString());
    }
  }

  @Override
  public String toString() {
    return "LedgerJournal{" + id + ", ledger " + ledger.getId() + " from " + firstIndex + "}";
  }
}
