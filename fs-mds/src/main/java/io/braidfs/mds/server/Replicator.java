package io.braidfs.mds.server;

import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.cluster.ChunkRef;
import io.braidfs.mds.cluster.DataServerRegistry;
import io.braidfs.mds.journal.Journal;
import io.braidfs.mds.namespace.Mutation;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.mds.namespace.Replication;
import io.braidfs.mds.namespace.Replication.Copy;
import io.braidfs.mds.namespace.Replication.Plan;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.ScanPage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every file's chunks at its replication: re-replication of replicas lost with a data server
 * or found bad, draining of decommissioning servers, and replication changes. Files wait in a queue
 * ordered by their least-replicated chunk (fewest good replicas first, HDFS's priority queues);
 * each is reconciled on the mutation thread ({@link Replication#reconcile}), which trims extra
 * replicas and plans copies; each copy is a CopyChunk sent straight to the chosen data server,
 * which copies the chunk from a holder and verifies it, so the answer is the confirmation and only
 * then does the replica join the chunk's set (a journaled mutation).
 *
 * <p>Why direct calls rather than commands in heartbeat answers (HDFS's DNA_TRANSFER): the answer
 * to the call is the confirmation, so the MDS needs no report and no bookkeeping of commands handed
 * out, and data servers already serve CopyChunk (writers use it to seed replacements).
 *
 * <p>Throttling: at most {@code repair-copies} copies at once in the cluster, and at most {@code
 * repair-copies-per-server} per data server as target or first source, so foreground I/O keeps
 * going; data servers also limit their copy bandwidth. A file whose copies could not all be planned
 * (limits, no room, no readable source) waits and is looked at again when a copy finishes and every
 * few seconds.
 *
 * <p>Triggers: a file's replication changed or it closed short of replicas ({@link #request}); a
 * server died, was decommissioned or reported bad replicas ({@link #requestChunks}); and a scan of
 * every chunk ({@link #scanAll}) at the end of the start-up grace, after the death of a server that
 * has not reported since the MDS started, and periodically. Nothing is copied during the start-up
 * grace, while data servers are still reporting what they hold.
 *
 * <p>Thread-safety: {@link #request}, {@link #requestChunks}, {@link #scanAll} and the counters are
 * thread-safe; everything else runs on the mutation thread.
 */
final class Replicator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Replicator.class);

  /** How long one chunk copy may take (a 64 MiB chunk read and written once, throttled). */
  static final Duration COPY_TIMEOUT = Duration.ofMinutes(5);

  /** How soon a file whose copies could not all be planned is looked at again, at first. */
  static final long RETRY_MS = 1000;

  /** The longest wait between looks at a file whose copies cannot be planned. */
  static final long MAX_RETRY_MS = 60_000;

  private final String id;
  private final Namespace ns;
  private final Replication replication;
  private final Journal journal;
  private final Executor mutationThread;
  private final ScheduledExecutorService scheduler;
  private final RpcClient rpc;
  private final DataServerRegistry registry;
  private final int maxCopies;
  private final int maxPerServer;

  // Mutation thread only.
  private final Map<ChunkRef, Set<Integer>> inFlight = new HashMap<>();
  private final Map<ChunkRef, Set<Integer>> failed = new HashMap<>();
  private final PriorityQueue<Queued> queue = new PriorityQueue<>();
  private final Map<Long, Integer> queued = new HashMap<>();

  /** Files whose copies could not all be planned: when to look again, and the delay after. */
  private final Map<Long, long[]> deferred = new LinkedHashMap<>();

  private long seq;

  // Read by the admin report on other threads.
  private final Map<Integer, Integer> perServer = new ConcurrentHashMap<>();
  private final Set<String> copyTargets = ConcurrentHashMap.newKeySet();
  private volatile int copies;
  private volatile int waiting;
  private final AtomicBoolean scanning = new AtomicBoolean();

  /** A file in the queue: fewest good replicas first, then first come. */
  private record Queued(int priority, long seq, long inode) implements Comparable<Queued> {
    @Override
    public int compareTo(Queued o) {
      int c = Integer.compare(priority, o.priority);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  Replicator(
      String id,
      Namespace ns,
      Replication replication,
      Journal journal,
      Executor mutationThread,
      ScheduledExecutorService scheduler,
      RpcClient rpc,
      int maxCopies,
      int maxPerServer) {
    this.id = id;
    this.ns = ns;
    this.replication = replication;
    this.journal = journal;
    this.mutationThread = mutationThread;
    this.scheduler = scheduler;
    this.rpc = rpc;
    this.registry = ns.registry();
    this.maxCopies = maxCopies;
    this.maxPerServer = maxPerServer;
  }

  /** Looks at {@code inode}'s chunks soon, on the mutation thread. */
  void request(long inode) {
    onMutationThread(() -> enqueue(inode), "replication of inode " + inode);
  }

  /** Looks at the files of {@code chunks} soon. */
  void requestChunks(Collection<ChunkRef> chunks) {
    Set<Long> inodes = new LinkedHashSet<>();
    chunks.forEach(c -> inodes.add(c.inode()));
    if (!inodes.isEmpty()) {
      onMutationThread(
          () -> {
            inodes.forEach(this::enqueue);
          },
          inodes.size() + " files");
    }
  }

  /**
   * Checks every chunk against its file's replication, on the calling thread against the written
   * store, and queues the files that need copies or trimming. At most one scan runs at a time.
   */
  void scanAll() {
    if (!scanning.compareAndSet(false, true)) {
      return;
    }
    try {
      List<Long> needy = new ArrayList<>();
      long last = -1;
      byte[] cursor = null;
      do {
        ScanPage page = ns.store().scan(ColumnFamily.CHUNKS, new byte[0], cursor, 4096);
        for (ScanPage.Entry e : page.entries()) {
          long inode = Keys.chunkInode(e.key());
          if (inode != last) {
            last = inode;
            if (replication.neediest(ns.store(), inode) >= 0) {
              needy.add(inode);
            }
          }
        }
        cursor = page.hasMore() ? page.cursor() : null;
      } while (cursor != null);
      if (!needy.isEmpty()) {
        LOG.info("{}: replication scan: {} files need copies or trimming", id, needy.size());
      }
      onMutationThread(
          () -> {
            // A server a copy failed on may take the chunk again from now on (it may have been
            // only busy or briefly unreachable).
            failed.clear();
            needy.forEach(this::enqueue);
          },
          needy.size() + " files");
    } catch (IOException | RuntimeException e) {
      LOG.warn("{}: replication scan failed: {}", id, e.toString());
    } finally {
      scanning.set(false);
    }
  }

  /** Looks again soon at files whose copies could not all be planned. */
  void retryWaiting() {
    onMutationThread(this::pump, "waiting files");
  }

  /**
   * Looks again at files that waited and are due, and starts what the queue holds (mutation
   * thread). A file that keeps waiting is looked at less often, up to every {@link #MAX_RETRY_MS}.
   */
  void pump() {
    long now = System.nanoTime();
    List<Long> due = new ArrayList<>();
    deferred.forEach(
        (inode, when) -> {
          if (now - when[0] >= 0) {
            due.add(inode);
          }
        });
    for (long inode : due) {
      enqueue(inode);
    }
    drain();
  }

  private void defer(long inode) {
    long[] when = deferred.get(inode);
    long delay = when == null ? RETRY_MS : Math.min(MAX_RETRY_MS, when[1] * 2);
    deferred.put(inode, new long[] {System.nanoTime() + delay * 1_000_000, delay});
  }

  /**
   * A copy finished: the longest-waiting files may go now, as many as copies may run (not all: with
   * thousands waiting, looking at each after every copy would cost more than the copies).
   */
  private void slotFreed() {
    long now = System.nanoTime();
    int n = 0;
    for (long[] w : deferred.values()) {
      if (n++ >= maxCopies) {
        break;
      }
      w[0] = Math.min(w[0], now);
    }
  }

  /**
   * Whether a copy of {@code chunk} to {@code serverId} is under way (its replica there is about to
   * join the chunk's holders). Read off the mutation thread, so a snapshot.
   */
  boolean copying(ChunkRef chunk, int serverId) {
    return copyTargets.contains(chunk.inode() + "/" + chunk.index() + "@" + serverId);
  }

  /** Copies under way. */
  int copiesInFlight() {
    return copies;
  }

  /** Copies under way with {@code serverId} as target or first source. */
  int copiesInFlight(int serverId) {
    return perServer.getOrDefault(serverId, 0);
  }

  /** Files waiting for copies (queued or deferred). */
  int waiting() {
    return waiting;
  }

  private void enqueue(long inode) {
    int priority;
    try {
      if (replication.waitForClose(ns.decided(), inode)) {
        deferred.remove(inode);
        return; // looked at again when closed
      }
      priority = replication.neediest(ns.decided(), inode);
    } catch (IOException | RuntimeException e) {
      LOG.warn("{}: cannot look at inode {}: {}", id, inode, e.toString());
      return;
    }
    if (priority < 0) {
      deferred.remove(inode);
      return;
    }
    Integer already = queued.get(inode);
    if (already == null || priority < already) {
      queued.put(inode, priority);
      queue.add(new Queued(priority, seq++, inode));
    }
    drain();
  }

  private void drain() {
    if (registry.inStartupGrace()) {
      updateWaiting();
      return; // data servers are still reporting what they hold
    }
    while (copies < maxCopies && !queue.isEmpty()) {
      Queued q = queue.poll();
      Integer current = queued.get(q.inode());
      if (current == null || current != q.priority()) {
        continue; // superseded by a more urgent entry
      }
      queued.remove(q.inode());
      reconcile(q.inode());
    }
    updateWaiting();
  }

  private void reconcile(long inode) {
    Mutation m = ns.newMutation();
    Plan plan;
    try {
      plan =
          replication.reconcile(
              m,
              inode,
              new Replication.Limits(
                  inFlight, failed, s -> perServer.getOrDefault(s, 0) >= maxPerServer),
              rpc.clientId(),
              maxCopies - copies);
      if (!m.isEmpty()) {
        journal.append("replication of inode " + inode, m.batch());
      }
      m.applied();
    } catch (IOException | RuntimeException e) {
      abandon(inode, e);
      return;
    }
    if (plan.incomplete()) {
      defer(inode);
    } else {
      deferred.remove(inode);
    }
    for (Copy c : plan.copies()) {
      send(c);
    }
  }

  private void send(Copy c) {
    inFlight.computeIfAbsent(c.chunk(), k -> new HashSet<>()).add(c.target().id());
    copyTargets.add(c.chunk().inode() + "/" + c.chunk().index() + "@" + c.target().id());
    copies++;
    perServer.merge(c.target().id(), 1, Integer::sum);
    perServer.merge(c.source(), 1, Integer::sum);
    LOG.debug("{}: copying chunk {} from ds{} to {}", id, c.chunk(), c.source(), c.target());
    rpc.call(
            HostPort.of(c.target().toReplicaLocation()),
            RpcMethod.COPY_CHUNK,
            c.request(),
            null,
            COPY_TIMEOUT)
        .whenComplete(
            (response, failure) -> {
              if (response != null) {
                response.close();
              }
              onMutationThread(() -> finished(c, failure), "copy of chunk " + c.chunk());
            });
  }

  private void finished(Copy c, Throwable failure) {
    // Heartbeats (this thread too) check deletions against the records as decided, which from
    // here on include the copy.
    copyTargets.remove(c.chunk().inode() + "/" + c.chunk().index() + "@" + c.target().id());
    Set<Integer> going = inFlight.get(c.chunk());
    if (going != null && going.remove(c.target().id()) && going.isEmpty()) {
      inFlight.remove(c.chunk());
    }
    copies--;
    perServer.computeIfPresent(c.target().id(), (k, v) -> v > 1 ? v - 1 : null);
    perServer.computeIfPresent(c.source(), (k, v) -> v > 1 ? v - 1 : null);
    long inode = c.chunk().inode();
    if (failure != null) {
      LOG.warn(
          "{}: copy of chunk {} to {} failed: {}", id, c.chunk(), c.target(), failure.toString());
      failed.computeIfAbsent(c.chunk(), k -> new HashSet<>()).add(c.target().id());
      defer(inode);
    } else {
      Mutation m = ns.newMutation();
      try {
        boolean joined = replication.recordCopy(m, c);
        journal.append("replica of inode " + inode, m.batch());
        m.applied();
        if (joined) {
          failed.remove(c.chunk());
          LOG.debug("{}: chunk {} has a new replica on {}", id, c.chunk(), c.target());
        }
      } catch (IOException | RuntimeException e) {
        abandon(inode, e);
        return;
      }
      enqueue(inode); // trims what the new replica made extra, or plans the next copy
    }
    slotFreed();
    pump();
  }

  private void updateWaiting() {
    waiting = queued.size() + deferred.size();
  }

  private void abandon(long inode, Exception e) {
    try {
      ns.abandoned();
    } catch (IOException reload) {
      e.addSuppressed(reload);
    }
    LOG.warn("{}: replication of inode {} failed: {}", id, inode, e.toString());
    defer(inode);
    updateWaiting();
  }

  private void onMutationThread(Runnable task, String what) {
    try {
      mutationThread.execute(task);
    } catch (RejectedExecutionException closing) {
      LOG.debug("{}: stopping; {} not looked at", id, what);
    }
  }

  /** Schedules {@link #pump} every {@link #RETRY_MS} on the mutation thread. */
  void startRetries() {
    scheduler.scheduleWithFixedDelay(
        () -> onMutationThread(this::pump, "waiting files"),
        RETRY_MS,
        RETRY_MS,
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    rpc.close();
  }
}
