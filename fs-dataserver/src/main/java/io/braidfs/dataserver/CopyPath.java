package io.braidfs.dataserver;

import io.braidfs.common.checksum.ChecksumMismatch;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.CopyChunkResponse;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.ReadChunkResponse;
import io.braidfs.proto.ReplicaState;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CopyChunk: builds a replica here by reading it from other data servers, piece by piece, each
 * piece verified against the source's stored CRCs before it is written. Used by a writer to seed
 * the replacement of a replica that failed mid-write, and by the MDS to add replicas of closed
 * chunks when a file's replication is raised ({@code finalize} set, a WRITE token for the MDS's own
 * client). The reads are asynchronous; only the disk writes occupy the chunk's disk thread. A copy
 * that cannot finish deletes what it wrote.
 *
 * <p>The MDS's copies (re-replication) go through the {@link CopyThrottle}: a limited number at
 * once, at a limited rate, so foreground I/O keeps going. A writer's seeding copy (a token, no MDS
 * epoch) is not throttled: the writer waits for it. A copy that cannot fit is refused with NO_SPACE
 * before any byte is fetched; one that runs out of space on the way ends at once with NO_SPACE,
 * naming this server, and leaves nothing behind. A replica here that is corrupt is replaced.
 *
 * <p>Thread-safety: thread-safe.
 */
final class CopyPath {
  private static final Logger LOG = LoggerFactory.getLogger(CopyPath.class);

  /** Bytes read from a source per request (a multiple of the 64 KiB block). */
  static final int PIECE = 4 << 20;

  private final DataContext ctx;

  CopyPath(DataContext ctx) {
    this.ctx = ctx;
  }

  void copy(ServerCall<CopyChunkRequest, CopyChunkResponse> call) {
    CopyChunkRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    try {
      // Refused at once rather than after waiting for a throttle slot; admitted again on the disk
      // thread, where a newer epoch is persisted.
      ctx.fence.check(req.getMdsEpoch(), "CopyChunk of chunk " + key);
    } catch (IOException stale) {
      Replies.fail(ctx.id, call, stale, ctx.selfId());
      return;
    }
    if (!throttled(req)) {
      ctx.onDisk(call, key, () -> begin(call, key, false));
      return;
    }
    ctx.copyThrottle.acquire(() -> startThrottled(call, key));
  }

  /** Whether the copy is re-replication (throttled) rather than a writer's seeding copy. */
  static boolean throttled(CopyChunkRequest req) {
    return req.getMdsEpoch() != 0 || req.getToken().isEmpty();
  }

  /** Starts a throttled copy that has its slot; the slot is released unless a run took it. */
  private void startThrottled(ServerCall<CopyChunkRequest, CopyChunkResponse> call, ChunkKey key) {
    if (call.deadlinePassed()) {
      ctx.copyThrottle.release(); // the MDS gave up on it while it waited; it asks again
      call.fail(Status.DEADLINE_EXCEEDED, ctx.id + ": copy of chunk " + key + " waited too long");
      return;
    }
    try {
      ctx.onDisk(
          call,
          key,
          () -> {
            boolean running = false;
            try {
              running = begin(call, key, true);
            } finally {
              if (!running) {
                ctx.copyThrottle.release();
              }
            }
          });
    } catch (RejectedExecutionException closing) {
      ctx.copyThrottle.release();
      call.fail(Status.UNAVAILABLE, ctx.id + ": the server is closing");
    }
  }

  /**
   * Checks the copy and starts fetching, on the chunk's disk thread.
   *
   * @return whether a run now owns the copy (and its throttle slot, if {@code throttled})
   */
  private boolean begin(
      ServerCall<CopyChunkRequest, CopyChunkResponse> call, ChunkKey key, boolean throttled)
      throws IOException {
    CopyChunkRequest req = call.request();
    // Checked only: the epoch a request names is not proven (its token is checked later), so it
    // must not raise what this server saves; MDS answers do that (MdsLink).
    ctx.fence.check(req.getMdsEpoch(), "CopyChunk of chunk " + key);
    Admission.Grant grant =
        ctx.admission.mayCreate(call.caller(), key, req.getToken(), CapabilityToken.WRITE);
    Replica old = grant.replica();
    if (req.getSourcesCount() == 0) {
      throw StatusExceptions.toIOException(
          Status.INVALID_ARGUMENT, ctx.id + ": copy of chunk " + key + " names no source");
    }
    boolean corrupt = old != null && old.state() == ReplicaState.REPLICA_STATE_CORRUPT;
    if (old != null
        && !corrupt
        && old.version() == req.getVersion()
        && old.length() >= req.getLength()) {
      finish(call, old); // a retried copy that already completed
      return false;
    }
    if (old != null) {
      if (old.version() > req.getVersion()) {
        ctx.admission.requireVersion(old, req.getVersion(), "copy");
      }
      // A stale replica, an unfinished copy, or a corrupt replica being repaired.
      ctx.store.delete(key, old.version());
    }
    Replica r =
        ctx.store.create(key, req.getVersion(), grant.token().fileGeneration(), req.getLength());
    ctx.activeTransfers.incrementAndGet();
    new Run(call, r, throttled).next(0);
    return true;
  }

