package io.braidfs.mds.ha;

import io.braidfs.mds.journal.JournalRecord;
import io.braidfs.mds.journal.WalJournal;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.bookkeeper.client.api.ReadHandle;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a replica's store up to date from the journal's ledgers: a standby polls them ({@link
 * #start}), and a new leader reads them to the end after fencing the last one ({@link #catchUp}
 * with {@code recoverLast}).
 *
 * <p>What a standby applies is safe: it reads the open ledger only up to its last add confirmed,
 * entries a quorum of bookies acknowledged, which every later recovery keeps. So its store is
 * always a prefix of the journal every future leader sees.
 *
 * <p>Thread-safety: {@link #catchUp} and the polling thread are the local journal's only appenders;
 * {@link #stop} must return before anyone else appends.
 */
public final class LedgerTailer {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerTailer.class);

  /** Entries read at a time: up to 64 MiB, as an entry may group up to 1 MiB of records. */
  static final int PAGE = 64;

  private final String id;
  private final HaCoordinator coordinator;
  private final Ledgers ledgers;
  private final WalJournal local;
  private final Duration interval;
  private final java.util.function.Consumer<StoreTooOldException> tooOld;
  private volatile boolean stopping;
  private @Nullable Thread thread;
  private @Nullable ReadHandle open;
  private volatile @Nullable String lastProblem;

  /**
   * Where reading stopped: entry {@code nextEntry} of the ledger follows record {@code lastRecord}.
   */
  private record Position(long ledgerId, long nextEntry, long lastRecord) {}

  private volatile @Nullable Position position;

  /**
   * @param tooOld told (on the polling thread, which then ends) when the journal was trimmed past
   *     this replica's store
   */
  public LedgerTailer(
      String id,
      HaCoordinator coordinator,
      Ledgers ledgers,
      WalJournal local,
      Duration interval,
      java.util.function.Consumer<StoreTooOldException> tooOld) {
    this.id = id;
    this.tooOld = tooOld;
    this.coordinator = coordinator;
    this.ledgers = ledgers;
    this.local = local;
    this.interval = interval;
  }

  /** Starts polling on thread {@code braid-<id>-tail}. */
  public synchronized void start() {
    stopping = false;
    Thread t = new Thread(this::run, "braid-" + id + "-tail");
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  /** Stops polling and waits for the thread (up to 30 s). */
  public synchronized void stop() {
    stopping = true;
    Thread t = thread;
    thread = null;
    if (t != null) {
      t.interrupt();
      try {
        t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closeOpen();
  }

  private void run() {
    while (!stopping) {
      try {
        catchUp(coordinator.ledgers().list(), false);
        lastProblem = null;
      } catch (StoreTooOldException e) {
        if (!stopping) {
          tooOld.accept(e);
        }
        break;
      } catch (IOException | RuntimeException e) {
        if (stopping) {
          break;
        }
        String p = e.toString();
        if (!p.equals(lastProblem)) {
          LOG.warn("{}: standby cannot follow the journal (retrying): {}", id, p);
        }
        lastProblem = p;
      }
      try {
        Thread.sleep(interval.toMillis());
      } catch (InterruptedException e) {
        break;
      }
    }
  }

  /**
   * Applies every record of {@code list} after the local store's last one and waits until the store
   * has them. With {@code recoverLast}, the last ledger is opened with recovery first: its writer
   * can append no more, and every record it acknowledged is read.
   *
   * @return the index of the last record applied
   * @throws StoreTooOldException if the store ends before the journal's first retained record
   * @throws IOException if a ledger cannot be read
   */
  public long catchUp(LedgerList list, boolean recoverLast) throws IOException {
    List<LedgerList.Ledger> all = list.ledgers();
    if (all.isEmpty()) {
      return local.lastIndex();
    }
    long next = local.lastIndex() + 1;
    if (next < all.get(0).firstIndex()) {
      throw new StoreTooOldException(id, next - 1, all.get(0).firstIndex());
    }
    // A takeover (recoverLast) runs after stop(): it must read to the end whatever the flag says.
    java.util.function.BooleanSupplier halted = () -> !recoverLast && stopping;
    for (int i = Math.max(0, list.ledgerOf(next)); i < all.size() && !halted.getAsBoolean(); i++) {
      LedgerList.Ledger l = all.get(i);
      boolean last = i == all.size() - 1;
      ReadHandle h = handle(l.id(), last && recoverLast, last);
      if (!last && !h.isClosed()) {
        // Closed before its successor was published, but a reader whose ZooKeeper server lags
        // may still see it open, with an end short of the truth: recovery settles it (its writer
        // has moved on).
        closeOpen();
        h = ledgers.open(l.id(), true);
        open = h;
      }
      long lac =
          last && !recoverLast ? await(h.readLastAddConfirmedAsync()) : h.getLastAddConfirmed();
      long had = local.lastIndex();
      // Entries hold several records each, so a ledger is read from where this replica last
      // stopped in it, else from its start, skipping the records the store has.
      Position p = position;
      long entry = 0;
      long end = l.firstIndex() - 1; // the last record read from this ledger
      if (p != null && p.ledgerId() == l.id() && p.lastRecord() <= had) {
        entry = p.nextEntry();
        end = p.lastRecord();
      }
      while (entry <= lac && !halted.getAsBoolean()) {
        long to = Math.min(lac, entry + PAGE - 1);
        for (JournalRecord r : ledgers.read(h, entry, to)) {
          if (r.index() != end + 1) {
            throw new IOException(
                id
                    + ": journal gap: ledger "
                    + l.id()
                    + " holds record "
                    + r.index()
                    + " after "
                    + end);
          }
          end = r.index();
          if (end > local.lastIndex()) {
            local.replay(r); // refuses anything but the store's next record
          }
        }
        entry = to + 1;
        position = new Position(l.id(), entry, end);
      }
      if (last && recoverLast) {
        LOG.info(
            "{}: recovered journal ledger {}: records {}..{} (this replica had up to {})",
            id,
            l.id(),
            l.firstIndex(),
            end,
            had);
        if (local.lastIndex() != end) {
          throw new IOException(
              id
                  + ": journal ledger "
                  + l.id()
                  + " ends at record "
                  + end
                  + " but "
                  + local.lastIndex()
                  + " were applied");
        }
      }
      if (!last) {
        LedgerList.Ledger following = all.get(i + 1);
        if (end + 1 != following.firstIndex()) {
          throw new IOException(
              id
                  + ": journal gap: ledger "
                  + l.id()
                  + " ends at record "
                  + end
                  + " but ledger "
                  + following.id()
                  + " starts at "
                  + following.firstIndex());
        }
        closeOpen();
      }
    }
    await(local.barrier());
    return local.lastIndex();
  }

  /**
   * A handle on ledger {@code ledgerId}: the open ledger's is kept between polls (its last add
   * confirmed is read again each time); a closed ledger is opened afresh, so its end is known.
   */
  private ReadHandle handle(long ledgerId, boolean recover, boolean keep) throws IOException {
    ReadHandle h = open;
    if (h != null && h.getId() == ledgerId && keep && !recover) {
      return h;
    }
    closeOpen();
    h = ledgers.open(ledgerId, recover);
    open = h;
    return h;
  }

  private void closeOpen() {
    ReadHandle h = open;
    open = null;
    if (h != null) {
      try {
        h.closeAsync().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private <T> T await(CompletableFuture<T> f) throws IOException {
    try {
      return f.get(Ledgers.OP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException(id + ": interrupted following the journal");
    } catch (ExecutionException e) {
      Throwable c = e.getCause() == null ? e : e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      throw new IOException(id + ": following the journal: " + c, c);
    } catch (TimeoutException e) {
      throw new IOException(id + ": following the journal timed out", e);
    }
  }
}
