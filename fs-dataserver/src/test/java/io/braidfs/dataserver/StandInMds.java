package io.braidfs.dataserver;

import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.proto.ChunkReportRequest;
import io.braidfs.proto.ChunkReportResponse;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.ConfirmChunksRequest;
import io.braidfs.proto.ConfirmChunksResponse;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.HeartbeatResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import io.braidfs.proto.ReplicaChangesRequest;
import io.braidfs.proto.ReplicaChangesResponse;
import io.braidfs.proto.ReportCorruptReplicasRequest;
import io.braidfs.proto.ReportCorruptReplicasResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The MDS as a data server sees it, for this module's tests: a real {@link RpcServer} on 127.0.0.1,
 * port 0, serving ClusterService over the real protocol. It assigns server ids in registration
 * order (from 1), hands out {@code mint}'s signing keys, answers heartbeats with the commands a
 * test queues, and records every message a data server sends, for the test to inspect. fs-mds
 * cannot be used here: it would make this module depend on the MDS, and the MDS side of issue 26 is
 * being built at the same time.
 *
 * <p>Thread-safety: thread-safe; handlers run on the event loop and only record.
 */
final class StandInMds implements AutoCloseable {
  static final String CLUSTER = "stand-in-cluster";
  static final long EPOCH = TokenMint.EPOCH;

  private final TokenMint mint;
  private final int heartbeatMillis;
  private final RpcServer server;
  private final AtomicInteger nextId = new AtomicInteger(1);

  final List<RegisterDataServerRequest> registrations = new CopyOnWriteArrayList<>();
  final List<HeartbeatRequest> heartbeats = new CopyOnWriteArrayList<>();
  final List<ChunkReportRequest> chunkReports = new CopyOnWriteArrayList<>();
  final List<ReplicaChangesRequest> replicaChanges = new CopyOnWriteArrayList<>();
  final List<ReportCorruptReplicasRequest> corruptReports = new CopyOnWriteArrayList<>();

  private final ConcurrentLinkedQueue<ChunkState> toDelete = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean askReport = new AtomicBoolean();
  private final AtomicInteger changesToRefuse = new AtomicInteger();
  private final AtomicLong epoch = new AtomicLong(EPOCH);

  /** Starts the stand-in; data servers heartbeat every {@code heartbeat}. */
  static StandInMds start(TokenMint mint, Duration heartbeat) throws IOException {
    StandInMds m = new StandInMds(mint, (int) heartbeat.toMillis());
    m.server.start();
    return m;
  }

  private StandInMds(TokenMint mint, int heartbeatMillis) {
    this.mint = mint;
    this.heartbeatMillis = heartbeatMillis;
    this.server =
        RpcServer.builder("stand-in-mds")
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .handle(
                RpcMethod.REGISTER_DATA_SERVER,
                call -> {
                  RegisterDataServerRequest r = call.request();
                  registrations.add(r);
                  int id = r.getServerId() != 0 ? r.getServerId() : nextId.getAndIncrement();
                  call.reply(
                      RegisterDataServerResponse.newBuilder()
                          .setServerId(id)
                          .setClusterId(CLUSTER)
                          .setMdsEpoch(epoch.get())
                          .setHeartbeatIntervalMs(heartbeatMillis)
                          .setSigningKeys(mint.signingKeys())
                          .build());
                },
                null)
            .handle(
                RpcMethod.HEARTBEAT,
                call -> {
                  heartbeats.add(call.request());
                  HeartbeatResponse.Builder r = HeartbeatResponse.newBuilder();
                  for (ChunkState c; (c = toDelete.poll()) != null; ) {
                    r.addChunksToDelete(c);
                  }
                  // The epoch is read after the deletions, so deletions queued after a
                  // setEpoch go out under that epoch (or a later one).
                  call.reply(
                      r.setMdsEpoch(epoch.get())
                          .setSigningKeys(mint.signingKeys())
                          .setSendChunkReport(askReport.getAndSet(false))
                          .build());
                },
                null)
            .handle(
                RpcMethod.CHUNK_REPORT,
                call -> {
                  chunkReports.add(call.request());
                  call.reply(ChunkReportResponse.getDefaultInstance());
                },
                null)
            .handle(
                RpcMethod.CONFIRM_CHUNKS,
                call -> {
                  ConfirmChunksRequest r = call.request();
                  call.reply(ConfirmChunksResponse.newBuilder().setMdsEpoch(epoch.get()).build());
                },
                null)
            .handle(
                RpcMethod.REPLICA_CHANGES,
                call -> {
                  if (changesToRefuse.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    call.fail(Status.UNAVAILABLE, "stand-in: refusing this ReplicaChanges");
                    return;
                  }
                  replicaChanges.add(call.request());
                  call.reply(ReplicaChangesResponse.getDefaultInstance());
                },
                null)
            .handle(
                RpcMethod.REPORT_CORRUPT_REPLICAS,
                call -> {
                  corruptReports.add(call.request());
                  call.reply(ReportCorruptReplicasResponse.getDefaultInstance());
                },
                null)
            .build();
  }

