package io.braidfs.mds.namespace;

import io.braidfs.common.error.Status;
import io.braidfs.common.path.BraidPath;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.cluster.AdminState;
import io.braidfs.mds.cluster.ChunkRef;
import io.braidfs.mds.cluster.DataServer;
import io.braidfs.mds.cluster.DataServerRegistry;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.ScanPage;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.ChunkRecord;
import io.braidfs.mds.store.proto.DentryValue;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.proto.ClusterReportResponse;
import io.braidfs.proto.FileHealth;
import io.braidfs.proto.FsckFile;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.FsckResponse;
import io.braidfs.proto.ServerAdminState;
import io.braidfs.proto.ServerReport;
import io.braidfs.proto.SetServerStateRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AdminService operations: fsck over a subtree, the cluster report, and data server states
 * (decommission, maintenance), which are kept in the store's meta family so that they outlive an
 * MDS restart. All superuser only.
 *
 * <p>Thread-safety: {@link #fsck} and {@link #report} are thread-safe (read pool); {@link
 * #setState} and {@link #finishDecommissions} run on the mutation thread.
 */
public final class AdminOps {
  private static final Logger LOG = LoggerFactory.getLogger(AdminOps.class);
  private static final String STATE_KEY = "server-state/";
  private static final int DEFAULT_MAX_FILES = 10_000;

  private final Namespace ns;

  public AdminOps(Namespace ns) {
    this.ns = ns;
  }

  /** Restores the states operators set (at start, before serving). */
  public void load() throws IOException {
    byte[] prefix = Keys.meta(STATE_KEY);
    byte[] cursor = null;
    do {
      ScanPage page = ns.decided.scan(ColumnFamily.META, prefix, cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        String key = new String(e.key(), StandardCharsets.UTF_8);
        int id = Integer.parseUnsignedInt(key.substring(STATE_KEY.length()));
        AdminState state = AdminState.valueOf(new String(e.value(), StandardCharsets.UTF_8));
        ns.registry.setState(id, state);
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
  }

  // ---- fsck -------------------------------------------------------------------------------------

  /**
   * Checks every file under {@code req.path}: each chunk's replicas judged by {@link ChunkHealth}.
   *
   * @throws IOException PERMISSION_DENIED for anyone but the superuser; the path errors of
   *     resolution
   */
  public FsckResponse fsck(Caller caller, FsckRequest req) throws IOException {
    checkSuperuser(caller, "fsck " + req.getPath());
    StoreView v = ns.store;
    String root = req.getPath().isEmpty() ? "/" : req.getPath();
    Inode top = ns.resolver.resolve(v, caller, "fsck", BraidPath.parse(root), false);
    int max = req.getMaxFiles() == 0 ? DEFAULT_MAX_FILES : req.getMaxFiles();
    FsckResponse.Builder out = FsckResponse.newBuilder().setSafeMode(ns.registry.inStartupGrace());
    Deque<Object[]> todo = new ArrayDeque<>();
    todo.push(new Object[] {top, root});
    while (!todo.isEmpty()) {
      Object[] next = todo.pop();
      Inode cur = (Inode) next[0];
      String path = (String) next[1];
      if (cur.isDirectory()) {
        out.setDirectories(out.getDirectories() + 1);
        List<Object[]> children = new ArrayList<>();
        byte[] cursor = null;
        do {
          ScanPage page = v.scan(ColumnFamily.DENTRIES, Keys.dentryPrefix(cur.id()), cursor, 1024);
          for (ScanPage.Entry e : page.entries()) {
            DentryValue d = Records.decodeDentry(e.key(), e.value());
            String name = Keys.dentryName(e.key());
            children.add(
                new Object[] {
                  Tree.named(v, d.getChildId(), "entry '" + name + "'"),
                  path.equals("/") ? "/" + name : path + "/" + name
                });
          }
          cursor = page.hasMore() ? page.cursor() : null;
        } while (cursor != null);
        for (int i = children.size() - 1; i >= 0; i--) {
          todo.push(children.get(i)); // so they come off the stack in name order
        }
        continue;
      }
      if (!cur.isFile()) {
        continue;
      }
      FsckFile f = checkFile(v, cur, path, out);
      if ((req.getVerbose() || f.getHealth() != FileHealth.HEALTHY)) {
        if (out.getEntriesCount() < max) {
          out.addEntries(f);
        } else {
          out.setTruncated(true);
        }
      }
    }
    return out.build();
  }

  private FsckFile checkFile(StoreView v, Inode file, String path, FsckResponse.Builder out)
      throws IOException {
    InodeRecord r = file.record();
    int want = r.getLayout().getReplication();
    FsckFile.Builder f =
        FsckFile.newBuilder()
            .setPath(path)
            .setReplication(want)
            .setLength(r.getSize())
            .setOpenForWrite(r.hasOpenForWrite());
    FileHealth worst = FileHealth.HEALTHY;
    byte[] cursor = null;
    do {
      ScanPage page = v.scan(ColumnFamily.CHUNKS, Keys.chunkPrefix(file.id()), cursor, 1024);
      for (ScanPage.Entry e : page.entries()) {
        ChunkRecord c = Records.decodeChunk(e.key(), e.value());
        ChunkRef ref = new ChunkRef(file.id(), Keys.chunkIndex(e.key()));
        // An empty chunk of a closed file (allocated with its chunk set, never written) has
        // nothing to lose, whatever its holders' state.
        FileHealth h =
            c.getLengthBytes() == 0 && !r.hasOpenForWrite()
                ? FileHealth.HEALTHY
                : ChunkHealth.of(
                        ns.registry,
                        ns.replicaMap,
                        ref,
                        c.getVersion(),
                        c.getReplicaServerIdsList())
                    .health(want);
        f.setChunks(f.getChunks() + 1);
        switch (h) {
          case UNDER_REPLICATED -> f.setUnderReplicatedChunks(f.getUnderReplicatedChunks() + 1);
          case CORRUPT -> f.setCorruptChunks(f.getCorruptChunks() + 1);
          case MISSING -> f.setMissingChunks(f.getMissingChunks() + 1);
          default -> {}
        }
        worst = ChunkHealth.worse(worst, h);
      }
      cursor = page.hasMore() ? page.cursor() : null;
    } while (cursor != null);
    f.setHealth(worst);
    out.setFiles(out.getFiles() + 1)
        .setChunks(out.getChunks() + f.getChunks())
        .setUnderReplicatedChunks(out.getUnderReplicatedChunks() + f.getUnderReplicatedChunks())
        .setCorruptChunks(out.getCorruptChunks() + f.getCorruptChunks())
        .setMissingChunks(out.getMissingChunks() + f.getMissingChunks());
    switch (worst) {
      case UNDER_REPLICATED -> out.setUnderReplicatedFiles(out.getUnderReplicatedFiles() + 1);
      case CORRUPT -> out.setCorruptFiles(out.getCorruptFiles() + 1);
      case MISSING -> out.setMissingFiles(out.getMissingFiles() + 1);
      default -> out.setHealthyFiles(out.getHealthyFiles() + 1);
    }
    return f.build();
  }

  // ---- the cluster report -----------------------------------------------------------------------

  /**
   * Every data server as the MDS sees it, and the totals.
   *
   * @param copies copies under way per server id
   * @param repairQueue files waiting for copies
   * @param copiesInFlight copies under way in all
   */
  public ClusterReportResponse report(
      Caller caller, IntUnaryOperator copies, long repairQueue, int copiesInFlight)
      throws IOException {
    checkSuperuser(caller, "report");
    DataServerRegistry reg = ns.registry;
    ClusterReportResponse.Builder out = ClusterReportResponse.newBuilder();
    int dead = 0;
    for (DataServer s : reg.servers()) {
      out.addServers(serverReport(s, copies.applyAsInt(s.id())));
      dead += s.live() ? 0 : 1;
    }
    DataServerRegistry.Totals t = reg.totals();
    long grace = reg.startupGraceRemainingNanos();
    return out.setCapacityBytes(t.capacityBytes())
        .setUsedBytes(t.usedBytes())
        .setAvailableBytes(t.availableBytes())
        .setLiveServers(t.liveServers())
        .setDeadServers(dead)
        .setRepairQueue(repairQueue)
        .setCopiesInFlight(copiesInFlight)
        .setSafeMode(grace > 0)
        .setSafeModeRemainingMs(grace / 1_000_000)
        .build();
  }

  /** One server's line of the report. */
  public ServerReport serverReport(DataServer s, int copies) {
    long ago = Math.max(0, ns.clock.nanoTime() - s.lastHeartbeatNanos()) / 1_000_000;
    return ServerReport.newBuilder()
        .setServerId(s.id())
        .setHost(s.host())
        .setPort(s.port())
        .setRack(s.rack())
        .setLive(s.live())
        .setState(toProto(s.state()))
        .setCapacityBytes(s.usage().capacityBytes())
        .setUsedBytes(s.usage().usedBytes())
        .setAvailableBytes(s.usage().availableBytes())
        .setReplicas(ns.replicaMap.replicasOf(s.id()))
        .setLastHeartbeatMs(ago)
        .setFailedDataDirs(s.usage().failedDirs())
        .setCopiesInFlight(copies)
        .setDataDirs(s.dataDirs().size())
        .build();
  }

  // ---- server states ----------------------------------------------------------------------------

  /**
   * Sets a server's state, in {@code m}; the registry follows once {@code m} is applied.
   * Decommissioning a server already decommissioned keeps it so.
   *
   * @return the server
   * @throws IOException PERMISSION_DENIED for anyone but the superuser; NOT_FOUND for a server the
   *     MDS does not know; INVALID_ARGUMENT for a state one cannot ask for
   */
  public DataServer setState(Mutation m, Caller caller, SetServerStateRequest req)
      throws IOException {
    String what = "set state of data server " + req.getServer();
    checkSuperuser(caller, what);
    DataServer s = find(req.getServer());
    if (s == null) {
      throw Resolver.fail(
          Status.NOT_FOUND,
          what + ": no such data server (give host:port as registered, or its id)");
    }
    AdminState state =
        switch (req.getState()) {
          case IN_SERVICE -> AdminState.IN_SERVICE;
          case DECOMMISSIONING ->
              ns.registry.state(s.id()) == AdminState.DECOMMISSIONED
                  ? AdminState.DECOMMISSIONED
                  : AdminState.DECOMMISSIONING;
          case IN_MAINTENANCE -> AdminState.IN_MAINTENANCE;
          default ->
              throw Resolver.fail(
                  Status.INVALID_ARGUMENT,
                  what + ": state " + req.getState() + " cannot be asked for");
        };
    put(m, s.id(), state);
    LOG.info("{}: {} -> {} (asked by {})", ns.id, s, state, caller.user());
    return s;
  }

  /**
   * Marks decommissioned every draining server that holds no needed replica any more: no chunk
   * record names it (open files' write chains included).
   */
  public void finishDecommissions(Mutation m) throws IOException {
    for (DataServer s : ns.registry.servers()) {
      if (s.state() == AdminState.DECOMMISSIONING && !ns.holderIndex.holdsAny(s.id())) {
        LOG.info("{}: {} holds no needed replica: decommissioned", ns.id, s);
        put(m, s.id(), AdminState.DECOMMISSIONED);
      }
    }
  }

  private void put(Mutation m, int id, AdminState state) {
    byte[] key = Keys.meta(STATE_KEY + Integer.toUnsignedString(id));
    if (state == AdminState.IN_SERVICE) {
      m.delete(ColumnFamily.META, key);
    } else {
      m.put(ColumnFamily.META, key, state.name().getBytes(StandardCharsets.UTF_8));
    }
    m.afterApply(() -> ns.registry.setState(id, state));
  }

  private io.braidfs.mds.cluster.@org.jspecify.annotations.Nullable DataServer find(String server) {
    String s = server.strip();
    io.braidfs.common.rpc.HostPort address = null;
    try {
      address = io.braidfs.common.rpc.HostPort.parse(s); // [::1]:7500 names host ::1
    } catch (IllegalArgumentException notAnAddress) {
      // an id
    }
    for (DataServer d : ns.registry.servers()) {
      boolean sameAddress =
          address != null
              && address.port() == d.port()
              && address.host().equalsIgnoreCase(d.host());
      if (sameAddress || Integer.toUnsignedString(d.id()).equals(s)) {
        return d;
      }
    }
    return null;
  }

  /**
   * Refuses anyone but the superuser (or a member of the supergroup) with PERMISSION_DENIED naming
   * {@code what}; for admin calls served outside this class (failover).
   */
  public void checkSuperuser(Caller caller, String what) throws IOException {
    if (!ns.permissions.isSuperuser(caller) && !caller.user().equals(ns.superuser)) {
      throw Resolver.fail(
          Status.PERMISSION_DENIED, what + ": only the superuser may, not " + caller.user());
    }
  }

  /** The wire form of a state. */
  public static ServerAdminState toProto(AdminState s) {
    return switch (s) {
      case IN_SERVICE -> ServerAdminState.IN_SERVICE;
      case DECOMMISSIONING -> ServerAdminState.DECOMMISSIONING;
      case DECOMMISSIONED -> ServerAdminState.DECOMMISSIONED;
      case IN_MAINTENANCE -> ServerAdminState.IN_MAINTENANCE;
    };
  }
}
