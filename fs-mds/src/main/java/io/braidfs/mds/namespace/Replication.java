package io.braidfs.mds.namespace;

import com.google.protobuf.UnsafeByteOperations;
import io.braidfs.common.error.Status;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.mds.access.Access;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.cluster.AdminState;
import io.braidfs.mds.cluster.ChunkRef;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.proto.ChunkId;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.SetReplicationRequest;
import io.braidfs.proto.SetReplicationResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file's replication: SetReplication records the new number in the file's layout, and {@link
 * #reconcile} brings the replica sets of its chunks to that number. Extra replicas leave the
 * chunk's record at once and go into the deletion queue; missing ones are planned as copies ({@link
 * Copy}), data server to data server, which the caller sends and reports back through {@link
 * #recordCopy}: a replica joins the chunk's replica set only once its copy is confirmed, and only
 * if the chunk is still as it was copied.
 *
 * <p>As HDFS does, a file open for writing records its new replication at once (new chunk sets are
 * placed with it), and its existing chunks follow when it is closed.
 *
 * <p>Thread-safety: not thread-safe; runs on the mutation thread.
 */
public final class Replication {
  private static final Logger LOG = LoggerFactory.getLogger(Replication.class);

  /**
   * What the caller's copies already under way and its limits allow, consulted while planning.
   *
   * <p>Thread-safety: as the caller's (the mutation thread's) maps.
   *
   * @param inFlight targets of copies under way, per chunk (counted as replicas)
   * @param failed servers a copy of the chunk failed on, not to be chosen again for it
   * @param busy servers that may take no further copy now, as source or target
   */
  public record Limits(
      Map<ChunkRef, Set<Integer>> inFlight, Map<ChunkRef, Set<Integer>> failed, IntPredicate busy) {
    /** No copies under way, no limits. */
    public static final Limits NONE = new Limits(Map.of(), Map.of(), id -> false);
  }

  /**
   * One replica to make: {@code request} goes to {@code target}, which copies the chunk from its
   * holders. {@code version}, {@code length} and {@code generation} are what was copied; {@link
   * #recordCopy} compares them with the chunk when the copy is done.
   */
  public record Copy(
      ChunkRef chunk,
      long version,
      long length,
      long generation,
      DataServer target,
      int source,
      CopyChunkRequest request) {}

  private final Namespace ns;
  private final int maxReplication;

  /** Chunks already warned about having no readable replica (mutation thread only). */
  private final Set<ChunkRef> warnedNoSource = new HashSet<>();

  public Replication(Namespace ns, int maxReplication) {
    this.ns = ns;
    this.maxReplication = maxReplication;
  }

  /**
   * SetReplication: records {@code replication} in the file's layout. A directory answers {@code
   * applied=false} and changes nothing (HDFS's setReplication returns false for one); a file needs
   * write access.
   *
   * @throws IOException NOT_FOUND (and the path errors of resolution); PERMISSION_DENIED without
   *     write access; INVALID_ARGUMENT for a replication below 1, above {@code
   *     braid.mds.layout.max-replication}, or of a symlink's target that is not a file; UNAVAILABLE
   *     above the number of live data servers
   */
  public SetReplicationResponse setReplication(Mutation m, Client client, SetReplicationRequest req)
      throws IOException {
    Caller caller = client.caller();
    String path = req.getPath();
    String what = "setrep " + path;
    Inode inode = ns.target(m, caller, "setrep", path, 0, true);
    if (inode.isDirectory()) {
      return SetReplicationResponse.newBuilder()
          .setApplied(false)
          .setAttributes(Attrs.of(inode))
          .build();
    }
    NamespaceReads.checkRegular("setrep", path, inode);
    ns.check(caller, "setrep", path, inode, Access.WRITE);
    long replication = Integer.toUnsignedLong(req.getReplication());
    if (replication < 1 || replication > maxReplication) {
      throw Resolver.fail(
          Status.INVALID_ARGUMENT,
          what
              + ": replication "
              + replication
              + " outside 1 to "
              + maxReplication
              + " (braid.mds.layout.max-replication)");
    }
    int live = ns.registry.liveServers().size();
    if (replication > live) {
      throw Resolver.fail(
          Status.UNAVAILABLE,
          what
              + ": replication "
              + replication
              + " needs as many data servers, and "
              + live
              + " are live");
    }
    InodeRecord r = inode.record();
    if (r.getLayout().getReplication() == replication) {
      return SetReplicationResponse.newBuilder()
          .setApplied(true)
          .setAttributes(Attrs.of(inode))
          .build();
    }
    Inode updated =
        inode.with(
            r.toBuilder()
                .setLayout(r.getLayout().toBuilder().setReplication((int) replication))
                .setCtimeNs(m.nowNs())
                .build());
    m.putInode(updated);
    if (r.hasOpenForWrite()) {
      long id = inode.id();
      m.afterApply(() -> ns.replicateAtClose(id));
    } else {
      if (replication < r.getLayout().getReplication()) {
        // Lowering takes nothing but records: the replica sets shrink in this same record, so
        // block locations show the new number as soon as the call returns.
        reconcile(m, inode.id(), Limits.NONE, new byte[0], 0);
      }
      ns.replicationChanged(m, inode.id());
    }
    return SetReplicationResponse.newBuilder()
        .setApplied(true)
        .setAttributes(Attrs.of(updated))
        .build();
  }

  /**
   * Brings the chunks of {@code inode} towards its replication, in {@code m}. A chunk with at least
   * as many good replicas as the replication ({@link ChunkHealth}) drops every other holder from
   * its record: live ones (bad replicas, draining servers, extras) into the deletion queue, dead
   * ones simply (a server coming back is told by its chunk report). A chunk with fewer gets copies
   * planned from its readable replicas to servers chosen by placement, keeping within {@code
   * limits}. A file that is gone, not a regular file or open for writing needs nothing (an open one
   * is noted for its close).
   *
   * @param mdsClientId the client id the copies are sent under (their tokens name it)
   * @param max the most copies to plan
   * @return the copies to send, and whether some chunk still lacks copies that could not be planned
   *     now (limits, no room, no readable source)
   */
  public Plan reconcile(Mutation m, long inode, Limits limits, byte[] mdsClientId, int max)
      throws IOException {
    Inode file = Tree.find(m, inode);
    List<Copy> copies = new ArrayList<>();
    if (file == null || !file.isFile()) {
      return new Plan(copies, false);
    }
    InodeRecord r = file.record();
    if (r.hasOpenForWrite()) {
      ns.replicateAtClose(inode);
      return new Plan(copies, false);
    }
    boolean incomplete = false;
    int want = r.getLayout().getReplication();
    Layout layout = Attrs.layout(r.getLayout());
    List<DeletionQueue.Chunk> removed = new ArrayList<>();
    byte[] cursor = null;
    do {
      ScanPage page = m.scan(ColumnFamily.CHUNKS, Keys.chunkPrefix(inode), cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        int index = Keys.chunkIndex(e.key());
        ChunkRecord c = Records.decodeChunk(e.key(), e.value());
        List<Integer> holders = c.getReplicaServerIdsList();
        ChunkRef ref = new ChunkRef(inode, index);
        ChunkHealth health =
            ChunkHealth.of(ns.registry, ns.replicaMap, ref, c.getVersion(), holders);
        if (c.getLengthBytes() == 0) {
          // Never written (its file's chunk set allocates chunks a small file does not use), or
          // empty: nothing to copy, and its holders may hold no replica to copy from. Only holders
          // being decommissioned leave its record, so they can finish; the others stay whatever
          // their replicas' state, as the next write to the chunk goes to them.
          List<Integer> keep = new ArrayList<>(holders.size());
          for (int id : holders) {
            AdminState state = ns.registry.state(id);
            if (state != AdminState.DECOMMISSIONING && state != AdminState.DECOMMISSIONED) {
              keep.add(id);
            }
          }
          if (keep.size() < holders.size()) {
            m.put(
                ColumnFamily.CHUNKS,
                e.key(),
                Records.encode(
                    c.toBuilder().clearReplicaServerIds().addAllReplicaServerIds(keep).build()));
          }
          continue;
        }
        if (health.good().size() >= want) {
          // Live good ones come first in good(); and never trim away the last replica a reader
          // can use now (the others may be on servers away for maintenance).
          List<Integer> keep = new ArrayList<>(health.good().subList(0, want));
          if (!health.readable().isEmpty()
              && health.readable().stream().noneMatch(keep::contains)) {
            keep.add(health.readable().get(0));
          }
          if (holders.size() > keep.size()) {
            List<Integer> drop = new ArrayList<>(holders);
            drop.removeAll(keep);
            m.put(
                ColumnFamily.CHUNKS,
                e.key(),
                Records.encode(
                    c.toBuilder().clearReplicaServerIds().addAllReplicaServerIds(keep).build()));
            List<Integer> tell = liveOnes(drop);
            if (!tell.isEmpty()) {
              removed.add(new DeletionQueue.Chunk(index, c.getVersion(), tell));
            }
            m.afterApply(() -> drop.forEach(d -> ns.replicaMap.clearBad(ref, d)));
          }
          continue;
        }
        Set<Integer> going = limits.inFlight().getOrDefault(ref, Set.of());
        int missing = want - health.good().size() - going.size();
        if (missing <= 0) {
          continue;
        }
        if (copies.size() >= max) {
          incomplete = true;
          continue;
        }
        List<ReplicaLocation> sources = new ArrayList<>();
        List<ReplicaLocation> busySources = new ArrayList<>();
        for (int id : health.readable()) {
          DataServer s = ns.registry.server(id);
          if (s != null) {
            (limits.busy().test(id) ? busySources : sources).add(s.toReplicaLocation());
          }
        }
        if (sources.isEmpty()) {
          if (busySources.isEmpty() && warnedNoSource.add(ref)) {
            LOG.warn(
                "{}: chunk {} of inode {} has no readable replica to copy from (holders {})",
                ns.id,
                Integer.toUnsignedString(index),
                inode,
                holders);
          }
          incomplete = true; // a busy source frees up when its copies finish
          continue;
        }
        sources.addAll(busySources); // the target falls back to them if the first fail
        Set<Integer> avoid = new HashSet<>(holders);
        avoid.addAll(going);
        avoid.addAll(limits.failed().getOrDefault(ref, Set.of()));
        avoid.addAll(ns.deletions.pendingHolders(inode, index));
        avoid.addAll(ns.reports.deleting(ref));
        for (DataServer s : ns.registry.liveServers()) {
          if (limits.busy().test(s.id())) {
            avoid.add(s.id());
          }
        }
        int planned = 0;
        for (int k = 0; k < missing && copies.size() < max; k++) {
          DataServer target;
          try {
            target = ns.placement.chooseRepairTarget(layout.chunkSize(), health.good(), avoid);
          } catch (IOException noServer) {
            LOG.debug(
                "{}: no server for a new replica of chunk {} of inode {}: {}",
                ns.id,
                index,
                inode,
                noServer.getMessage());
            break;
          }
          avoid.add(target.id());
          copies.add(copy(ref, c, r.getGeneration(), target, sources, mdsClientId));
          planned++;
        }
        incomplete |= planned < missing;
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    if (!removed.isEmpty()) {
      ns.deletions.enqueue(m, inode, removed);
    }
    return new Plan(copies, incomplete);
  }

  /**
   * What {@link #reconcile} planned.
   *
   * <p>Thread-safety: immutable.
   *
   * @param copies the copies to send
   * @param incomplete some chunk still lacks copies that could not be planned now
   */
  public record Plan(List<Copy> copies, boolean incomplete) {
    public Plan {
      copies = List.copyOf(copies);
    }
  }

  /**
   * The smallest number of good replicas among {@code inode}'s chunks, against its replication: the
   * repair queue's priority (fewest first). Returns -1 when the file needs nothing (healthy, not a
   * regular file, open for writing, or gone).
   */
  public int neediest(StoreView view, long inode) throws IOException {
    Inode file = Tree.find(view, inode);
    if (file == null || !file.isFile() || file.record().hasOpenForWrite()) {
      return -1;
    }
    int want = file.record().getLayout().getReplication();
    int least = Integer.MAX_VALUE;
    boolean needs = false;
    byte[] cursor = null;
    do {
      ScanPage page = view.scan(ColumnFamily.CHUNKS, Keys.chunkPrefix(inode), cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        ChunkRecord c = Records.decodeChunk(e.key(), e.value());
        ChunkHealth h =
            ChunkHealth.of(
                ns.registry,
                ns.replicaMap,
                new ChunkRef(inode, Keys.chunkIndex(e.key())),
                c.getVersion(),
                c.getReplicaServerIdsList());
        if (c.getLengthBytes() == 0) {
          // An empty chunk needs no copies; it needs reconciling only to let go of holders being
          // decommissioned.
          for (int id : c.getReplicaServerIdsList()) {
            AdminState state = ns.registry.state(id);
            needs |= state == AdminState.DECOMMISSIONING || state == AdminState.DECOMMISSIONED;
          }
          continue;
        }
        int good = h.good().size();
        if (good != want || c.getReplicaServerIdsCount() != want) {
          needs = true;
          least = Math.min(least, good);
        }
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    return needs ? least : -1;
  }

  /**
   * Whether {@code inode} is a file open for writing; if so, it is noted to be looked at when it is
   * closed (mutation thread).
   */
  public boolean waitForClose(StoreView view, long inode) throws IOException {
    Inode file = Tree.find(view, inode);
    if (file != null && file.isFile() && file.record().hasOpenForWrite()) {
      ns.replicateAtClose(inode);
      return true;
    }
    return false;
  }

  private List<Integer> liveOnes(List<Integer> ids) {
    List<Integer> live = new ArrayList<>(ids.size());
    for (int id : ids) {
      DataServer s = ns.registry.server(id);
      if (s != null && s.live()) {
        live.add(id);
      }
    }
    return live;
  }

  private Copy copy(
      ChunkRef ref,
      ChunkRecord c,
      long generation,
      DataServer target,
      List<ReplicaLocation> sources,
      byte[] mdsClientId) {
    long now = ns.clock.currentTimeMillis();
    byte[] read = ns.token(mdsClientId, ref.inode(), generation, CapabilityToken.READ, now);
    byte[] write = ns.token(mdsClientId, ref.inode(), generation, CapabilityToken.WRITE, now);
    CopyChunkRequest request =
        CopyChunkRequest.newBuilder()
            .setChunk(ChunkId.newBuilder().setInodeId(ref.inode()).setChunkIndex(ref.index()))
            .setVersion(c.getVersion())
            .setLength(c.getLengthBytes())
            .addAllSources(sources)
            .setSourceToken(UnsafeByteOperations.unsafeWrap(read))
            .setFinalize(true)
            .setMdsEpoch(ns.epoch())
            .setToken(UnsafeByteOperations.unsafeWrap(write))
            .build();
    return new Copy(
        ref,
        c.getVersion(),
        c.getLengthBytes(),
        generation,
        target,
        sources.get(0).getServerId(),
        request);
  }

  /**
   * A confirmed copy: adds its target to the chunk's replica set in {@code m} if the chunk is still
   * what was copied (same file generation, version and length, file closed) and still short of good
   * replicas; once the chunk has enough, the holders that do not count leave its record (live ones
   * through the deletion queue). Otherwise the new replica goes into the deletion queue.
   *
   * @return whether the replica joined the chunk's replica set
   */
  public boolean recordCopy(Mutation m, Copy copy) throws IOException {
    ChunkRef ref = copy.chunk();
    int target = copy.target().id();
    Inode file = Tree.find(m, ref.inode());
    ChunkRecord c = ns.chunk(m, ref.inode(), Integer.toUnsignedLong(ref.index()));
    if (c != null && c.getReplicaServerIdsList().contains(target)) {
      return false; // the target is a holder already (cannot be in a deletion)
    }
    boolean same =
        file != null
            && file.isFile()
            && !file.record().hasOpenForWrite()
            && file.record().getGeneration() == copy.generation()
            && c != null
            && c.getVersion() == copy.version()
            && c.getLengthBytes() == copy.length();
    if (same && c != null && file != null) { // spelled out for NullAway
      int want = file.record().getLayout().getReplication();
      ChunkHealth health =
          ChunkHealth.of(
              ns.registry, ns.replicaMap, ref, c.getVersion(), c.getReplicaServerIdsList());
      if (health.good().size() < want) {
        List<Integer> holders = new ArrayList<>(c.getReplicaServerIdsList());
        holders.add(target);
        List<Integer> drop = new ArrayList<>();
        if (health.good().size() + 1 >= want) {
          holders = new ArrayList<>(health.good());
          holders.add(target);
          drop.addAll(c.getReplicaServerIdsList());
          drop.removeAll(holders);
        }
        m.put(
            ColumnFamily.CHUNKS,
            Keys.chunk(ref.inode(), ref.index()),
            Records.encode(
                c.toBuilder().clearReplicaServerIds().addAllReplicaServerIds(holders).build()));
        List<Integer> tell = liveOnes(drop);
        if (!tell.isEmpty()) {
          ns.deletions.enqueue(
              m, ref.inode(), List.of(new DeletionQueue.Chunk(ref.index(), copy.version(), tell)));
        }
        m.afterApply(
            () -> {
              ns.replicaMap.clearBad(ref, target);
              drop.forEach(d -> ns.replicaMap.clearBad(ref, d));
            });
        return true;
      }
    }
    ns.deletions.enqueue(
        m,
        ref.inode(),
        List.of(new DeletionQueue.Chunk(ref.index(), copy.version(), List.of(target))));
    return false;
  }
}