  /** The address data servers are configured with. */
  String address() {
    InetSocketAddress a = server.boundAddress();
    return a.getAddress().getHostAddress() + ":" + a.getPort();
  }

  TokenMint mint() {
    return mint;
  }

  /**
   * From now on every answer names {@code e} as this MDS's leader epoch: a higher one plays a new
   * leader, a lower one than a data server has seen plays a deposed leader.
   */
  void setEpoch(long e) {
    epoch.set(e);
  }

  /** Whether every deletion queued has gone out in a heartbeat answer. */
  boolean deletionsSent() {
    return toDelete.isEmpty();
  }

  /** The next heartbeat answer tells the data server to delete {@code chunk}. */
  void deleteOnNextHeartbeat(ChunkState chunk) {
    toDelete.add(chunk);
  }

  /** The next heartbeat answer asks for a full chunk report. */
  void askForChunkReportOnNextHeartbeat() {
    askReport.set(true);
  }

  /** The next {@code n} ReplicaChanges are refused with UNAVAILABLE. */
  void refuseReplicaChanges(int n) {
    changesToRefuse.set(n);
  }

  /** How many ReplicaChanges are still to be refused. */
  int replicaChangesStillToRefuse() {
    return changesToRefuse.get();
  }

  /** Full reports whose last part has arrived, as the replicas of all their parts. */
  List<List<io.braidfs.proto.ReplicaReport>> completeChunkReports() {
    List<List<io.braidfs.proto.ReplicaReport>> out = new ArrayList<>();
    List<io.braidfs.proto.ReplicaReport> current = new ArrayList<>();
    for (ChunkReportRequest part : chunkReports) {
      if (part.getPartIndex() == 0) {
        current = new ArrayList<>();
      }
      current.addAll(part.getReplicasList());
      if (part.getLastPart()) {
        out.add(current);
      }
    }
    return out;
  }

  /** Every replica reported finalized so far, over all ReplicaChanges. */
  List<io.braidfs.proto.ReplicaReport> finalized() {
    List<io.braidfs.proto.ReplicaReport> out = new ArrayList<>();
    for (ReplicaChangesRequest r : replicaChanges) {
      out.addAll(r.getFinalizedList());
    }
    return out;
  }

  /** Every replica reported removed so far, over all ReplicaChanges. */
  List<io.braidfs.proto.ReplicaReport> removed() {
    List<io.braidfs.proto.ReplicaReport> out = new ArrayList<>();
    for (ReplicaChangesRequest r : replicaChanges) {
      out.addAll(r.getRemovedList());
    }
    return out;
  }

  @Override
  public void close() {
    server.close();
  }

  /**
   * Waits until {@code condition} holds, polling every 5 ms (this module cannot use fs-testing's
   * {@code Await}, which depends on it).
   */
  static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(5_000_000L);
    }
  }
}
