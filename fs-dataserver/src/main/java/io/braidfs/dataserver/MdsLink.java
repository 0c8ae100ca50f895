package io.braidfs.dataserver;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.ClusterMismatch;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.ChunkStore;
import io.braidfs.dataserver.store.DataDirStatus;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.ChunkReportRequest;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.ConfirmChunksRequest;
import io.braidfs.proto.ConfirmChunksResponse;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import io.braidfs.proto.ReplicaChangesRequest;
import io.braidfs.proto.ReplicaReport;
import io.braidfs.proto.ReportCorruptReplicasRequest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data server's side of ClusterService: registers with the MDS leader (following NOT_LEADER
 * hints over the configured addresses), heartbeats with capacity and load, and carries out what the
 * answers say: new signing keys, the leader's epoch, replicas to delete, register again, send a
 * chunk report. After each start it asks the MDS which of its replicas are still wanted and deletes
 * the others after a grace period, asking once more first.
 *
 * <p>Chunk reports: a full one (every replica, in parts of {@value #BATCH}) right after each
 * registration, every {@code braid.dataserver.chunk-report-interval} after the last, and when a
 * heartbeat answer asks; a failed one is tried again after the retry pause. Changes in between go
 * out through {@link IncrementalReports}, flushed before every heartbeat.
 *
 * <p>Deletion commands only arrive in answers on this server's own connection to a configured MDS
 * address; the data service takes none from the network. Once this server has a cluster id (from
 * its first registration), an MDS whose Hello names another cluster is refused before anything is
 * sent to it (the {@link RpcClient} checks, see DataServer) and the next configured address is
 * tried: a server never registers with, heartbeats to or takes deletions from another cluster.
 *
 * <p>Every answer names the epoch its MDS leads under. One older than the highest epoch this server
 * has persisted comes from a deposed leader: a registration, heartbeat or ConfirmChunks answer of
 * it is ignored whole (no keys, identity, deletions or garbage collection taken from it) and the
 * next address is tried; a newer one is persisted before anything the answer says is done.
 *
 * <p>Thread-safety: everything runs on one scheduler thread.
 */
final class MdsLink {
  private static final Logger LOG = LoggerFactory.getLogger(MdsLink.class);

  /** How often a data server that cannot register says so at WARN (in between: DEBUG). */
  private static final long REGISTER_WARNING_NANOS = 30_000_000_000L;

  /** Replicas per ConfirmChunks or ChunkReport message. */
  private static final int BATCH = 1000;

  private final String id;
  private final RpcClient rpc;
  private final List<InetSocketAddress> mdsAddresses;
  private final ChunkStore store;
  private final TokenGate gate;
  private final ChunkWorkers workers;
  private final ScheduledExecutorService timer;
  private final Registration self;
  private final Duration retry;
  private final Duration orphanGrace;
  private final Duration reportInterval;
  private final IncrementalReports reports;
  private final DataContext ctx;
  private final CountDownLatch registered = new CountDownLatch(1);
  private InetSocketAddress leader;
  private long heartbeatMillis = 3000;
  private boolean confirmed;
  private long reportIds;
  private int failedRegistrations;
  private long lastRegisterWarning;

  /** Whether a heartbeat has been accepted since the last registration. */
  private boolean heard;

  /** Whether the last registration holds (no heartbeat has failed since). */
  private boolean linked;

  private @Nullable ScheduledFuture<?> nextReport;

  /** MDS addresses refused as of another cluster, each logged at WARN once. */
  private final Set<InetSocketAddress> refusedLogged = new HashSet<>();

  /** What this server tells the MDS about itself. */
  record Registration(String host, int port, String rack, String version) {}

  MdsLink(
      DataContext ctx,
      List<InetSocketAddress> mdsAddresses,
      ScheduledExecutorService timer,
      Registration self,
      Duration retry,
      Duration orphanGrace,
      Duration reportInterval,
      IncrementalReports reports) {
    this.ctx = ctx;
    this.id = ctx.id;
    this.rpc = ctx.peers;
    this.mdsAddresses = List.copyOf(mdsAddresses);
    this.store = ctx.store;
    this.gate = ctx.gate;
    this.workers = ctx.workers;
    this.timer = timer;
    this.self = self;
    this.retry = retry;
    this.orphanGrace = orphanGrace;
    this.reportInterval = reportInterval;
    this.reports = reports;
    this.leader = mdsAddresses.get(0);
    reports.attach(
        new IncrementalReports.Mds() {
          @Override
          public boolean ready() {
            return linked;
          }

          @Override
          public int serverId() {
            return store.serverId();
          }

          @Override
          public void send(ReplicaChangesRequest request) throws IOException {
            rpc.callSync(leader, RpcMethod.REPLICA_CHANGES, request);
          }

          @Override
          public void send(ReportCorruptReplicasRequest request) throws IOException {
            rpc.callSync(leader, RpcMethod.REPORT_CORRUPT_REPLICAS, request);
          }
        });
  }

  void start() {
    timer.execute(this::register);
  }

  /** Waits until the first registration and heartbeat succeeded (chunks can be placed here). */
  boolean awaitRegistered(Duration timeout) throws InterruptedException {
    return registered.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void register() {
    RegisterDataServerRequest.Builder req =
        RegisterDataServerRequest.newBuilder()
            .setServerId(store.serverId())
            .setClusterId(store.clusterId())
            .setHost(self.host())
            .setPort(self.port())
            .setRack(self.rack())
            .setSoftwareVersion(self.version());
    long capacity = 0;
    for (DataDirStatus d : store.dirs()) {
      req.addDataDirs(dataDir(d));
      capacity += d.capacityBytes();
    }
    req.setCapacityBytes(capacity);
    try {
      RegisterDataServerResponse r =
          rpc.callSync(leader, RpcMethod.REGISTER_DATA_SERVER, req.build());
      if (r.getMdsEpoch() < store.maxEpochSeen()) {
        // A deposed leader that has not noticed yet: its keys and identity must not be taken.
        LOG.warn(
            "{}: ignoring a registration answer from deposed leader {} (epoch {} < {})",
            id,
            leader,
            r.getMdsEpoch(),
            store.maxEpochSeen());
        nextLeader(new IOException("stale epoch"));
        timer.schedule(this::register, retry.toMillis(), TimeUnit.MILLISECONDS);
        return;
      }
      store.saveIdentity(r.getServerId(), r.getClusterId());
      store.raiseEpoch(r.getMdsEpoch());
      gate.updateKeys(r.getSigningKeys());
      gate.delegationKeys().update(r.getDelegationKeys());
      heartbeatMillis = Math.max(10, r.getHeartbeatIntervalMs());
      heard = false;
      linked = true;
      LOG.info(
          "{}: registered with the MDS at {} as data server {} of cluster {}",
          id,
          leader,
          r.getServerId(),
          r.getClusterId());
      failedRegistrations = 0;
      timer.execute(this::heartbeat); // at once: the MDS places chunks only on servers it has heard
      timer.execute(this::chunkReport); // then everything this server holds
      if (!confirmed) {
        confirmed = true;
        timer.execute(this::confirmReplicas);
      }
    } catch (IOException | RuntimeException e) {
      ClusterMismatch refused = ClusterMismatch.of(e).orElse(null);
      if (refused != null) {
        // Nothing but the Hello reached it; the message names both clusters and the address.
        if (refusedLogged.add(leader)) {
          LOG.warn("{}: {}; trying the next MDS address", id, refused.message());
        } else {
          LOG.debug("{}: {}", id, refused.message());
        }
      } else if (StatusExceptions.statusOf(e) == Status.INVALID_ARGUMENT) {
        LOG.error("{}: the MDS at {} refused the registration: {}", id, leader, e.getMessage());
      } else if (RemoteErrorInfo.of(e).isPresent()) {
        // An MDS answered (a standby's NOT_LEADER, a busy leader): the next address is tried.
        failedRegistrations = 0;
        LOG.debug("{}: cannot register with {}: {}", id, leader, e.toString());
      } else {
        failedRegistrations++;
        long now = System.nanoTime();
        // An operator must see it (a wrong address, a firewall, every replica down), but not
        // one replica of several being down, nor every retry.
        if (failedRegistrations >= mdsAddresses.size()
            && (lastRegisterWarning == 0 || now - lastRegisterWarning >= REGISTER_WARNING_NANOS)) {
          lastRegisterWarning = now;
          LOG.warn(
              "{}: cannot reach the MDS at {} to register ({} attempts so far, retrying every {}"
                  + " ms): {}",
              id,
              leader,
              failedRegistrations,
              retry.toMillis(),
              e.getMessage());
        } else {
          LOG.debug("{}: cannot register with {}: {}", id, leader, e.toString());
        }
      }
      nextLeader(e);
      timer.schedule(this::register, retry.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * A data dir as the MDS is told of it. Its file system is named by this server's host and the
   * device id, so directories of servers sharing one disk of one machine name the same file system
   * and the MDS counts its space once, while two machines' disks never meet (each server's host is
   * one clients reach it at, so no two machines share one). Without a device id the storage id
   * names it: counted on its own, as before.
   */
  private DataDir.Builder dataDir(DataDirStatus d) {
    String fileSystem =
        d.device().isEmpty() ? "storage:" + d.storageId() : self.host() + ":" + d.device();
    return DataDir.newBuilder()
        .setPath(d.path().toString())
        .setStorageId(d.storageId())
        .setFileSystemId(fileSystem)
        .setCapacityBytes(d.capacityBytes());
  }

  /** Follows a NOT_LEADER hint, or moves on to the next configured address. */
  private void nextLeader(Exception e) {
    String hint = RemoteErrorInfo.of(e).map(i -> i.getLeaderHint()).orElse("");
    if (StatusExceptions.statusOf(e) == Status.NOT_LEADER && !hint.isEmpty()) {
      try {
        leader = io.braidfs.common.rpc.HostPort.parse(hint).toSocketAddress();
        return;
      } catch (IllegalArgumentException bad) {
        LOG.warn("{}: ignoring a malformed leader hint '{}'", id, hint);
      }
    }
    int i = mdsAddresses.indexOf(leader);
    leader = mdsAddresses.get((i + 1) % mdsAddresses.size());
  }

  private void heartbeat() {
    reports.flush(); // the MDS hears of changes no later than of this heartbeat
    HeartbeatRequest.Builder req =
        HeartbeatRequest.newBuilder()
            .setServerId(store.serverId())
            .setActiveTransfers(Math.max(0, ctx.activeTransfers.get()))
            .setLoad(load());
    long capacity = 0;
    long used = 0;
    long available = 0;
    int failed = 0;
    for (DataDirStatus d : store.dirs()) {
      long dirAvailable = d.failed() ? 0 : d.availableBytes();
      capacity += d.capacityBytes();
      used += d.usedBytes();
      available += dirAvailable;
      failed += d.failed() ? 1 : 0;
      req.addDataDirs(dataDir(d).setUsedBytes(d.usedBytes()).setAvailableBytes(dirAvailable));
    }
    req.setCapacityBytes(capacity)
        .setUsedBytes(used)
        .setAvailableBytes(available)
        .setFailedDataDirs(failed);
    try {
      HeartbeatResponse r = rpc.callSync(leader, RpcMethod.HEARTBEAT, req.build());
      if (r.getRegisterAgain()) {
        LOG.info("{}: the MDS asks this server to register again", id);
        linked = false;
        timer.execute(this::register);
        return;
      }
      if (r.getMdsEpoch() < store.maxEpochSeen()) {
        LOG.warn(
            "{}: ignoring a heartbeat answer from deposed leader {} (epoch {} < {})",
            id,
            leader,
            r.getMdsEpoch(),
            store.maxEpochSeen());
        nextLeader(new IOException("stale epoch"));
        linked = false;
        timer.execute(this::register);
        return;
      }
      store.raiseEpoch(r.getMdsEpoch());
      if (r.hasSigningKeys()) {
        gate.updateKeys(r.getSigningKeys());
        gate.delegationKeys().update(r.getDelegationKeys());
      }
      delete(r.getChunksToDeleteList());
      if (!heard) {
        // Only now may the MDS place chunks here (it knows the space); scripts and the process
        // cluster's tests wait for this line.
        heard = true;
        LOG.info("{}: in service: the MDS at {} has this server's space and load", id, leader);
      }
      registered.countDown();
      if (r.getSendChunkReport()) {
        timer.execute(this::chunkReport);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("{}: heartbeat to {} failed: {}", id, leader, e.toString());
      nextLeader(e);
      linked = false;
      timer.execute(this::register);
      return;
    }
    timer.schedule(this::heartbeat, heartbeatMillis, TimeUnit.MILLISECONDS);
  }

  private static double load() {
    double avg = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return avg < 0 ? 0 : avg / Runtime.getRuntime().availableProcessors();
  }

  /** Deletes each replica on its chunk's disk thread, so it never races a write to it. */
  private void delete(List<ChunkState> chunks) {
    for (ChunkState c : chunks) {
      ChunkKey key = ChunkKey.of(c.getId());
      workers.execute(
          key,
          () -> {
            try {
              if (store.delete(key, c.getVersion())) {
                LOG.debug("{}: deleted replica {} (version <= {})", id, key, c.getVersion());
              }
            } catch (IOException e) {
              LOG.warn("{}: cannot delete replica {}: {}", id, key, e.toString());
            }
          });
    }
  }

  /** Asks which replicas the MDS still wants; the others go after the grace period. */
  private void confirmReplicas() {
    List<ChunkState> all = new ArrayList<>();
    for (Replica r : store.replicas()) {
      all.add(state(r));
    }
    List<ChunkState> deletable = unwanted(all);
    if (deletable == null) {
      timer.schedule(this::confirmReplicas, retry.toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    if (!deletable.isEmpty()) {
      LOG.info(
          "{}: {} replicas are unknown to the MDS; deleting them in {} unless it claims them",
          id,
          deletable.size(),
          orphanGrace);
      timer.schedule(() -> deleteOrphans(deletable), orphanGrace.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void deleteOrphans(List<ChunkState> candidates) {
    List<ChunkState> still = unwanted(candidates);
    if (still == null) {
      timer.schedule(() -> deleteOrphans(candidates), retry.toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    LOG.info("{}: deleting {} replicas the MDS does not know", id, still.size());
    delete(still);
  }

  /** The replicas among {@code asked} the MDS does not want; null if it could not be asked. */
  private @Nullable List<ChunkState> unwanted(List<ChunkState> asked) {
    List<ChunkState> out = new ArrayList<>();
    for (int i = 0; i < asked.size(); i += BATCH) {
      ConfirmChunksRequest req =
          ConfirmChunksRequest.newBuilder()
              .setServerId(store.serverId())
              .addAllChunks(asked.subList(i, Math.min(asked.size(), i + BATCH)))
              .build();
      try {
        ConfirmChunksResponse r = rpc.callSync(leader, RpcMethod.CONFIRM_CHUNKS, req);
        if (r.getMdsEpoch() < store.maxEpochSeen()) {
          return null; // a deposed leader's answer
        }
        out.addAll(r.getDeletableList());
      } catch (IOException e) {
        LOG.debug("{}: ConfirmChunks failed: {}", id, e.toString());
        return null;
      }
    }
    return out;
  }

  /**
   * Sends a full chunk report now (if registered) and schedules the next one: after the report
   * interval, or after the retry pause if this one failed.
   */
  private void chunkReport() {
    ScheduledFuture<?> scheduled = nextReport;
    if (scheduled != null) {
      scheduled.cancel(false);
    }
    nextReport = null;
    if (!linked) {
      return; // the next registration sends one
    }
    Duration next = sendChunkReport() ? reportInterval : retry;
    nextReport = timer.schedule(this::chunkReport, next.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Sends every replica in parts; false if a part failed. */
  private boolean sendChunkReport() {
    List<Replica> all = store.replicas();
    long reportId = ++reportIds;
    int parts = Math.max(1, (all.size() + BATCH - 1) / BATCH);
    for (int p = 0; p < parts; p++) {
      ChunkReportRequest.Builder req =
          ChunkReportRequest.newBuilder()
              .setServerId(store.serverId())
              .setReportId(reportId)
              .setPartIndex(p)
              .setLastPart(p == parts - 1);
      for (Replica r : all.subList(p * BATCH, Math.min(all.size(), (p + 1) * BATCH))) {
        req.addReplicas(
            ReplicaReport.newBuilder()
                .setId(r.key().toProto())
                .setVersion(r.version())
                .setLength(r.length())
                .setState(r.state())
                .setGeneration(r.generation()));
      }
      try {
        rpc.callSync(leader, RpcMethod.CHUNK_REPORT, req.build());
      } catch (IOException e) {
        LOG.debug("{}: chunk report failed; retrying in {}: {}", id, retry, e.toString());
        return false;
      }
    }
    LOG.debug("{}: sent a chunk report of {} replicas to {}", id, all.size(), leader);
    return true;
  }

  private static ChunkState state(Replica r) {
    return ChunkState.newBuilder()
        .setId(r.key().toProto())
        .setVersion(r.version())
        .setLength(r.length())
        .build();
  }
}
