package io.braidfs.mds.server;

import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.journal.Journal;
import io.braidfs.mds.namespace.Mutation;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.mds.namespace.Replication;
import io.braidfs.mds.namespace.Replication.ChunkRef;
import io.braidfs.mds.namespace.Replication.Copy;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes files' chunks match their replication: for each file it is told about ({@link #request}),
 * it trims extra replicas and sends each missing one as a CopyChunk straight to the chosen data
 * server, which copies the chunk from a holder and verifies it; the answer is the confirmation, and
 * only then does the replica join the chunk's replica set (a journaled mutation).
 *
 * <p>Why direct calls rather than commands in heartbeat answers (HDFS's DNA_TRANSFER): the answer
 * to the call is the confirmation, so the MDS needs no report and no bookkeeping of commands handed
 * out, and data servers already serve CopyChunk (writers use it to seed replacements). At most
 * {@link #MAX_IN_FLIGHT} copies run at once; the rest wait for a slot. Re-replication of lost
 * replicas (a data server's death, a corrupt replica) is meant to grow from here: a queue of chunks
 * by risk in place of the queue of files, per-server limits, and a scan after an MDS start (today a
 * change whose copies an MDS restart interrupted stays short until the file's replication is set
 * again).
 *
 * <p>Thread-safety: {@link #request} is thread-safe; everything else runs on the mutation thread.
 */
final class Replicator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Replicator.class);

  /** The most copies under way at once. */
  static final int MAX_IN_FLIGHT = 16;

  /** How long one chunk copy may take (a 64 MiB chunk read and written once). */
  static final Duration COPY_TIMEOUT = Duration.ofMinutes(5);

  /** How long after a failed copy the file is looked at again. */
  static final long RETRY_MS = 1000;

  private final String id;
  private final Namespace ns;
  private final Replication replication;
  private final Journal journal;
  private final Executor mutationThread;
  private final ScheduledExecutorService scheduler;
  private final RpcClient rpc;

  // Mutation thread only.
  private final Map<ChunkRef, Set<Integer>> inFlight = new HashMap<>();
  private final Map<ChunkRef, Set<Integer>> failed = new HashMap<>();
  private final Set<Long> waiting = new LinkedHashSet<>();
  private int copies;

  Replicator(
      String id,
      Namespace ns,
      Replication replication,
      Journal journal,
      Executor mutationThread,
      ScheduledExecutorService scheduler,
      RpcClient rpc) {
    this.id = id;
    this.ns = ns;
    this.replication = replication;
    this.journal = journal;
    this.mutationThread = mutationThread;
    this.scheduler = scheduler;
    this.rpc = rpc;
  }

  /** Looks at {@code inode}'s chunks soon, on the mutation thread. */
  void request(long inode) {
    try {
      mutationThread.execute(() -> reconcile(inode));
    } catch (RejectedExecutionException closing) {
      LOG.debug("{}: stopping; replication of inode {} not looked at", id, inode);
    }
  }

  /** The copies under way (mutation thread). */
  int copiesInFlight() {
    return copies;
  }

  private void reconcile(long inode) {
    int room = MAX_IN_FLIGHT - copies;
    Mutation m = ns.newMutation();
    List<Copy> planned;
    try {
      planned = replication.reconcile(m, inode, inFlight, failed, rpc.clientId(), room);
      if (!m.isEmpty()) {
        journal.append("setrep inode " + inode, m.batch());
      }
      m.applied();
    } catch (IOException | RuntimeException e) {
      abandon(inode, e);
      return;
    }
    if (planned.size() >= room) {
      waiting.add(inode); // it may want more than there was room for
    }
    for (Copy c : planned) {
      send(c);
    }
  }

  private void send(Copy c) {
    inFlight.computeIfAbsent(c.chunk(), k -> new HashSet<>()).add(c.target().id());
    copies++;
    LOG.debug("{}: copying chunk {} to {}", id, c.chunk(), c.target());
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
              try {
                mutationThread.execute(() -> finished(c, failure));
              } catch (RejectedExecutionException closing) {
                LOG.debug("{}: stopping; copy of chunk {} not recorded", id, c.chunk());
              }
            });
  }

  private void finished(Copy c, Throwable failure) {
    Set<Integer> going = inFlight.get(c.chunk());
    if (going != null && going.remove(c.target().id()) && going.isEmpty()) {
      inFlight.remove(c.chunk());
    }
    copies--;
    long inode = c.chunk().inode();
    if (failure != null) {
      LOG.warn(
          "{}: copy of chunk {} of inode {} to {} failed: {}",
          id,
          c.chunk().index(),
          inode,
          c.target(),
          failure.toString());
      failed.computeIfAbsent(c.chunk(), k -> new HashSet<>()).add(c.target().id());
      later(inode);
    } else {
      Mutation m = ns.newMutation();
      try {
        boolean joined = replication.recordCopy(m, c);
        journal.append("replica of inode " + inode, m.batch());
        m.applied();
        if (joined) {
          failed.remove(c.chunk());
        }
      } catch (IOException | RuntimeException e) {
        abandon(inode, e);
        return;
      }
      reconcile(inode);
    }
    drainWaiting();
  }

  private void drainWaiting() {
    while (copies < MAX_IN_FLIGHT && !waiting.isEmpty()) {
      ArrayDeque<Long> next = new ArrayDeque<>(waiting);
      waiting.clear();
      for (long inode : next) {
        reconcile(inode);
      }
      if (next.size() == waiting.size()) {
        return; // nothing changed: wait for copies to finish
      }
    }
  }

  private void later(long inode) {
    try {
      scheduler.schedule(() -> request(inode), RETRY_MS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      LOG.debug("{}: stopping; replication of inode {} not retried", id, inode);
    }
  }

  private void abandon(long inode, Exception e) {
    try {
      ns.abandoned();
    } catch (IOException reload) {
      e.addSuppressed(reload);
    }
    LOG.warn("{}: replication of inode {} failed: {}", id, inode, e.toString());
    later(inode);
  }

  @Override
  public void close() {
    rpc.close();
  }
}
