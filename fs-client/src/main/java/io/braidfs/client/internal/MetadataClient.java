package io.braidfs.client.internal;

import com.google.protobuf.Message;
import io.braidfs.client.internal.data.ChunkService;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.ClusterMismatch;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.AllocateChunkSetResponse;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CommitResponse;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.ReplaceReplicaRequest;
import io.braidfs.proto.ReplaceReplicaResponse;
import io.braidfs.proto.ReportBadReplicaRequest;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.proto.UpdateLengthResponse;
import io.netty.channel.ConnectTimeoutException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata calls with failover: each call goes to the MDS believed to lead; NOT_LEADER (following
 * its hint), a lost or refused connection and a timeout move it to the next MDS, with a short
 * backoff once every address has been tried, until {@link ClientOptions#failoverTimeout()}. Every
 * attempt of one call carries the same call id, so the MDS's retry cache applies a mutation at most
 * once even when an attempt that timed out had in fact been applied.
 *
 * <p>An MDS of another cluster is never used: an {@link RpcClient} built with an {@link
 * io.braidfs.common.rpc.ExpectedCluster} (as BraidClient's is) refuses it at its Hello, before any
 * call is sent to it, and the call moves on as from a dead MDS. So a client given the addresses of
 * two clusters stays with its own when that one's MDS dies, and fails with UNAVAILABLE naming the
 * refusal once the failover timeout has passed, rather than carry on against the other cluster.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class MetadataClient implements ChunkService {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataClient.class);
  private static final long MIN_BACKOFF_MS = 20;

  /**
   * The longest pause between rounds while a failover may be under way: an election takes the
   * ZooKeeper session timeout plus a fraction of a second, and every pause's remainder once the new
   * leader serves is added to the client's failover time (a 1 s cap cost about 0.5 s).
   */
  private static final long FAILOVER_BACKOFF_MS = 250;

  /** After this long without a leader it is no failover: pauses grow to {@link #MAX_BACKOFF_MS}. */
  private static final long FAILOVER_WINDOW_NANOS = 15_000_000_000L;

  private static final long MAX_BACKOFF_MS = 2000;

  private final RpcClient rpc;
  private final List<InetSocketAddress> addresses;
  private final Duration failoverTimeout;
  private volatile InetSocketAddress leader;
  private volatile int next;
  private volatile boolean closed;
  private volatile boolean failFastWhenRefused;

  /** Whether any MDS ever answered this client (before that, a refusal means none runs). */
  private volatile boolean reached;

  /** The addresses refused as of another cluster, each logged once. */
  private final Set<InetSocketAddress> refusedLogged = ConcurrentHashMap.newKeySet();

  public MetadataClient(
      RpcClient rpc, List<InetSocketAddress> addresses, Duration failoverTimeout) {
    this.rpc = rpc;
    this.addresses = List.copyOf(addresses);
    this.failoverTimeout = failoverTimeout;
    this.leader = addresses.get(0);
  }

  /**
   * Fail at once, until an MDS first answers, when every address refuses the connection: nothing
   * listens there, which waiting would not change (a command's user wants to know now).
   */
  public void failFastWhenRefused(boolean failFast) {
    this.failFastWhenRefused = failFast;
  }

  /** The MDS the next call goes to first. */
  public InetSocketAddress leader() {
    return leader;
  }

  /**
   * Calls {@code method} on the leading MDS, failing over as the class says.
   *
   * @throws IOException the MDS's answer (a precise status); or UNAVAILABLE if no MDS answered as
   *     leader within the failover timeout, after which a mutation may or may not have been applied
   */
  public <Q extends Message, R extends Message> R call(RpcMethod<Q, R> method, Q request)
      throws IOException {
    long callId = rpc.newCallId();
    long start = System.nanoTime();
    long deadline = start + failoverTimeout.toNanos();
    int tried = 0;
    long backoff = MIN_BACKOFF_MS;
    ClusterMismatch refusal = null;
    Set<InetSocketAddress> refusedConnection = new HashSet<>();
    while (true) {
      InetSocketAddress target = leader;
      // No attempt outlives the failover deadline by more than a moment.
      Duration attempt =
          Duration.ofNanos(
              Math.max(
                  MIN_BACKOFF_MS * 1_000_000L,
                  Math.min(rpc.options().callTimeout().toNanos(), deadline - System.nanoTime())));
      try (RpcResponse<R> response =
          rpc.await(rpc.call(target, method, request, null, attempt, callId))) {
        reached = true;
        return response.message();
      } catch (InterruptedIOException e) {
        throw e;
      } catch (IOException e) {
        Status s = StatusExceptions.statusOf(e);
        if (RemoteErrorInfo.of(e).isPresent()) {
          reached = true;
        } else if (failFastWhenRefused && !reached) {
          // Only when every address refused, each at its latest try: a slow or paused MDS
          // (a timeout) is waited for as usual.
          if (connectionRefused(e)) {
            refusedConnection.add(target);
          } else {
            refusedConnection.clear();
          }
          if (refusedConnection.containsAll(addresses)) {
            throw StatusExceptions.toIOException(
                Status.UNAVAILABLE,
                "connection refused by every MDS address " + addresses + ": no MDS listens there",
                e);
          }
        }
        // A server's own UNAVAILABLE ("too few data servers") is its answer; a connection that
        // could not carry the call, a deadline (the call id makes a repeat safe), NOT_LEADER
        // (a stopping MDS says so too) and BUSY send it on.
        boolean answered = RemoteErrorInfo.of(e).isPresent();
        // An MDS of another cluster is passed over like a dead one (nothing was sent to it).
        ClusterMismatch refused = ClusterMismatch.of(e).orElse(null);
        if (refused != null) {
          refusal = refused;
          if (refusedLogged.add(target)) {
            LOG.warn("{}: {}", rpc.name(), refused.message());
          }
        }
        boolean retry =
            refused != null
                || s == Status.NOT_LEADER
                || s == Status.BUSY
                || s == Status.DEADLINE_EXCEEDED
                || (!answered && s == Status.UNAVAILABLE);
        if (!retry || closed) {
          throw e;
        }
        tried++;
        if (System.nanoTime() - deadline >= 0) {
          throw StatusExceptions.toIOException(
              Status.UNAVAILABLE,
              method
                  + ": no MDS answered as leader within "
                  + failoverTimeout.toMillis()
                  + " ms (tried "
                  + addresses
                  + "); "
                  + (refusal != null && refused == null ? refusal.message() + "; " : "")
                  + "last: "
                  + e.getMessage(),
              e);
        }
        InetSocketAddress hinted = s == Status.NOT_LEADER ? hint(e) : null;
        if (s != Status.BUSY) {
          moveOn(target, hinted);
        }
        LOG.debug("{}: {} to {} failed ({}); next {}", rpc.name(), method, target, s, leader);
        // Hints are followed at once, but a round of as many attempts as addresses backs off:
        // standbys hinting at each other during an election must not spin.
        if (tried % addresses.size() == 0) {
          sleep(Math.min(backoff, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
          long cap =
              System.nanoTime() - start < FAILOVER_WINDOW_NANOS
                  ? FAILOVER_BACKOFF_MS
                  : MAX_BACKOFF_MS;
          backoff = Math.min(cap, backoff * 2);
        }
      }
    }
  }

  /** The client is closing: calls fail at once instead of retrying. */
  public void close() {
    closed = true;
  }

  /** Sends the next call to {@code address} first (tests; a restarted leader's new address). */
  public synchronized void moveTo(InetSocketAddress address) {
    leader = address;
  }

  /** After a failed attempt on {@code failed}: go to the hinted leader, else the next address. */
  private synchronized void moveOn(InetSocketAddress failed, @Nullable InetSocketAddress hinted) {
    if (!leader.equals(failed)) {
      return; // another caller already moved on
    }
    if (hinted != null) {
      leader = hinted;
      return;
    }
    next = (next + 1) % addresses.size();
    leader = addresses.get(next);
  }

  /**
   * Whether the connection was refused: a {@link ConnectException} behind the failure, as NIO and
   * epoll both raise (its words are the OS's, perhaps translated). Netty's connect timeout extends
   * it but is no refusal: a host that does not answer may be a paused MDS, waited for as usual.
   */
  static boolean connectionRefused(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ConnectException && !(c instanceof ConnectTimeoutException)) {
        return true;
      }
    }
    return false;
  }

  private static @Nullable InetSocketAddress hint(IOException e) {
    Optional<ErrorInfo> info = RemoteErrorInfo.of(e);
    if (info.isEmpty() || info.get().getLeaderHint().isBlank()) {
      return null;
    }
    try {
      return HostPort.parse(info.get().getLeaderHint()).toSocketAddress();
    } catch (IllegalArgumentException bad) {
      return null;
    }
  }

  private static void sleep(long millis) throws InterruptedIOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for an MDS leader");
    }
  }

  @Override
  public GetChunkLocationsResponse locations(GetChunkLocationsRequest request) throws IOException {
    return call(RpcMethod.GET_CHUNK_LOCATIONS, request);
  }

  @Override
  public AllocateChunkSetResponse allocate(AllocateChunkSetRequest request) throws IOException {
    return call(RpcMethod.ALLOCATE_CHUNK_SET, request);
  }

  @Override
  public ReplaceReplicaResponse replaceReplica(ReplaceReplicaRequest request) throws IOException {
    return call(RpcMethod.REPLACE_REPLICA, request);
  }

  @Override
  public UpdateLengthResponse updateLength(UpdateLengthRequest request) throws IOException {
    return call(RpcMethod.UPDATE_LENGTH, request);
  }

  @Override
  public CommitResponse commit(CommitRequest request) throws IOException {
    return call(RpcMethod.COMMIT, request);
  }

  @Override
  public void reportBadReplicas(List<BadReplica> replicas) {
    rpc.call(
            leader,
            RpcMethod.REPORT_BAD_REPLICA,
            ReportBadReplicaRequest.newBuilder().addAllReplicas(replicas).build())
        .whenComplete(
            (response, failure) -> {
              if (response != null) {
                response.close();
              } else {
                LOG.warn("{}: cannot report bad replicas: {}", rpc.name(), failure.toString());
              }
            });
  }
}
