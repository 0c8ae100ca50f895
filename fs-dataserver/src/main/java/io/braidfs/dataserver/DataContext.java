package io.braidfs.dataserver;

import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.ChunkStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the data-path handlers share: the store, the token gate and the {@link Admission} check
 * built on it, the {@link EpochFence} for MDS commands, the disk threads, the client used to reach
 * other data servers, the replica changes to report to the MDS, the copy throttle, and the transfer
 * counter the heartbeat reports.
 *
 * <p>Thread-safety: thread-safe.
 */
final class DataContext {
  final String id;
  final ChunkStore store;
  final TokenGate gate;
  final Admission admission;
  final EpochFence fence;
  final ChunkWorkers workers;
  final RpcClient peers;
  final Duration peerTimeout;
  final int maxReadBytes;
  final IncrementalReports reports;
  final CopyThrottle copyThrottle;
  final AtomicInteger activeTransfers = new AtomicInteger();

  DataContext(
      String id,
      ChunkStore store,
      TokenGate gate,
      ChunkWorkers workers,
      RpcClient peers,
      Duration peerTimeout,
      int maxReadBytes,
      IncrementalReports reports,
      CopyThrottle copyThrottle) {
    this.id = id;
    this.store = store;
    this.gate = gate;
    this.admission = new Admission(id, store, gate);
    this.fence = new EpochFence(id, store);
    this.workers = workers;
    this.peers = peers;
    this.peerTimeout = peerTimeout;
    this.maxReadBytes = maxReadBytes;
    this.reports = reports;
    this.copyThrottle = copyThrottle;
  }

  /** This server's id as the MDS assigned it (0 before the first registration). */
  int selfId() {
    return store.serverId();
  }

  /**
   * Runs {@code work} on {@code key}'s disk thread, counted as a transfer until the call is
   * answered; a failure it throws answers the call.
   */
  void onDisk(ServerCall<?, ?> call, ChunkKey key, Work work) {
    activeTransfers.incrementAndGet();
    workers.execute(
        key,
        () -> {
          try {
            work.run();
          } catch (Exception e) {
            Replies.fail(id, call, e, selfId());
          } finally {
            activeTransfers.decrementAndGet();
          }
        });
  }

  /** Work on a disk thread. */
  @FunctionalInterface
  interface Work {
    void run() throws Exception;
  }
}