  private void finish(ServerCall<CopyChunkRequest, CopyChunkResponse> call, Replica r)
      throws IOException {
    CopyChunkRequest req = call.request();
    if (req.getFinalize()) {
      r.finalizeAt(req.getVersion(), req.getLength());
      ctx.reports.finalized(r);
    } else {
      r.sync();
    }
    call.reply(CopyChunkResponse.newBuilder().setLength(req.getLength()).build());
  }

  /** One copy in progress: the next offset to fetch and the source being read. */
  private final class Run {
    private final ServerCall<CopyChunkRequest, CopyChunkResponse> call;
    private final Replica replica;
    private final boolean throttled;
    private int source;

    Run(ServerCall<CopyChunkRequest, CopyChunkResponse> call, Replica replica, boolean throttled) {
      this.call = call;
      this.replica = replica;
      this.throttled = throttled;
    }

    /**
     * Fetches the piece at {@code offset}, when the copy bandwidth allows if throttled; any failure
     * to even send ends the copy.
     */
    void next(long offset) {
      long want = Math.min(PIECE, call.request().getLength() - offset);
      if (throttled && want > 0) {
        ctx.copyThrottle.pace(want, () -> fetchOrEnd(offset));
      } else {
        fetchOrEnd(offset);
      }
    }

    private void fetchOrEnd(long offset) {
      try {
        fetch(offset);
      } catch (RuntimeException e) {
        end(e);
      }
    }

    /** Ends the copy with a failure on the chunk's disk thread (here, if the server is closing). */
    private void end(Throwable failure) {
      try {
        ctx.workers.execute(replica.key(), () -> done(failure));
      } catch (RuntimeException rejected) {
        done(failure);
      }
    }

    private void fetch(long offset) {
      CopyChunkRequest req = call.request();
      if (offset >= req.getLength()) {
        ctx.workers.execute(replica.key(), () -> done(null));
        return;
      }
      int want = (int) Math.min(PIECE, req.getLength() - offset);
      ReadChunkRequest read =
          ReadChunkRequest.newBuilder()
              .setChunk(req.getChunk())
              .setVersion(req.getVersion())
              .setOffset(offset)
              .setLength(want)
              .setToken(req.getSourceToken())
              .build();
      ctx.peers
          .call(
              HostPort.of(req.getSources(source)),
              RpcMethod.READ_CHUNK,
              read,
              null,
              ctx.peerTimeout)
          .whenComplete(
              (response, failure) -> {
                if (failure != null) {
                  retry(offset, failure);
                } else {
                  try {
                    ctx.workers.execute(replica.key(), () -> store(offset, want, response));
                  } catch (RuntimeException e) { // rejected: the server is closing
                    response.close();
                    done(e);
                  }
                }
              });
    }

    private void store(long offset, int want, RpcResponse<ReadChunkResponse> response) {
      try (response) {
        ByteBuf data = response.payload();
        ReadChunkResponse m = response.message();
        int[] crcs = m.getChecksumsList().stream().mapToInt(Integer::intValue).toArray();
        if (m.getFirstBlockOffset() != offset || data.readableBytes() < want) {
          throw StatusExceptions.toIOException(
              Status.OUT_OF_RANGE,
              "source holds " + (m.getFirstBlockOffset() + data.readableBytes()) + " bytes");
        }
        Optional<ChecksumMismatch> bad =
            crcs.length == Checksums.blockCount(data.readableBytes())
                ? Checksums.verify(data, offset, crcs)
                : Optional.of(new ChecksumMismatch(0, offset, 0, 0));
        if (bad.isPresent()) {
          throw StatusExceptions.toIOException(
              Status.CHECKSUM_MISMATCH, "source sent corrupt data: " + bad.get());
        }
        ByteBuf piece = data.slice(data.readerIndex(), want);
        try {
          replica.write(offset, piece, Checksums.pieceCrcs(piece, offset));
        } catch (IOException | RuntimeException e) {
          done(e); // this server's own failure (a full disk, say): no other source helps
          return;
        }
      } catch (IOException | RuntimeException e) {
        retry(offset, e);
        return;
      }
      next(offset + want);
    }

    private void retry(long offset, Throwable failure) {
      CopyChunkRequest req = call.request();
      LOG.debug(
          "{}: copy of chunk {} from {} failed at {}: {}",
          ctx.id,
          replica.key(),
          req.getSources(source).getHost(),
          offset,
          failure.toString());
      if (++source < req.getSourcesCount()) {
        next(offset);
      } else {
        end(failure);
      }
    }

    private void done(@Nullable Throwable failure) {
      ctx.activeTransfers.decrementAndGet();
      if (throttled) {
        ctx.copyThrottle.release();
      }
      try {
        if (failure == null) {
          finish(call, replica);
          return;
        }
      } catch (IOException | RuntimeException e) {
        failure = e;
      }
      try {
        ctx.store.delete(replica.key(), replica.version());
      } catch (IOException e) {
        failure.addSuppressed(e);
      }
      Replies.fail(ctx.id, call, failure, ctx.selfId());
    }
  }
}
