package io.braidfs.mds.store;

import io.braidfs.common.error.Status;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit: concurrent mutations share one write, and so one WAL sync, of a {@link
 * MetadataStore} (ARCHITECTURE section 7, rule 3).
 *
 * <p>Callers {@link #submit} batches into a bounded queue. A single writer thread, {@code
 * braid-<id>-commit}, takes everything queued, applies it as one {@link MetadataStore#applyAll}
 * (batches in submission order, each with the next journal index, the last index recorded in the
 * store), and then completes each batch's future with its journal index. While one group is being
 * synced the next one queues up, so the number of syncs adapts to the load: one per batch when
 * idle, one per thousands under pressure. Journal indexes continue from the store's applied index
 * at {@link #start()}; while a committer runs it must be the store's only writer.
 *
 * <p>If a group's write fails, every future of the group fails with that {@link StoreException},
 * and the committer refuses everything after it (queued or submitted later) with {@code
 * UNAVAILABLE}: the store has failed, and the MDS must stop (the store tells its write-failure
 * listener). {@link #close()} commits what was queued before it, then stops the writer.
 *
 * <p>Thread-safety: thread-safe. Futures complete on the writer thread, so actions chained on them
 * must not block (use the {@code *Async} variants with an executor for anything slow); a blocking
 * callback stalls every later commit.
 */
public final class GroupCommitter implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommitter.class);

  /** How long the idle writer waits for work before it checks whether it should stop. */
  private static final long IDLE_POLL_MILLIS = 50;

  /** The longest {@link #close()} waits for the writer to commit what is queued and stop. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  private final String id;
  private final MetadataStore store;
  private final BlockingQueue<Pending> queue;
  private final long queueTimeoutNanos;
  private final LifeCycle lifeCycle;

  private final AtomicLong groups = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private volatile int largestGroup;
  private volatile boolean stopping;
  private volatile @Nullable StoreException failure;
  private volatile @Nullable Thread writer;

  /** The journal index of the next batch; touched only by the writer thread after start. */
  private long nextIndex;

  /** A submitted batch and the future to complete with its journal index. */
  private record Pending(StoreBatch batch, CompletableFuture<Long> future) {}

  /**
   * A committer for {@code store} with the queue size and timeout of {@code options}.
   *
   * @param id the MDS id, used in logs and in the writer thread's name
   * @throws IllegalArgumentException if {@code id} is empty
   */
  public GroupCommitter(String id, MetadataStore store, StoreOptions options) {
    this(id, store, options.commitQueue(), options.commitQueueTimeout());
  }

  /**
   * A committer for {@code store} whose queue holds {@code capacity} batches; a submitter waits up
   * to {@code queueTimeout} for room.
   *
   * @param id the MDS id, used in logs and in the writer thread's name
   * @throws IllegalArgumentException if {@code id} is empty, {@code capacity < 1} or the timeout is
   *     negative
   */
  public GroupCommitter(String id, MetadataStore store, int capacity, Duration queueTimeout) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("committer id must not be empty");
    }
    if (capacity < 1 || queueTimeout.isNegative()) {
      throw new IllegalArgumentException(
          id + ": invalid commit queue " + capacity + ", timeout " + queueTimeout);
    }
    this.id = id;
    this.store = Objects.requireNonNull(store, "store");
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.queueTimeoutNanos = queueTimeout.toNanos();
    this.lifeCycle = new LifeCycle(id + "-commit");
  }

  /**
   * Starts the writer thread, continuing the journal after the store's applied index.
   *
   * @throws IOException if the store does not accept writes (not started, closed or failed)
   */
  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    if (!store.isWritable()) {
      lifeCycle.failed();
      close();
      throw new StoreException(Status.UNAVAILABLE, id + ": the store does not accept writes", null);
    }
    nextIndex = store.appliedIndex() + 1;
    Thread t = new Thread(this::runWriter, "braid-" + id + "-commit");
    t.setDaemon(true);
    writer = t;
    lifeCycle.running();
    t.start();
  }

  /**
   * Queues {@code batch} for the next group. Blocks while the queue is full, up to {@code
   * braid.mds.store.commit-queue-timeout}; never call it on an event loop.
   *
   * @return a future completed with the batch's journal index once it is applied (and durable if
   *     the store syncs), or failed with a {@link StoreException}: {@code BUSY} if the queue stayed
   *     full, {@code CANCELLED} if the caller was interrupted (its interrupt flag is kept), {@code
   *     UNAVAILABLE} if the committer is not running or a write failed (this one or an earlier one;
   *     a batch whose own write failed may still have reached the disk)
   * @throws NullPointerException if {@code batch} is null
   */
  public CompletableFuture<Long> submit(StoreBatch batch) {
    Pending pending =
        new Pending(Objects.requireNonNull(batch, "batch"), new CompletableFuture<>());
    StoreException refused = refusal();
    if (refused != null) {
      pending.future().completeExceptionally(refused);
      return pending.future();
    }
    try {
      if (!queue.offer(pending, queueTimeoutNanos, TimeUnit.NANOSECONDS)) {
        pending
            .future()
            .completeExceptionally(
                new StoreException(
                    Status.BUSY,
                    id
                        + ": commit queue full ("
                        + queue.remainingCapacity()
                        + " free) for "
                        + Duration.ofNanos(queueTimeoutNanos),
                    null));
        return pending.future();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pending
          .future()
          .completeExceptionally(
              new StoreException(Status.CANCELLED, id + ": interrupted waiting for the queue", e));
      return pending.future();
    }
    // The writer may have stopped while this batch was being queued; then nobody else takes it.
    refused = refusal();
    if (refused != null && queue.remove(pending)) {
      pending.future().completeExceptionally(refused);
    }
    return pending.future();
  }

  /** Groups written (each one store write, so at most one WAL sync) since start. */
  public long groupsWritten() {
    return groups.get();
  }

  /** Batches written since start. */
  public long batchesWritten() {
    return batches.get();
  }

  /** The most batches written in one group since start. */
  public int largestGroup() {
    return largestGroup;
  }

  /**
   * Commits what was queued before the call, then stops the writer thread, waiting at most {@link
   * #CLOSE_WAIT}. Later submissions fail with {@code UNAVAILABLE}. Does not close the store.
   */
  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    stopping = true;
    Thread t = writer;
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(CLOSE_WAIT.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (t.isAlive()) {
        LOG.warn("{}: the commit writer did not stop within {}", id, CLOSE_WAIT);
      }
    }
    failQueued(new StoreException(Status.UNAVAILABLE, id + ": the committer is closed", null));
    lifeCycle.closed();
  }

  // ---- writer thread --------------------------------------------------------------------------

  private void runWriter() {
    List<Pending> group = new ArrayList<>();
    try {
      while (failure == null) {
        Pending first = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
        if (first == null) {
          if (stopping) {
            break;
          }
          continue;
        }
        group.add(first);
        queue.drainTo(group);
        commit(group);
        group.clear();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // nobody interrupts the writer; stop if someone does
    } catch (Throwable t) { // top of the thread: a future must never be left hanging
      StoreException f =
          new StoreException(Status.UNAVAILABLE, id + ": the commit writer failed: " + t, t);
      failure = f;
      LOG.error("{}: the commit writer failed; refusing further commits", id, t);
      for (Pending p : group) {
        p.future().completeExceptionally(f);
      }
    } finally {
      if (failure == null && !stopping) {
        failure = new StoreException(Status.UNAVAILABLE, id + ": the commit writer stopped", null);
      }
      StoreException refused = refusal();
      if (refused != null) {
        failQueued(refused);
      }
    }
  }

  /** Writes {@code group} as one store write and completes its futures. */
  private void commit(List<Pending> group) {
    List<StoreBatch> list = new ArrayList<>(group.size());
    for (Pending p : group) {
      list.add(p.batch());
    }
    long first = nextIndex;
    try {
      store.applyAll(list, first);
    } catch (IOException | RuntimeException e) {
      StoreException f =
          e instanceof StoreException se
              ? se
              : new StoreException(
                  Status.UNAVAILABLE,
                  id + ": commit of journal indexes from " + first + " failed: " + e,
                  e);
      failure = f;
      LOG.warn(
          "{}: commit of {} batches failed, refusing further commits: {}",
          id,
          list.size(),
          String.valueOf(e));
      for (Pending p : group) {
        p.future().completeExceptionally(f);
      }
      return;
    }
    nextIndex = first + group.size();
    groups.incrementAndGet();
    batches.addAndGet(group.size());
    if (group.size() > largestGroup) {
      largestGroup = group.size();
    }
    for (int i = 0; i < group.size(); i++) {
      group.get(i).future().complete(first + i);
    }
  }

  private @Nullable StoreException refusal() {
    StoreException f = failure;
    if (f != null) {
      return new StoreException(
          Status.UNAVAILABLE, id + ": commits refused after a failed write", f);
    }
    if (stopping || !lifeCycle.isRunning()) {
      return new StoreException(
          Status.UNAVAILABLE, id + ": the committer is " + lifeCycle.state(), null);
    }
    return null;
  }

  private void failQueued(StoreException reason) {
    for (Pending p = queue.poll(); p != null; p = queue.poll()) {
      p.future().completeExceptionally(reason);
    }
  }

  @Override
  public String toString() {
    return "GroupCommitter[" + id + ", " + lifeCycle.state() + "]";
  }
}
