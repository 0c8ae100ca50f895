package io.braidfs.mds.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.proto.ReplicaReport;
import io.braidfs.proto.ReplicaState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the data servers say they hold, beside what the namespace records: each server's replicas
 * from its last full chunk report plus the changes reported since (HDFS's block map), and the
 * replicas found bad (corrupt, or missing from a server that should hold them). Chunk records say
 * which servers should hold a chunk; this says what they do hold, so the MDS can tell a replica
 * that is gone or corrupt from one that is fine. Soft state: rebuilt from reports after an MDS
 * starts.
 *
 * <p>Thread-safety: thread-safe; one lock, short critical sections, no I/O under it.
 */
public final class ReplicaMap {
  /**
   * A replica as its server reported it.
   *
   * <p>Thread-safety: immutable.
   */
  public record Reported(long version, long length, ReplicaState state, long generation) {
    public static Reported of(ReplicaReport r) {
      return new Reported(r.getVersion(), r.getLength(), r.getState(), r.getGeneration());
    }
  }

  /** Why a replica does not count. */
  public enum Bad {
    /** Failed checksum verification (a reader's report, the scrubber, a chunk report). */
    CORRUPT,
    /** Its server should hold it and does not (removed, lost with a disk, absent from a report). */
    MISSING
  }

  /** A full report arriving in parts. */
  private static final class Pending {
    final long reportId;
    int nextPart;
    final Map<ChunkRef, Reported> replicas = new HashMap<>();

    Pending(long reportId) {
      this.reportId = reportId;
    }
  }

  private final Object lock = new Object();

  @GuardedBy("lock")
  private final Map<Integer, Map<ChunkRef, Reported>> byServer = new HashMap<>();

  @GuardedBy("lock")
  private final Map<Integer, Pending> pending = new HashMap<>();

  /** A bad mark: what is wrong, with the chunk version it was found at. */
  private record Mark(Bad why, long version) {}

  @GuardedBy("lock")
  private final Map<ChunkRef, Map<Integer, Mark>> bad = new HashMap<>();

  /** Servers whose full report was complete since this MDS started. */
  @GuardedBy("lock")
  private final Set<Integer> reported = new HashSet<>();

  /**
   * One part of a full report. Parts must come in order from 0; a part of another report starts
   * that report over (a server restarted its report). Returns, on the last part, the server's
   * replicas as now recorded and the ones it reported before that it no longer has; null before.
   *
   * @return the outcome of the complete report, or null while parts are missing
   */
  public @Nullable FullReport fullReportPart(
      int serverId, long reportId, int partIndex, boolean lastPart, List<ReplicaReport> replicas) {
    synchronized (lock) {
      Pending p = pending.get(serverId);
      if (p == null || p.reportId != reportId || partIndex == 0) {
        p = new Pending(reportId);
        pending.put(serverId, p);
      }
      if (partIndex != p.nextPart) {
        pending.remove(serverId); // a part was lost: wait for the next full report
        return null;
      }
      p.nextPart++;
      for (ReplicaReport r : replicas) {
        p.replicas.put(ChunkRef.of(r.getId()), Reported.of(r));
      }
      if (!lastPart) {
        return null;
      }
      pending.remove(serverId);
      Map<ChunkRef, Reported> before = byServer.put(serverId, p.replicas);
      reported.add(serverId);
      List<ChunkRef> gone = new ArrayList<>();
      if (before != null) {
        for (ChunkRef c : before.keySet()) {
          if (!p.replicas.containsKey(c)) {
            gone.add(c);
          }
        }
      }
      return new FullReport(Map.copyOf(p.replicas), List.copyOf(gone));
    }
  }

  /**
   * A complete full report.
   *
   * <p>Thread-safety: immutable.
   *
   * @param replicas everything the server holds
   * @param gone replicas it reported before and no longer holds
   */
  public record FullReport(Map<ChunkRef, Reported> replicas, List<ChunkRef> gone) {}

  /** A replica finalized on a server since its last report. */
  public void finalized(int serverId, ReplicaReport r) {
    synchronized (lock) {
      byServer
          .computeIfAbsent(serverId, k -> new HashMap<>())
          .put(ChunkRef.of(r.getId()), Reported.of(r));
      Pending p = pending.get(serverId);
      if (p != null) {
        p.replicas.put(ChunkRef.of(r.getId()), Reported.of(r));
      }
    }
  }

  /** A replica removed from a server (deleted, or lost with a disk). */
  public void removed(int serverId, ChunkRef chunk) {
    synchronized (lock) {
      Map<ChunkRef, Reported> held = byServer.get(serverId);
      if (held != null) {
        held.remove(chunk);
      }
      Pending p = pending.get(serverId);
      if (p != null) {
        p.replicas.remove(chunk);
      }
    }
  }

  /**
   * Whether {@code serverId} holds {@code chunk} as far as its reports say, and at what version.
   */
  public @Nullable Reported reportedOn(int serverId, ChunkRef chunk) {
    synchronized (lock) {
      Map<ChunkRef, Reported> held = byServer.get(serverId);
      return held == null ? null : held.get(chunk);
    }
  }

  /** The chunks {@code serverId} reported holding (its last full report and changes since). */
  public List<ChunkRef> chunksOf(int serverId) {
    synchronized (lock) {
      Map<ChunkRef, Reported> held = byServer.get(serverId);
      return held == null ? List.of() : List.copyOf(held.keySet());
    }
  }

  /** How many replicas {@code serverId} reported holding. */
  public int replicasOf(int serverId) {
    synchronized (lock) {
      Map<ChunkRef, Reported> held = byServer.get(serverId);
      return held == null ? 0 : held.size();
    }
  }

  /** Whether {@code serverId} completed a full report since this MDS started. */
  public boolean hasReported(int serverId) {
    synchronized (lock) {
      return reported.contains(serverId);
    }
  }

  /** The servers that completed a full report since this MDS started. */
  public Set<Integer> reportedServers() {
    synchronized (lock) {
      return Set.copyOf(reported);
    }
  }

  /**
   * Records that the replica of {@code chunk} at {@code version} on {@code serverId} does not
   * count; a corrupt mark is not weakened to missing at the same version.
   */
  public void markBad(ChunkRef chunk, int serverId, Bad why, long version) {
    synchronized (lock) {
      Map<Integer, Mark> on = bad.computeIfAbsent(chunk, k -> new HashMap<>());
      Mark old = on.get(serverId);
      if (old == null || old.version() != version || old.why() != Bad.CORRUPT) {
        on.put(serverId, new Mark(why, version));
      }
    }
  }

  /** Forgets a bad mark: the replica was replaced, or its server reported it whole again. */
  public void clearBad(ChunkRef chunk, int serverId) {
    synchronized (lock) {
      Map<Integer, Mark> on = bad.get(chunk);
      if (on != null && on.remove(serverId) != null && on.isEmpty()) {
        bad.remove(chunk);
      }
    }
  }

  /** Forgets every bad mark of a chunk (its record is gone or was rewritten). */
  public void forgetChunk(ChunkRef chunk) {
    synchronized (lock) {
      bad.remove(chunk);
    }
  }

  /**
   * The servers whose replica of {@code chunk} at {@code version} does not count, and why; empty
   * for most chunks. Marks of other versions are left out (the chunk was rewritten since).
   */
  public Map<Integer, Bad> badReplicas(ChunkRef chunk, long version) {
    synchronized (lock) {
      Map<Integer, Mark> on = bad.get(chunk);
      if (on == null) {
        return Map.of();
      }
      Map<Integer, Bad> out = new HashMap<>();
      on.forEach(
          (server, mark) -> {
            if (mark.version() == version) {
              out.put(server, mark.why());
            }
          });
      return out;
    }
  }

  /** The chunks with a bad replica. */
  public List<ChunkRef> chunksWithBadReplicas() {
    synchronized (lock) {
      return List.copyOf(bad.keySet());
    }
  }
}
