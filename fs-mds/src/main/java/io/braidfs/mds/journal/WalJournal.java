package io.braidfs.mds.journal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.mds.store.MetadataStore;
import io.braidfs.mds.store.PendingWrites;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreBatch;
import io.braidfs.mds.store.StoreException;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.JournalEntry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-MDS {@link Journal}: the write-ahead log of the RocksDB {@link MetadataStore} itself.
 *
 * <p>Design. {@link #append} gives a mutation the next index, enters its writes in the {@link
 * #view() view} of the namespace thread ({@link PendingWrites}), so its next mutation sees them,
 * and queues the record; the appending thread does no RocksDB work. The write thread, {@code
 * braid-<id>-journal-write}, takes every record queued (up to {@link #MAX_GROUP}) and writes them
 * as one atomic store write, without a WAL sync, of each record's batch; its copy in the {@link
 * ColumnFamily#JOURNAL} family (a {@code JournalEntry}, {@link Records#encodeJournalEntry}); the
 * removal of the record {@code braid.mds.journal.retained-records} indexes older; and the applied
 * index of the last record. Then the records are in the store, visible to every reader, and leave
 * the view's pending writes. The sync thread, {@code braid-<id>-journal-sync}, loops: it notes the
 * last index written, syncs the WAL once ({@link MetadataStore#syncWal()}), which makes every write
 * that returned before it durable, then completes the futures of every record up to that index, in
 * index order. Records written while a sync runs wait for the next one, so a sync covers one record
 * when the MDS is idle and many under load, with no timer and no size limit (HDFS's {@code
 * FSEditLog.logSync} works the same way). The three threads form a pipeline: the namespace thread
 * decides the next mutations while the write thread writes the last ones and the sync thread syncs
 * the ones before, one RocksDB write and one WAL sync per group.
 *
 * <p>What callers see. Readers of the store see a record once it is written, before it is
 * acknowledged, as on the HDFS NameNode: a client may observe a file whose creation a machine crash
 * then loses, together with every later mutation (RocksDB recovers a prefix of its WAL). Nothing is
 * acknowledged before it is durable. A failed write or sync fails the store (it refuses further
 * writes and tells its failure listener, which stops the MDS); the journal then fails every record
 * not yet acknowledged with {@code UNAVAILABLE} and refuses further appends. Such a record may or
 * may not be on disk; the retry cache settles a client's retry. With {@code
 * braid.mds.store.sync=false} there is no sync thread: a record's future completes as soon as it is
 * written, and only {@link #close()} syncs.
 *
 * <p>Replay. A record's encoding depends only on the record, and the trim only on its index and
 * {@code retained-records}, so {@link #replay replaying} a journal's records in order into a store
 * at the same starting point, with the same {@code retained-records}, gives a byte-identical store:
 * the same namespace, journal family and applied index ({@link JournalReplayer}).
 *
 * <p>Why it is long: the three stages of the group commit (append, write thread, sync thread) share
 * one lock, three conditions and two queues, and a failure or a close must reach all three under
 * that lock, so splitting the stages would spread that lock over classes; the view of unwritten
 * records is already {@link PendingWrites}, and a fifth of its lines are javadoc.
 *
 * <p>Thread-safety: {@link #append} and {@link #replay} are called by one thread at a time (the
 * namespace's mutation thread), which also reads {@link #view()}; everything else is thread-safe.
 * Futures complete on the sync thread (on the write thread when the store does not sync), so
 * actions chained on them must not block: a blocking callback delays every later acknowledgement.
 */
public final class WalJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(WalJournal.class);

  /** The longest {@link #close()} waits for the sync thread's last sync. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  /** The most records the write thread writes in one store write. */
  static final int MAX_GROUP = 1024;

  /**
   * The most records appended and not yet written: an append waits beyond it, so the namespace
   * thread cannot run ahead of RocksDB (a write stall, a replay) with an unbounded queue and view.
   */
  static final int MAX_UNWRITTEN = 4 * MAX_GROUP;

  /** A record not yet acknowledged, or a barrier, waiting for a sync. */
  private record Pending(long index, CompletableFuture<Long> future) {}

  /** A record appended but not yet written to the store. */
  private record Unwritten(
      long index, String operation, long timeNs, StoreBatch batch, PendingWrites.Added added) {}

  private final String id;
  private final MetadataStore store;
  private final Clock clock;
  private final boolean sync;
  private final long retained;
  private final LifeCycle lifeCycle;
  private final PendingWrites view;

  private final ReentrantLock lock = new ReentrantLock();

  /** Signalled when a record is queued or the write thread should stop. */
  @GuardedBy("lock")
  private final Condition toWrite = lock.newCondition();

  /** Signalled when records were written or the sync thread should stop. */
  @GuardedBy("lock")
  private final Condition written = lock.newCondition();

  /** Signalled when the write thread took records from the queue or stopped. */
  @GuardedBy("lock")
  private final Condition room = lock.newCondition();

  /** Records appended, not yet written, in index order. */
  @GuardedBy("lock")
  private final ArrayDeque<Unwritten> unwritten = new ArrayDeque<>();

  /** Records and barriers waiting to be durable, in index order. */
  @GuardedBy("lock")
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();

  /** Set by close: the threads write and sync what is queued, then stop. */
  @GuardedBy("lock")
  private boolean stopping;

  /** Set when the write thread takes no more records (stopped or failed). */
  @GuardedBy("lock")
  private boolean writerGone;

  /** Set when the sync thread takes no more records (stopped or failed). */
  @GuardedBy("lock")
  private boolean syncerGone;

  /** The first failure; set under lock, read anywhere. */
  private volatile @Nullable StoreException failure;

  /** The index of the last record appended; written only by the appending thread. */
  private volatile long lastIndex;

  /** The index of the last record written to the store; written under lock. */
  private volatile long writtenIndex;

  /** The index of the last record known durable; written under lock. */
  private volatile long durableIndex;

  /** Replaced after each sync, by the sync thread only. */
  private volatile SyncStats syncStats = SyncStats.NONE;

  private final AtomicLong groups = new AtomicLong();
  private volatile @Nullable Thread writer;
  private volatile @Nullable Thread syncer;

  /**
   * A journal over {@code store}, configured by {@code braid.mds.store.sync} and {@code
   * braid.mds.journal.retained-records} of {@code config}. Starts nothing.
   *
   * @param id the MDS id, used in logs, messages and the sync thread's name
   * @param store the store the journal writes; started by its owner before {@link #start()}, and
   *     written only through this journal while it runs
   * @param clock the clock that stamps each record ({@link JournalRecord#timeNs()})
   * @throws IllegalArgumentException if {@code id} is empty
   */
  public WalJournal(String id, MetadataStore store, BraidConfig config, Clock clock) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("journal id must not be empty");
    }
    this.id = id;
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sync = config.get(MdsStoreConfigKeys.SYNC);
    this.retained = config.get(MdsJournalConfigKeys.RETAINED_RECORDS);
    this.lifeCycle = new LifeCycle(id + "-journal");
    this.view = new PendingWrites(store, () -> lastIndex);
  }

  /**
   * Continues the journal after the store's applied index: makes what the store holds durable (it
   * may hold writes a crashed process never synced) and starts the sync thread.
   *
   * @throws StoreException with {@code UNAVAILABLE} if the store does not accept writes (not
   *     started, closed or failed) or the sync fails
   */
  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    try {
      if (!store.isWritable()) {
        throw new StoreException(
            Status.UNAVAILABLE, id + ": the store does not accept writes", null);
      }
      store.syncWal();
    } catch (IOException | RuntimeException e) {
      lifeCycle.failed();
      close();
      throw e;
    }
    long last = store.appliedIndex();
    lastIndex = last;
    writtenIndex = last;
    durableIndex = last;
    writer = startThread(this::runWriter, "write");
    if (sync) {
      syncer = startThread(this::runSyncer, "sync");
    }
    if (!lifeCycle.running()) {
      // Closed while starting; the sync thread sees stopping and ends by itself.
      throw new StoreException(Status.UNAVAILABLE, id + ": the journal was closed", null);
    }
    LOG.info(
        "{}: journal continues after index {} (sync={}, retained records {})",
        id,
        last,
        sync,
        retained);
  }

  private Thread startThread(Runnable body, String role) {
    Thread t = new Thread(body, "braid-" + id + "-journal-" + role);
    t.setDaemon(true);
    t.start();
    return t;
  }

  // ---- appending ------------------------------------------------------------------------------

  /**
   * {@inheritDoc}
   *
   * <p>The record is stamped with the clock's wall time. It is visible through {@link #view()} when
   * this returns, and to readers of the store once written, before its future completes. Waits
   * while {@link #MAX_UNWRITTEN} records are not yet written.
   *
   * @throws IllegalArgumentException if {@code batch} writes the journal family
   */
  @Override
  public CompletableFuture<Long> append(String operation, StoreBatch batch) throws IOException {
    return write(lastIndex + 1, operation, clock.currentTimeMillis() * 1_000_000L, batch);
  }

  /**
   * Appends a record exactly as another journal holds it (same index, operation, time and batch),
   * so this store ends up as that journal's store did; see {@link JournalReplayer}. Otherwise as
   * {@link #append}.
   *
   * @throws IllegalArgumentException if the record's index is not {@link #lastIndex()} + 1 or its
   *     batch writes the journal family
   */
  public CompletableFuture<Long> replay(JournalRecord record) throws IOException {
    if (record.index() != lastIndex + 1) {
      throw new IllegalArgumentException(
          id + ": cannot replay record " + record.index() + " after index " + lastIndex);
    }
    return write(record.index(), record.operation(), record.timeNs(), record.batch());
  }

  private CompletableFuture<Long> write(long index, String operation, long timeNs, StoreBatch batch)
      throws IOException {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(batch, "batch");
    if (batch.writes(ColumnFamily.JOURNAL)) {
      throw new IllegalArgumentException(
          id + ": " + operation + ": a batch may not write the journal family");
    }
    StoreException refused = refusal();
    if (refused != null) {
      throw refused;
    }
    CompletableFuture<Long> future = new CompletableFuture<>();
    lock.lock();
    try {
      while (unwritten.size() >= MAX_UNWRITTEN && failure == null && !writerGone) {
        room.awaitUninterruptibly();
      }
      if (failure != null || writerGone) {
        refused = failure != null ? refusal() : notDurable(index);
      } else {
        unwritten.addLast(new Unwritten(index, operation, timeNs, batch, view.add(batch)));
        pending.addLast(new Pending(index, future));
        lastIndex = index;
        toWrite.signal();
      }
    } finally {
      lock.unlock();
    }
    if (refused != null) {
      throw refused;
    }
    return future;
  }

  /** A future completed once record {@code index}, already appended, is durable. */
  private CompletableFuture<Long> await(long index) {
    CompletableFuture<Long> future = new CompletableFuture<>();
    StoreException refused = null;
    lock.lock();
    try {
      if (index <= durableIndex) {
        future.complete(index);
      } else if (failure != null || (sync ? syncerGone : writerGone)) {
        refused = notDurable(index);
      } else {
        pending.addLast(new Pending(index, future));
      }
    } finally {
      lock.unlock();
    }
    if (refused != null) {
      future.completeExceptionally(refused);
    }
    return future;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Fails with {@code UNAVAILABLE} if the journal failed or closed before those records were
   * durable. With {@code braid.mds.store.sync=false}, completes at once.
   */
  @Override
  public CompletableFuture<Long> barrier() {
    return await(lastIndex);
  }

  @Override
  public long lastIndex() {
    return lastIndex;
  }

  /**
   * The index of the last record known durable: every record up to it was acknowledged. With {@code
   * braid.mds.store.sync=false}, the last record written.
   */
  public long durableIndex() {
    return durableIndex;
  }

  /**
   * The group commit's figures since start: syncs, records they made durable, time in them. None
   * with {@code braid.mds.store.sync=false}.
   */
  public SyncStats syncStats() {
    return syncStats;
  }

  /** Store writes the write thread made since start, each of one group of records. */
  public long writeCount() {
    return groups.get();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The store with the writes of the records not yet written over it ({@link PendingWrites}).
   */
  @Override
  public StoreView view() {
    return view;
  }

  // ---- reading --------------------------------------------------------------------------------

  /**
   * {@inheritDoc}
   *
   * <p>Reads the records from the store, so it works whether or not the journal runs, and may
   * return records not yet durable; it first waits until the records appended before the call are
   * written (or the journal failed or stopped). An empty list means {@code fromIndex} is after the
   * last record.
   *
   * @throws IllegalArgumentException if {@code fromIndex < 1} or {@code limit < 1}
   * @throws IOException naming the index and what is kept if a record from {@code fromIndex} on was
   *     trimmed or is missing; a {@link StoreException} with {@code INTERNAL} if a record is
   *     corrupt
   */
  @Override
  public List<JournalRecord> read(long fromIndex, int limit) throws IOException {
    if (fromIndex < 1 || limit < 1) {
      throw new IllegalArgumentException(
          id + ": cannot read " + limit + " journal records from index " + fromIndex);
    }
    awaitWritten(lastIndex);
    long last = store.appliedIndex();
    if (fromIndex > last) {
      return List.of();
    }
    int count = (int) Math.min(limit, last - fromIndex + 1);
    ScanPage page =
        store.scan(ColumnFamily.JOURNAL, new byte[0], Keys.journal(fromIndex - 1), count);
    List<JournalRecord> records = new ArrayList<>(page.size());
    long expected = fromIndex;
    for (ScanPage.Entry e : page.entries()) {
      long index = indexOf(e.key());
      if (index != expected) {
        throw missing(expected, last);
      }
      JournalEntry entry = Records.decodeJournalEntry(e.key(), e.value());
      records.add(
          new JournalRecord(
              index,
              entry.getOperation(),
              entry.getTimeNs(),
              Records.journalBatch(e.key(), entry)));
      expected++;
    }
    if (records.size() < count) {
      throw missing(expected, last);
    }
    return records;
  }

  private long indexOf(byte[] key) throws StoreException {
    try {
      return Keys.journalIndex(key);
    } catch (IllegalArgumentException e) {
      throw new StoreException(
          Status.INTERNAL,
          id + ": corrupt metadata: malformed journal key " + HexFormat.of().formatHex(key),
          e);
    }
  }

  private IOException missing(long index, long last) {
    String kept =
        last > retained ? "records " + (last - retained + 1) + ".." + last : "records 1.." + last;
    return new IOException(
        id
            + ": journal record "
            + index
            + (index <= last - retained ? " was trimmed" : " is missing")
            + " (braid.mds.journal.retained-records="
            + retained
            + " keeps "
            + kept
            + ")");
  }

  /**
   * Waits until record {@code index} is written, the journal failed, or nothing writes any more.
   */
  private void awaitWritten(long index) {
    lock.lock();
    try {
      while (writtenIndex < index && failure == null && !writerGone && writer != null) {
        written.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
    }
  }

  // ---- write thread ---------------------------------------------------------------------------

  private void runWriter() {
    try {
      while (true) {
        List<Unwritten> group = new ArrayList<>();
        lock.lock();
        try {
          while (unwritten.isEmpty() && !stopping && failure == null) {
            toWrite.awaitUninterruptibly();
          }
          if (failure != null || unwritten.isEmpty()) {
            writerGone = true; // under the same lock: no append is queued after this
            return; // failed, or stopping with nothing left to write
          }
          while (!unwritten.isEmpty() && group.size() < MAX_GROUP) {
            group.add(unwritten.pollFirst());
          }
          room.signal();
        } finally {
          lock.unlock();
        }
        if (!writeGroup(group)) {
          return;
        }
      }
    } catch (Throwable t) { // top of the thread: no future may be left hanging
      threadFailed("write", t);
    } finally {
      List<Pending> left = List.of();
      lock.lock();
      try {
        writerGone = true;
        unwritten.clear();
        if (!sync) {
          left = drain(Long.MAX_VALUE);
        }
        written.signalAll();
        room.signalAll();
      } finally {
        lock.unlock();
      }
      for (Pending p : left) {
        p.future().completeExceptionally(notDurable(p.index()));
      }
    }
  }

  /**
   * Writes {@code group} as one store write and, without sync, acknowledges it; on failure, fails
   * the journal.
   *
   * @return whether the group was written
   */
  private boolean writeGroup(List<Unwritten> group) {
    List<StoreBatch> batches = new ArrayList<>(group.size());
    for (Unwritten u : group) {
      StoreBatch.Builder journal =
          StoreBatch.builder()
              .put(
                  ColumnFamily.JOURNAL,
                  Keys.journal(u.index()),
                  Records.encodeJournalEntry(u.operation(), u.timeNs(), u.batch()));
      if (u.index() > retained) {
        journal.delete(ColumnFamily.JOURNAL, Keys.journal(u.index() - retained));
      }
      batches.add(u.batch().plus(journal.build()));
    }
    long first = group.get(0).index();
    long last = group.get(group.size() - 1).index();
    try {
      store.applyAll(batches, first, false);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "{}: write of records {}..{} failed; refusing further appends: {}",
          id,
          first,
          last,
          String.valueOf(e));
      fail(
          e instanceof StoreException se && se.status() == Status.UNAVAILABLE
              ? se
              : new StoreException(
                  Status.UNAVAILABLE,
                  id + ": write of journal records " + first + ".." + last + " failed: " + e,
                  e));
      return false;
    }
    groups.incrementAndGet();
    for (Unwritten u : group) {
      view.written(u.added());
    }
    List<Pending> done = List.of();
    lock.lock();
    try {
      if (failure != null) {
        return false; // a sync failed meanwhile and already failed what was pending
      }
      writtenIndex = last;
      if (!sync) {
        durableIndex = last;
        done = drain(last);
      }
      written.signalAll();
    } finally {
      lock.unlock();
    }
    for (Pending p : done) {
      p.future().complete(p.index());
    }
    return true;
  }

  // ---- sync thread ----------------------------------------------------------------------------

  private void runSyncer() {
    try {
      while (true) {
        lock.lock();
        try {
          while (writtenIndex <= durableIndex && failure == null && !(stopping && writerGone)) {
            written.awaitUninterruptibly();
          }
          if (failure != null || writtenIndex <= durableIndex) {
            return; // failed, or stopping with everything written synced
          }
        } finally {
          lock.unlock();
        }
        syncOnce();
      }
    } catch (Throwable t) { // top of the thread: no future may be left hanging
      threadFailed("sync", t);
    } finally {
      List<Pending> left;
      lock.lock();
      try {
        syncerGone = true;
        left = drain(Long.MAX_VALUE);
      } finally {
        lock.unlock();
      }
      for (Pending p : left) {
        p.future().completeExceptionally(notDurable(p.index()));
      }
    }
  }

  /** Fails the journal after an unexpected throwable ended the {@code role} thread. */
  private void threadFailed(String role, Throwable t) {
    LOG.error("{}: the journal {} thread failed; refusing further appends", id, role, t);
    fail(
        new StoreException(Status.UNAVAILABLE, id + ": the journal " + role + " thread failed", t));
  }

  /** Syncs everything written so far and acknowledges it; on failure, fails the journal. */
  private void syncOnce() {
    long target = writtenIndex; // every record up to here was written before the sync starts
    long started = System.nanoTime();
    try {
      store.syncWal();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "{}: WAL sync up to record {} failed; refusing further appends: {}",
          id,
          target,
          String.valueOf(e));
      fail(
          e instanceof StoreException se && se.status() == Status.UNAVAILABLE
              ? se
              : new StoreException(
                  Status.UNAVAILABLE, id + ": WAL sync up to record " + target + " failed", e));
      return;
    }
    long took = System.nanoTime() - started;
    List<Pending> done;
    lock.lock();
    try {
      if (failure != null) {
        return; // a later write failed meanwhile and already failed what was pending
      }
      // The sync thread alone advances durableIndex, and only syncs when more was written.
      syncStats = syncStats.plus(target - durableIndex, took);
      durableIndex = target;
      done = drain(target);
    } finally {
      lock.unlock();
    }
    for (Pending p : done) {
      p.future().complete(p.index());
    }
  }

  /** Removes the pending records up to {@code index}. */
  @GuardedBy("lock")
  private List<Pending> drain(long index) {
    List<Pending> out = new ArrayList<>();
    while (!pending.isEmpty() && pending.peekFirst().index() <= index) {
      out.add(pending.pollFirst());
    }
    return out;
  }

  /** Records the first failure and fails every pending record. */
  private void fail(StoreException cause) {
    List<Pending> failed;
    lock.lock();
    try {
      if (failure == null) {
        failure = cause;
      }
      failed = drain(Long.MAX_VALUE);
      toWrite.signal();
      written.signalAll();
      room.signalAll();
    } finally {
      lock.unlock();
    }
    for (Pending p : failed) {
      p.future().completeExceptionally(notDurable(p.index()));
    }
  }

  private StoreException notDurable(long index) {
    StoreException f = failure;
    return new StoreException(
        Status.UNAVAILABLE,
        id
            + ": journal record "
            + index
            + (f != null ? " may not be durable after a failure" : " may not be durable: closed"),
        f);
  }

  /** Why an append is refused now, or null if it is accepted. */
  private @Nullable StoreException refusal() {
    StoreException f = failure;
    if (f != null) {
      return new StoreException(
          Status.UNAVAILABLE, id + ": appends refused after a failed write or sync", f);
    }
    if (!lifeCycle.isRunning()) {
      return new StoreException(
          Status.UNAVAILABLE, id + ": append refused, the journal is " + lifeCycle.state(), null);
    }
    return null;
  }

  // ---- life cycle -----------------------------------------------------------------------------

  /**
   * Writes and makes durable every record appended so far, completing its future, then stops the
   * write and sync threads, waiting at most {@link #CLOSE_WAIT} for each. Later appends are
   * refused. Does not close the store.
   */
  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    lock.lock();
    try {
      stopping = true;
      toWrite.signal();
      written.signalAll();
    } finally {
      lock.unlock();
    }
    join(writer, "write");
    join(syncer, "sync");
    if (!sync && failure == null && lastIndex > 0 && store.isWritable()) {
      try {
        store.syncWal();
      } catch (IOException e) {
        LOG.warn("{}: WAL sync at close failed: {}", id, String.valueOf(e));
      }
    }
    lifeCycle.closed();
    LOG.info("{}: journal closed at index {} (durable {})", id, lastIndex, durableIndex);
  }

  private void join(@Nullable Thread t, String role) {
    if (t == null || t == Thread.currentThread()) {
      return;
    }
    try {
      t.join(CLOSE_WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      LOG.warn("{}: the journal {} thread did not stop within {}", id, role, CLOSE_WAIT);
    }
  }

  @Override
  public String toString() {
    return "WalJournal[" + id + ", " + lifeCycle.state() + ", last " + lastIndex + "]";
  }
}
