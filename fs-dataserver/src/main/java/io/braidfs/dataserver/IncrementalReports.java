package io.braidfs.dataserver;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.ReplicaChangesRequest;
import io.braidfs.proto.ReplicaReport;
import io.braidfs.proto.ReportCorruptReplicasRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the MDS what changed in this server's replicas between full chunk reports (HDFS's
 * incremental block reports): replicas finalized (by a writer's FinalizeChunk, a finalizing copy, a
 * truncate) and removed (deleted, or lost with a failed data directory) go out as ReplicaChanges,
 * corrupt ones the scrubber found as ReportCorruptReplicas.
 *
 * <p>Changes are collected from any thread and sent on the MDS link's thread, batched: at most one
 * send per {@link #MIN_GAP} unless the link {@linkplain #flush() flushes} them itself (it does
 * before every heartbeat, so the MDS hears of a change no later than of the next heartbeat). Only
 * the latest change of a replica is kept: one finalized and then deleted before the send is
 * reported removed. A send that fails is put back (behind any newer change of the same replica) and
 * tried again after the retry pause; until the server has registered, changes wait. A full chunk
 * report covers whatever is lost meanwhile.
 *
 * <p>Thread-safety: thread-safe; sends happen only on the link's thread.
 */
final class IncrementalReports {
  private static final Logger LOG = LoggerFactory.getLogger(IncrementalReports.class);

  /** The shortest time between two sends the link did not ask for. */
  static final Duration MIN_GAP = Duration.ofMillis(100);

  /** Replicas per message. */
  private static final int BATCH = 1000;

  /** Where the reports go: the MDS leader, through the link. Called on the link's thread. */
  interface Mds {
    /** Whether the server is registered and may send now. */
    boolean ready();

    int serverId();

    void send(ReplicaChangesRequest request) throws IOException;

    void send(ReportCorruptReplicasRequest request) throws IOException;
  }

  /** One replica's latest change. */
  private record Change(boolean removed, ReplicaReport replica) {}

  private final String id;
  private final ScheduledExecutorService timer;
  private final Duration retry;
  private final Object lock = new Object();

  @GuardedBy("lock")
  private final LinkedHashMap<ChunkKey, Change> pending = new LinkedHashMap<>();

  @GuardedBy("lock")
  private final List<BadReplica> corrupt = new ArrayList<>();

  @GuardedBy("lock")
  private boolean scheduled;

  private volatile @Nullable Mds mds;
  private volatile long lastSend = System.nanoTime() - MIN_GAP.toNanos();

  /**
   * @param timer the MDS link's thread, where sends happen
   * @param retry the pause before a failed send is tried again
   */
  IncrementalReports(String id, ScheduledExecutorService timer, Duration retry) {
    this.id = id;
    this.timer = timer;
    this.retry = retry;
  }

  /** Connects the reports to the MDS link, once it exists. */
  void attach(Mds link) {
    mds = link;
  }

  /** {@code replica} was finalized, or truncated to a new version. */
  void finalized(Replica replica) {
    record(replica, false);
  }

  /** {@code replica} was deleted or lost. */
  void removed(Replica replica) {
    record(replica, true);
  }

  /** A replica of this server was found corrupt. */
  void corrupt(BadReplica bad) {
    synchronized (lock) {
      corrupt.add(bad);
    }
    schedule(0);
  }

  /** Changes not yet sent (for tests and the status page). */
  int pending() {
    synchronized (lock) {
      return pending.size() + corrupt.size();
    }
  }

  private void record(Replica replica, boolean removed) {
    ReplicaReport report =
        ReplicaReport.newBuilder()
            .setId(replica.key().toProto())
            .setVersion(replica.version())
            .setLength(replica.length())
            .setState(replica.state())
            .setGeneration(replica.generation())
            .build();
    synchronized (lock) {
      pending.remove(replica.key()); // re-inserted at the end: changes go out in their order
      pending.put(replica.key(), new Change(removed, report));
    }
    schedule(0);
  }

  /** Has a send run on the link's thread within {@link #MIN_GAP} of the last, at the earliest. */
  private void schedule(long atLeastNanos) {
    synchronized (lock) {
      if (scheduled) {
        return;
      }
      scheduled = true;
    }
    long wait = Math.max(atLeastNanos, lastSend + MIN_GAP.toNanos() - System.nanoTime());
    try {
      timer.schedule(this::scheduledFlush, Math.max(0, wait), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // The server is closing: the MDS learns the rest from the next start's full report.
    }
  }

  private void scheduledFlush() {
    synchronized (lock) {
      scheduled = false;
    }
    flush();
  }

  /**
   * Sends every collected change now, on the link's thread. Changes a failed send could not deliver
   * are put back and tried again after the retry pause.
   */
  void flush() {
    Mds link = mds;
    if (link == null || !link.ready()) {
      return; // sent once the server is registered: the link flushes before each heartbeat
    }
    List<Change> changes;
    List<BadReplica> bad;
    synchronized (lock) {
      if (pending.isEmpty() && corrupt.isEmpty()) {
        return;
      }
      changes = new ArrayList<>(pending.values());
      bad = new ArrayList<>(corrupt);
      pending.clear();
      corrupt.clear();
    }
    lastSend = System.nanoTime();
    int sent = 0;
    try {
      for (; sent < changes.size(); sent += BATCH) {
        ReplicaChangesRequest.Builder req =
            ReplicaChangesRequest.newBuilder().setServerId(link.serverId());
        for (Change c : changes.subList(sent, Math.min(changes.size(), sent + BATCH))) {
          if (c.removed()) {
            req.addRemoved(c.replica());
          } else {
            req.addFinalized(c.replica());
          }
        }
        link.send(req.build());
      }
      if (!bad.isEmpty()) {
        link.send(
            ReportCorruptReplicasRequest.newBuilder()
                .setServerId(link.serverId())
                .addAllReplicas(bad)
                .build());
        bad.clear();
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug(
          "{}: reporting replica changes failed; retrying in {}: {}", id, retry, e.toString());
      putBack(changes.subList(Math.min(sent, changes.size()), changes.size()), bad);
      schedule(retry.toNanos());
    }
  }

  /** Puts unsent changes back, each unless a newer change of its replica came meanwhile. */
  private void putBack(List<Change> changes, List<BadReplica> bad) {
    synchronized (lock) {
      Map<ChunkKey, Change> newer = new LinkedHashMap<>(pending);
      pending.clear();
      for (Change c : changes) {
        pending.put(ChunkKey.of(c.replica().getId()), c);
      }
      pending.putAll(newer);
      corrupt.addAll(0, bad);
    }
  }
}
