package io.braidfs.cli.internal.web;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.path.BraidPath;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.lease.ClientId;
import io.braidfs.mds.namespace.AdminOps;
import io.braidfs.mds.namespace.Client;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.mds.namespace.NamespaceReads;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.ClusterReportResponse;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.FsckResponse;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.LayoutSpec;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.ServerReport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What the status page shows of an MDS, as JSON values, read from the server's in-process state
 * through the same operations {@code braid admin report}, {@code fsck}, {@code ls} and {@code
 * layout} answer with. Every read is made as the superuser (so any directory can be listed) and
 * only metadata is read; nothing is changed.
 *
 * <p>The file, chunk and health totals come from an fsck of {@code /}: a walk of the whole
 * namespace, so it is made at most every {@link #FSCK_EVERY_NANOS}, in the background, and the last
 * totals are shown in between.
 *
 * <p>Thread-safety: thread-safe (the operations used are those of the MDS's read pool).
 */
public final class MdsStatus {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MdsStatus.class);
  static final long FSCK_EVERY_NANOS = 30_000_000_000L;
  private static final int LIST_MAX = 1000;

  private final Supplier<@Nullable MdsServer> mds;
  private final Caller superuser;

  @GuardedBy("this")
  private @Nullable FsckResponse fsck;

  @GuardedBy("this")
  private long fsckAt;

  /**
   * @param mds the MDS of this process, null until it exists (read on every request: an HA replica
   *     replaces its namespace on every change of role)
   * @param superuser the MDS's superuser ({@code braid.mds.security.superuser}, root if empty)
   */
  public MdsStatus(Supplier<@Nullable MdsServer> mds, String superuser) {
    this.mds = mds;
    this.superuser = Caller.of(superuser.isEmpty() ? "root" : superuser);
  }

  /** The summary and the data server table; without a leading MDS, only its role. */
  Map<String, Object> summary() throws IOException {
    Map<String, Object> out = new LinkedHashMap<>();
    MdsServer m = mds.get();
    out.put("role", m == null ? "STARTING" : m.role().name());
    if (m == null || m.role() != MdsServer.Role.LEADER) {
      out.put("leader", m == null ? "" : m.leaderHint());
      return out;
    }
    Namespace ns = m.namespace();
    AdminOps admin = new AdminOps(ns);
    // The repair queue lives in the MDS's replicator, which is not reachable from here.
    ClusterReportResponse r = admin.report(superuser, id -> 0, 0, 0);
    FsckResponse f = fsck(admin);
    out.put("address", m.address().getHostString() + ":" + m.address().getPort());
    out.put("epoch", m.epoch());
    out.put("journalIndex", m.journalIndex());
    out.put("capacityBytes", r.getCapacityBytes());
    out.put("usedBytes", r.getUsedBytes());
    out.put("availableBytes", r.getAvailableBytes());
    out.put("liveServers", r.getLiveServers());
    out.put("deadServers", r.getDeadServers());
    out.put("safeMode", r.getSafeMode());
    out.put("safeModeRemainingMs", r.getSafeModeRemainingMs());
    out.put("inodes", ns.inodeCount());
    out.put("files", f.getFiles());
    out.put("directories", f.getDirectories());
    out.put("chunks", f.getChunks());
    out.put("underReplicatedFiles", f.getUnderReplicatedFiles());
    out.put("corruptFiles", f.getCorruptFiles());
    out.put("missingFiles", f.getMissingFiles());
    out.put("health", health(r, f));
    List<Object> servers = new ArrayList<>();
    for (ServerReport s : r.getServersList()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", s.getServerId());
      row.put("address", s.getHost() + ":" + s.getPort());
      row.put("rack", s.getRack());
      row.put("state", s.getLive() ? s.getState().name() : "DEAD");
      row.put("capacityBytes", s.getCapacityBytes());
      row.put("usedBytes", s.getUsedBytes());
      row.put("replicas", s.getReplicas());
      row.put("dataDirs", s.getDataDirs());
      row.put("failedDataDirs", s.getFailedDataDirs());
      row.put("lastHeartbeatMs", s.getLastHeartbeatMs());
      servers.add(row);
    }
    out.put("servers", servers);
    return out;
  }

  /**
   * The fsck totals: the first time made here; after that the last ones at once, and when they are
   * older than {@link #FSCK_EVERY_NANOS}, made again in the background, one walk at a time, so a
   * request (or a scrape on the same server) never waits on a walk of the namespace.
   */
  private FsckResponse fsck(AdminOps admin) throws IOException {
    FsckResponse f;
    long at;
    synchronized (this) {
      f = fsck;
      at = fsckAt;
    }
    if (f == null) {
      f = walk(admin);
      synchronized (this) {
        fsck = f;
        fsckAt = System.nanoTime();
      }
      return f;
    }
    if (System.nanoTime() - at > FSCK_EVERY_NANOS && walking.compareAndSet(false, true)) {
      walker.execute(
          () -> {
            try {
              FsckResponse fresh = walk(admin);
              synchronized (this) {
                fsck = fresh;
                fsckAt = System.nanoTime();
              }
            } catch (IOException | RuntimeException e) {
              LOG.debug("status page: fsck of / failed: {}", e.toString());
            } finally {
              walking.set(false);
            }
          });
    }
    return f;
  }

  /** Only the totals are wanted: one entry at most. */
  private FsckResponse walk(AdminOps admin) throws IOException {
    return admin.fsck(superuser, FsckRequest.newBuilder().setPath("/").setMaxFiles(1).build());
  }

  private final java.util.concurrent.atomic.AtomicBoolean walking =
      new java.util.concurrent.atomic.AtomicBoolean();

  private final java.util.concurrent.Executor walker =
      java.util.concurrent.Executors.newSingleThreadExecutor(
          io.braidfs.common.lifecycle.DaemonThreads.named("braid-status-fsck"));

  private static String health(ClusterReportResponse r, FsckResponse f) {
    if (f.getMissingFiles() > 0) {
      return "MISSING";
    }
    if (f.getCorruptFiles() > 0) {
      return "CORRUPT";
    }
    if (f.getUnderReplicatedFiles() > 0 || r.getDeadServers() > 0) {
      return "DEGRADED";
    }
    return "HEALTHY";
  }

  /** The entries of directory {@code path} (the first {@value #LIST_MAX}). */
  Map<String, Object> list(String path) throws IOException {
    String p = BraidPath.parse(path).toString();
    ReadDirResponse r =
        new NamespaceReads(leader())
            .readDir(
                superuser, ReadDirRequest.newBuilder().setPath(p).setMaxEntries(LIST_MAX).build());
    List<Object> entries = new ArrayList<>();
    for (DirEntry e : r.getEntriesList()) {
      Attributes a = e.getAttributes();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", e.getName());
      // FILE_TYPE_DIRECTORY: the page shows DIRECTORY.
      row.put("type", e.getType().name().replaceFirst("^FILE_TYPE_", ""));
      row.put("size", a.getSize());
      row.put("mode", String.format("%04o", a.getMode()));
      row.put("user", a.getUser());
      row.put("group", a.getGroup());
      row.put("mtimeMs", a.getMtimeNs() / 1_000_000);
      row.put("replication", a.getLayout().getReplication());
      entries.add(row);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("path", p);
    out.put("entries", entries);
    out.put("truncated", r.getHasMore());
    return out;
  }

  /** File {@code path}'s attributes, layout, and each chunk's replicas. */
  Map<String, Object> file(String path) throws IOException {
    String p = BraidPath.parse(path).toString();
    Namespace ns = leader();
    NamespaceReads reads = new NamespaceReads(ns);
    Attributes a =
        reads.getAttr(superuser, GetAttrRequest.newBuilder().setPath(p).build()).getAttributes();
    // A lookup of locations mints a read token for the caller; it is dropped unused.
    Client client = new Client(superuser, ClientId.of(new byte[ClientId.LENGTH]), "status", null);
    GetChunkLocationsResponse r =
        reads.getChunkLocations(client, GetChunkLocationsRequest.newBuilder().setPath(p).build());
    LayoutSpec l = r.getLayout();
    Map<String, Object> layout = new LinkedHashMap<>();
    layout.put("stripeUnit", l.getStripeUnit());
    layout.put("stripeWidth", l.getStripeWidth());
    layout.put("chunkSize", l.getChunkSize());
    layout.put("replication", l.getReplication());
    List<Object> chunks = new ArrayList<>();
    for (ChunkSetLocation set : r.getChunkSetsList()) {
      for (ChunkLocation c : set.getChunksList()) {
        Map<String, Object> chunk = new LinkedHashMap<>();
        chunk.put("set", set.getSetIndex());
        chunk.put("index", c.getId().getChunkIndex());
        chunk.put("version", c.getVersion());
        chunk.put("length", c.getLength());
        List<Object> replicas = new ArrayList<>();
        for (ReplicaLocation rl : c.getReplicasList()) {
          Map<String, Object> replica = new LinkedHashMap<>();
          replica.put("server", rl.getServerId());
          replica.put("address", rl.getHost() + ":" + rl.getPort());
          replica.put("rack", rl.getRack());
          replicas.add(replica);
        }
        chunk.put("replicas", replicas);
        chunks.add(chunk);
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("path", p);
    out.put("inode", a.getInodeId());
    out.put("size", r.getFileLength());
    out.put("mode", String.format("%04o", a.getMode()));
    out.put("user", a.getUser());
    out.put("group", a.getGroup());
    out.put("underConstruction", r.getUnderConstruction());
    out.put("layout", layout);
    out.put("chunks", chunks);
    return out;
  }

  private Namespace leader() throws IOException {
    MdsServer m = mds.get();
    if (m == null || m.role() != MdsServer.Role.LEADER) {
      throw StatusExceptions.toIOException(
          Status.NOT_LEADER, "this MDS does not lead; browse the leader's status page");
    }
    return m.namespace();
  }
}
