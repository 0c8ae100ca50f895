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
import java.util.ArrayList;
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

  /** A record appended and not yet acknowledged, with its encoding for the ledger. */
  private record InFlight(
      JournalRecord record,
      byte[] encoded,
      PendingWrites.Added added,
      CompletableFuture<Long> future) {}

  /**
   * Ledger entries sent and not yet acknowledged, at most: records appended meanwhile wait and go
   * together in the next entry. Two keep the bookies busy (one entry on the wire while the other is
   * synced) and let records group into few entries, which is what the journal's cost follows: each
   * entry is a digest, a message to each bookie, a bookie journal write and index update, and a
   * read by each standby.
   */
  static final int MAX_ENTRIES_OUT = 2;

  /** The most bytes of records grouped into one entry (bookies take frames up to 5 MiB). */
  static final int MAX_ENTRY_BYTES = 1 << 20;

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

  /** Records in entries sent to the ledger and not yet acknowledged, in order. */
  @GuardedBy("lock")
  private final ArrayDeque<InFlight> sent = new ArrayDeque<>();

  /** Records appended after them, waiting for an entry; in order. */
  @GuardedBy("lock")
  private final ArrayDeque<InFlight> waiting = new ArrayDeque<>();

  @GuardedBy("lock")
  private int entriesOut;

  /** The entry id the ledger gives the next entry sent. */
  @GuardedBy("lock")
  private long nextEntry;

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
    byte[] encoded = Ledgers.encode(record); // refuses a batch writing the journal family
    CompletableFuture<Long> future = new CompletableFuture<>();
    lock.lock();
    try {
      // Again under the lock: a failure on a BookKeeper thread since the check above has failed
      // every record it found, and would never complete this one.
      StoreException failed = failure;
      if (failed != null) {
        throw failed;
      }
      waiting.addLast(new InFlight(record, encoded, view.add(batch), future));
      lastIndex = index;
      if (entriesOut < MAX_ENTRIES_OUT) {
        sendLocked();
      }
    } finally {
      lock.unlock();
    }
    return future;
  }

  /** Sends the waiting records, as many as fit, in one entry. */
  @GuardedBy("lock")
  private void sendLocked() {
    if (waiting.isEmpty() || failure != null) {
      return;
    }
    List<byte[]> records = new ArrayList<>();
    int bytes = 0;
    long first = waiting.peekFirst().record().index();
    long last = first;
    while (!waiting.isEmpty()
        && (records.isEmpty() || bytes + waiting.peekFirst().encoded().length <= MAX_ENTRY_BYTES)) {
      InFlight r = waiting.pollFirst();
      records.add(r.encoded());
      bytes += r.encoded().length;
      last = r.record().index();
      sent.addLast(r);
    }
    entriesOut++;
    long entry = nextEntry++;
    long lastOfEntry = last;
    // Sent under the lock: the ledger numbers entries in the order they are handed to it.
    lastAppend =
        ledger
            .appendAsync(Ledgers.entry(records))
            .whenComplete((entryId, err) -> acknowledged(entry, first, lastOfEntry, entryId, err));
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
      lock.lock();
      try {
        while (!waiting.isEmpty() && failure == null) {
          sendLocked(); // every record of this ledger goes to it, however many entries are out
        }
      } finally {
        lock.unlock();
      }
      lastAppend.get(Ledgers.OP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      StoreException f = failure;
      if (f != null) {
        throw f;
      }
      old.closeAsync().get(Ledgers.OP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (closed) {
        throw new StoreException(Status.NOT_LEADER, id + ": the journal is closed", null);
      }
      WriteHandle h = roller.next(next);
      lock.lock();
      try {
        ledger = h;
        firstIndex = next;
        nextEntry = 0;
      } finally {
        lock.unlock();
      }
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

  /**
   * Called in entry order for each entry's outcome: applies its records {@code first..last}
   * locally, completes them, and sends what waited meanwhile.
   */
  private void acknowledged(
      long entry, long first, long last, @Nullable Long entryId, @Nullable Throwable err) {
    if (err != null) {
      fail(first, err);
      return;
    }
    lock.lock();
    try {
      InFlight head = sent.peekFirst();
      if (failure != null || head == null) {
        return; // already failed
      }
      if (head.record().index() != first || entryId == null || entryId != entry) {
        failLocked(
            new StoreException(
                Status.INTERNAL,
                id
                    + ": ledger acknowledged entry "
                    + entryId
                    + " (expected "
                    + entry
                    + ") for records from "
                    + first
                    + " out of order",
                null));
        return;
      }
      entriesOut--;
      while ((head = sent.peekFirst()) != null && head.record().index() <= last) {
        sent.pollFirst();
        CompletableFuture<Long> applied;
        try {
          applied = local.replay(head.record());
        } catch (IOException e) {
          StoreException f =
              e instanceof StoreException se
                  ? se
                  : new StoreException(Status.UNAVAILABLE, id + ": " + e.getMessage(), e);
          head.future().completeExceptionally(f);
          failLocked(f);
          return;
        }
        view.written(head.added());
        InFlight done = head;
        applied.whenComplete(
            (i, e) -> {
              if (e == null) {
                done.future().complete(done.record().index());
              } else {
                done.future().completeExceptionally(e);
              }
            });
      }
      sendLocked();
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
        "{}: journal ledger {} ends: records from {} before {} acknowledged, {} not",
        id,
        ledger.getId(),
        firstIndex,
        sent.isEmpty()
            ? (waiting.isEmpty() ? lastIndex + 1 : waiting.peekFirst().record().index())
            : sent.peekFirst().record().index(),
        sent.size() + waiting.size());
    // The listener first: whoever sees a record fail may rely on the MDS knowing already.
    if (!closed) {
      onFailure.accept(cause);
    }
    InFlight f;
    while ((f = sent.pollFirst()) != null) {
      f.future().completeExceptionally(cause);
    }
    while ((f = waiting.pollFirst()) != null) {
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
      InFlight tail = waiting.isEmpty() ? sent.peekLast() : waiting.peekLast();
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
