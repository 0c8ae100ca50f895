package io.braidfs.client.internal.data;

import io.braidfs.proto.ReplicaLocation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which data servers failed recently, so that readers try healthy replicas first. A failure is
 * forgotten after {@link #FORGET_NANOS}; a failed server is still tried when no other is left.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ReplicaHealth {
  static final long FORGET_NANOS = 30_000_000_000L;

  private final ConcurrentHashMap<Integer, Long> failedAt = new ConcurrentHashMap<>();

  void failed(int serverId) {
    failedAt.put(serverId, System.nanoTime());
  }

  boolean isHealthy(int serverId) {
    Long t = failedAt.get(serverId);
    if (t == null) {
      return true;
    }
    if (System.nanoTime() - t > FORGET_NANOS) {
      failedAt.remove(serverId, t);
      return true;
    }
    return false;
  }

  /** The replicas in the MDS's order (nearest first), recently failed ones moved to the end. */
  List<ReplicaLocation> order(List<ReplicaLocation> replicas) {
    List<ReplicaLocation> healthy = new ArrayList<>(replicas.size());
    List<ReplicaLocation> failed = new ArrayList<>(0);
    for (ReplicaLocation r : replicas) {
      (isHealthy(r.getServerId()) ? healthy : failed).add(r);
    }
    healthy.addAll(failed);
    return healthy;
  }
}
