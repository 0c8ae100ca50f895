package io.braidfs.mds.namespace;

import io.braidfs.mds.cluster.AdminState;
import io.braidfs.mds.cluster.ChunkRef;
import io.braidfs.mds.cluster.ReplicaMap;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.ChunkId;
import io.braidfs.proto.ChunkReportRequest;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.ReplicaChangesRequest;
import io.braidfs.proto.ReplicaReport;
import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles what data servers report holding with what the chunk records say (HDFS's block report
 * processing). For each replica of a full report, a change report or a corruption report:
 *
 * <ul>
 *   <li><b>orphan</b> (no such chunk) and <b>stale</b> (older version than the chunk's) replicas
 *       are deleted, and a stale one on a recorded holder marks that holder's replica missing;
 *   <li>a <b>corrupt</b> replica of a holder is marked corrupt (it stops counting and readers no
 *       longer get it) and its chunk is re-replicated, after which the replica is deleted;
 *   <li>a finished replica on a server that is <b>not a holder</b> (over-replication, or a server
 *       that came back after its replicas were copied elsewhere) is deleted;
 *   <li>a holder that no longer reports a replica of a closed file has it marked <b>missing</b>.
 * </ul>
 *
 * Chunks of files open for writing are left to their writer. Deletions found here are soft state,
 * handed to the server in its next heartbeat answers after a last check on the mutation thread; if
 * the MDS restarts first, the server's next report finds them again.
 *
 * <p>Thread-safety: thread-safe. Reports are read on the read pool against the written store;
 * {@link #deletionsFor} runs on the mutation thread.
 */
public final class ChunkReports {
  private static final Logger LOG = LoggerFactory.getLogger(ChunkReports.class);

  private final Namespace ns;
  private final Map<Integer, Set<ChunkState>> deletions = new ConcurrentHashMap<>();

  /** Deletions handed out in a server's last heartbeat answer, perhaps not carried out yet. */
  private final Map<Integer, Set<ChunkRef>> told = new ConcurrentHashMap<>();

  private volatile BiPredicate<ChunkRef, Integer> copying = (c, s) -> false;

  ChunkReports(Namespace ns) {
    this.ns = ns;
  }

  /** Tells which chunks have a copy to a server under way (their replicas are not extra). */
  public void copyingWith(BiPredicate<ChunkRef, Integer> copying) {
    this.copying = copying;
  }

  /**
   * One part of a full report; on the last, reconciles the whole.
   *
   * @return the chunks that need repair
   */
  public List<ChunkRef> fullReport(ChunkReportRequest req) throws IOException {
    int server = req.getServerId();
    ReplicaMap.FullReport full =
        ns.replicaMap.fullReportPart(
            server,
            req.getReportId(),
            req.getPartIndex(),
            req.getLastPart(),
            req.getReplicasList());
    if (full == null) {
      return List.of();
    }
    List<ChunkRef> repair = new ArrayList<>();
    List<ChunkState> delete = new ArrayList<>();
    for (Map.Entry<ChunkRef, ReplicaMap.Reported> e : full.replicas().entrySet()) {
      reconcile(server, e.getKey(), e.getValue(), repair, delete);
    }
    for (ChunkRef gone : full.gone()) {
      lost(server, gone, repair);
    }
    // What the records say the server should hold and the report lacks. A record changed in the
    // last moments may name a replica made after the server took its list (a copy, a close).
    long settled = ns.clock.nanoTime() - settleNanos();
    for (ChunkRef should : ns.holderIndex.chunksOf(server)) {
      if (!full.replicas().containsKey(should)
          && ns.holderIndex.changedNanos(should) < settled
          && !copying.test(should, server)) {
        lost(server, should, repair);
      }
    }
    addDeletions(server, delete);
    LOG.info(
        "{}: full report of ds{}: {} replicas, {} to repair, {} to delete",
        ns.id,
        Integer.toUnsignedString(server),
        full.replicas().size(),
        repair.size(),
        delete.size());
    maybeEndGrace();
    return repair;
  }

  /** Replicas finalized or removed since the server's last report. */
  public List<ChunkRef> changes(ReplicaChangesRequest req) throws IOException {
    int server = req.getServerId();
    List<ChunkRef> repair = new ArrayList<>();
    List<ChunkState> delete = new ArrayList<>();
    for (ReplicaReport r : req.getFinalizedList()) {
      ns.replicaMap.finalized(server, r);
      reconcile(server, ChunkRef.of(r.getId()), ReplicaMap.Reported.of(r), repair, delete);
    }
    for (ReplicaReport r : req.getRemovedList()) {
      ChunkRef ref = ChunkRef.of(r.getId());
      ns.replicaMap.removed(server, ref);
      lost(server, ref, repair);
    }
    addDeletions(server, delete);
    return repair;
  }

  /**
   * Replicas found corrupt, by their own server's scrubber or by a reader. A report naming a
   * version other than the chunk's, or a server that is not a holder, changes nothing.
   *
   * @return the chunks that need repair
   */
  public List<ChunkRef> corrupt(List<BadReplica> replicas, String reporter) throws IOException {
    List<ChunkRef> repair = new ArrayList<>();
    for (BadReplica b : replicas) {
      ChunkRef ref = ChunkRef.of(b.getChunk());
      ChunkRecord c = ns.chunk(ns.store, ref.inode(), Integer.toUnsignedLong(ref.index()));
      if (c == null
          || c.getVersion() != b.getVersion()
          || !c.getReplicaServerIdsList().contains(b.getServerId())
          || openForWrite(ref.inode())) {
        LOG.info(
            "{}: {} reports a bad replica of {} that is no longer current", ns.id, reporter, ref);
        continue;
      }
      LOG.warn(
          "{}: {} reports the replica of chunk {} v{} on ds{} corrupt: {}",
          ns.id,
          reporter,
          ref,
          b.getVersion(),
          Integer.toUnsignedString(b.getServerId()),
          b.getReason());
      ns.replicaMap.markBad(ref, b.getServerId(), ReplicaMap.Bad.CORRUPT, c.getVersion());
      repair.add(ref);
    }
    return repair;
  }

  /**
   * The deletions found for {@code serverId}, each checked again against the records as decided now
   * (mutation thread): a replica that became a holder's since it was reported stays.
   */
  List<ChunkState> deletionsFor(int serverId, int max) throws IOException {
    told.remove(serverId); // carried out by now: the server heartbeats after handling an answer
    Set<ChunkState> pending = deletions.get(serverId);
    if (pending == null || pending.isEmpty() || max <= 0) {
      return List.of();
    }
    List<ChunkState> out = new ArrayList<>();
    for (ChunkState s : List.copyOf(pending)) {
      if (out.size() >= max) {
        break;
      }
      pending.remove(s);
      ChunkRef ref = ChunkRef.of(s.getId());
      ChunkRecord c = ns.chunk(ns.decided, ref.inode(), Integer.toUnsignedLong(ref.index()));
      boolean wanted =
          c != null
              && c.getReplicaServerIdsList().contains(serverId)
              && c.getVersion() <= s.getVersion();
      Inode file = Tree.find(ns.decided, ref.inode());
      boolean open = file != null && file.record().hasOpenForWrite();
      if (!wanted && !open && !copying.test(ref, serverId)) {
        out.add(s);
        told.computeIfAbsent(serverId, k -> ConcurrentHashMap.newKeySet()).add(ref);
      }
    }
    return out;
  }

  /**
   * The servers told, or about to be told, to delete their replica of {@code chunk}: not to be
   * chosen as a copy's target until that is done (the copy would find the old replica and answer at
   * once, just before it is deleted).
   */
  Set<Integer> deleting(ChunkRef chunk) {
    Set<Integer> out = new HashSet<>();
    deletions.forEach(
        (server, states) -> {
          for (ChunkState s : states) {
            if (s.getId().getInodeId() == chunk.inode()
                && s.getId().getChunkIndex() == chunk.index()) {
              out.add(server);
            }
          }
        });
    told.forEach(
        (server, chunks) -> {
          if (chunks.contains(chunk)) {
            out.add(server);
          }
        });
    return out;
  }

  private void reconcile(
      int server,
      ChunkRef ref,
      ReplicaMap.Reported r,
      List<ChunkRef> repair,
      List<ChunkState> delete)
      throws IOException {
    ChunkRecord c = ns.chunk(ns.store, ref.inode(), Integer.toUnsignedLong(ref.index()));
    if (c == null) {
      if (r.state() != ReplicaState.REPLICA_STATE_WRITING) {
        delete.add(state(ref, r.version(), r.length())); // orphan
      }
      return;
    }
    Inode file = Tree.find(ns.store, ref.inode()); // once per replica: a full report has many
    if (file != null && file.record().hasOpenForWrite()) {
      return; // its writer moves replicas between versions; judged once it is closed
    }
    boolean holder = c.getReplicaServerIdsList().contains(server);
    if (file != null && Long.compareUnsigned(r.generation(), file.record().getGeneration()) > 0) {
      // No token of that generation was ever issued: the replica was written with a forged one.
      // Whatever its version, it is not the file's: replaced if it counts, deleted if not.
      LOG.warn(
          "{}: ds{} holds a replica of {} written under generation {}, above the file's {}: never"
              + " issued (a forged token?); {}",
          ns.id,
          Integer.toUnsignedString(server),
          ref,
          Long.toUnsignedString(r.generation()),
          Long.toUnsignedString(file.record().getGeneration()),
          holder ? "treated as corrupt" : "deleted");
      unusable(server, ref, r, c, holder, ReplicaMap.Bad.CORRUPT, repair, delete);
      return;
    }
    if (r.version() < c.getVersion()) {
      unusable(server, ref, r, c, holder, ReplicaMap.Bad.MISSING, repair, delete);
      return;
    }
    if (r.version() > c.getVersion()) {
      return; // written past what the MDS recorded; left to lease recovery
    }
    if (r.state() == ReplicaState.REPLICA_STATE_CORRUPT) {
      unusable(server, ref, r, c, holder, ReplicaMap.Bad.CORRUPT, repair, delete);
      return;
    }
    if (holder) {
      if (ns.replicaMap.badReplicas(ref, c.getVersion()).get(server) == ReplicaMap.Bad.MISSING) {
        ns.replicaMap.clearBad(ref, server); // it is back
      }
      return;
    }
    if (r.state() == ReplicaState.REPLICA_STATE_FINALIZED && !copying.test(ref, server)) {
      delete.add(state(ref, r.version(), r.length())); // extra: the chunk has its holders
    }
  }

  /** A replica that cannot count: a holder's is marked bad and repaired, anyone else's deleted. */
  private void unusable(
      int server,
      ChunkRef ref,
      ReplicaMap.Reported r,
      ChunkRecord c,
      boolean holder,
      ReplicaMap.Bad why,
      List<ChunkRef> repair,
      List<ChunkState> delete) {
    if (holder) {
      ns.replicaMap.markBad(ref, server, why, c.getVersion());
      repair.add(ref);
    } else {
      delete.add(state(ref, r.version(), r.length()));
    }
  }

  /**
   * A holder does not have its replica. Of a closed file's chunk it is marked missing; of a file
   * open for writing, its writer finds out, and the file is looked at again when closed.
   */
  private void lost(int server, ChunkRef ref, List<ChunkRef> repair) throws IOException {
    ChunkRecord c = ns.chunk(ns.store, ref.inode(), Integer.toUnsignedLong(ref.index()));
    if (c != null && c.getReplicaServerIdsList().contains(server)) {
      boolean open = openForWrite(ref.inode());
      if (!open && c.getLengthBytes() == 0) {
        // Allocated with its file's chunk set and never written: no replica was ever made, and
        // an empty chunk has nothing to lose. (Counting it would mark every small file's unused
        // chunks missing at each full report.)
        return;
      }
      if (!open) {
        ns.replicaMap.markBad(ref, server, ReplicaMap.Bad.MISSING, c.getVersion());
      }
      repair.add(ref); // the repair queue notes an open file for its close
    }
  }

  /** How long a changed chunk record is not judged against a full report. */
  private long settleNanos() {
    return Math.max(
        java.time.Duration.ofSeconds(1).toNanos(), 4 * ns.registry.heartbeatInterval().toNanos());
  }

  private boolean openForWrite(long inode) throws IOException {
    Inode file = Tree.find(ns.store, inode);
    return file != null && file.record().hasOpenForWrite();
  }

  private void addDeletions(int server, List<ChunkState> delete) {
    if (!delete.isEmpty()) {
      deletions.computeIfAbsent(server, k -> ConcurrentHashMap.newKeySet()).addAll(delete);
    }
  }

  /**
   * Ends the start-up grace once every server named as a holder at load (other than decommissioned
   * ones) has reported.
   */
  private void maybeEndGrace() {
    if (!ns.registry.inStartupGrace()) {
      return;
    }
    Set<Integer> waiting = new HashSet<>(ns.holdersAtLoad());
    waiting.removeAll(ns.replicaMap.reportedServers());
    waiting.removeIf(id -> ns.registry.state(id) == AdminState.DECOMMISSIONED);
    if (waiting.isEmpty()) {
      LOG.info(
          "{}: every data server holding replicas has reported; the start-up grace ends", ns.id);
      ns.registry.endStartupGrace();
    }
  }

  private static ChunkState state(ChunkRef ref, long version, long length) {
    return ChunkState.newBuilder()
        .setId(ChunkId.newBuilder().setInodeId(ref.inode()).setChunkIndex(ref.index()))
        .setVersion(version)
        .setLength(length)
        .build();
  }
}
