package io.braidfs.dataserver;

import io.braidfs.common.checksum.ChecksumMismatch;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.AckLevel;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.FinalizeChunkResponse;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.ReplicaState;
import io.braidfs.proto.SyncChunkRequest;
import io.braidfs.proto.SyncChunkResponse;
import io.braidfs.proto.TruncateChunkRequest;
import io.braidfs.proto.TruncateChunkResponse;
import io.braidfs.proto.WriteChunkRequest;
import io.braidfs.proto.WriteChunkResponse;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToLongFunction;

/**
 * The write chain: WriteChunk, SyncChunk and FinalizeChunk pass from the client to the first
 * replica and on down the chain, and TruncateChunk moves one replica to a new version.
 *
 * <p>Each hop verifies the data's checksums before anything else, then forwards the request to the
 * next hop (so the hops work in parallel), applies it locally, and answers once its own work and
 * the rest of the chain's are done: an acknowledgement means every replica down the chain has the
 * data at the requested level. Everything for one chunk runs on that chunk's disk thread, so
 * requests are applied and forwarded in the order they arrived.
 *
 * <p>Thread-safety: thread-safe.
 */
final class WritePath {
  private final DataContext ctx;
  private final ChunkIoCounters counters;

  WritePath(DataContext ctx, ChunkIoCounters counters) {
    this.ctx = ctx;
    this.counters = counters;
  }

  /** WriteChunk, inline on the event loop: takes the payload and moves to the chunk's thread. */
  void write(ServerCall<WriteChunkRequest, WriteChunkResponse> call) {
    ChunkKey key = ChunkKey.of(call.request().getChunk());
    ByteBuf data = call.takePayload();
    ctx.onDisk(
        call,
        key,
        () -> {
          try {
            write(call, key, data);
          } finally {
            data.release();
          }
        });
  }

  private void write(
      ServerCall<WriteChunkRequest, WriteChunkResponse> call, ChunkKey key, ByteBuf data)
      throws IOException {
    WriteChunkRequest req = call.request();
    int[] crcs = checkWrite(req, key, data);
    Admission.Grant grant =
        ctx.admission.mayCreate(call.caller(), key, req.getToken(), CapabilityToken.WRITE);
    CapabilityToken token = grant.token();
    Replica r = grant.replica();
    Optional<ChecksumMismatch> bad = Checksums.verifyPieces(data, req.getOffset(), crcs);
    if (bad.isPresent()) {
      throw StatusExceptions.toIOException(
          Status.CHECKSUM_MISMATCH,
          ctx.id + ": write to chunk " + key + " arrived corrupt: " + bad.get());
    }
    if (r != null && r.version() < req.getVersion() && r.generation() < token.fileGeneration()) {
      // The file was truncated since this replica was written and the MDS released the chunk and
      // allocated it again under a newer version; the old replica only awaits its deletion.
      ctx.store.delete(key, r.version());
      r = null;
    }
    if (r == null && ctx.store.lostWhileWriting(key, req.getVersion())) {
      // Creating it anew would hold zeros where the lost bytes were, and look whole.
      throw StatusExceptions.toIOException(
          Status.NOT_FOUND,
          ctx.id + ": the replica of chunk " + key + " was lost with its failed data dir");
    }
    if (r == null) {
      r = ctx.store.create(key, req.getVersion(), token.fileGeneration());
    } else {
      ctx.admission.requireVersion(r, req.getVersion(), "write");
      r.raiseGeneration(token.fileGeneration());
    }
    CompletableFuture<Long> rest =
        forward(
            req.getDownstreamList(),
            d -> req.toBuilder().clearDownstream().addAllDownstream(d).build(),
            RpcMethod.WRITE_CHUNK,
            data.retainedDuplicate(),
            WriteChunkResponse::getChunkLength);
    // If the local write fails, the chain's answer is closed unread (forward's thenApply).
    long local = r.write(req.getOffset(), data, crcs);
    counters.wrote(req.getLength());
    if (req.getAckLevel() == AckLevel.ACK_LEVEL_ON_DISK) {
      r.sync();
    }
    answer(
        call,
        req.getDownstreamList(),
        rest,
        down -> WriteChunkResponse.newBuilder().setChunkLength(local).build());
  }

  private int[] checkWrite(WriteChunkRequest req, ChunkKey key, ByteBuf data) throws IOException {
    String what = ctx.id + ": write to chunk " + key;
    if (req.getLength() != data.readableBytes()) {
      throw invalid(
          what + " says " + req.getLength() + " bytes but carries " + data.readableBytes());
    }
    if (req.getAckLevel() == AckLevel.ACK_LEVEL_UNSPECIFIED
        || req.getAckLevel() == AckLevel.UNRECOGNIZED) {
      throw invalid(what + " has no acknowledgement level");
    }
    if (req.getOffset() > Layout.MAX_CHUNK_SIZE - req.getLength()) {
      throw StatusExceptions.toIOException(
          Status.OUT_OF_RANGE,
          what + " at offset " + req.getOffset() + " ends past the largest chunk size");
    }
    long pieces = Checksums.pieceCount(req.getOffset(), req.getLength());
    if (req.getChecksumsCount() != pieces) {
      throw invalid(
          what + " carries " + req.getChecksumsCount() + " checksums for " + pieces + " pieces");
    }
    int[] crcs = new int[req.getChecksumsCount()];
    for (int i = 0; i < crcs.length; i++) {
      crcs[i] = req.getChecksums(i);
    }
    return crcs;
  }

  /** SyncChunk: forces the chunk to disk here and down the chain. */
  void sync(ServerCall<SyncChunkRequest, SyncChunkResponse> call) {
    SyncChunkRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    ctx.onDisk(
        call,
        key,
        () -> {
          Replica r =
              ctx.admission.atVersion(
                  call.caller(),
                  key,
                  req.getToken(),
                  WritePath::syncMode,
                  req.getVersion(),
                  "sync");
          CompletableFuture<Long> rest =
              forward(
                  req.getDownstreamList(),
                  d -> req.toBuilder().clearDownstream().addAllDownstream(d).build(),
                  RpcMethod.SYNC_CHUNK,
                  null,
                  SyncChunkResponse::getSyncedLength);
          long local = r.sync();
          answer(
              call,
              req.getDownstreamList(),
              rest,
              down ->
                  SyncChunkResponse.newBuilder().setSyncedLength(Math.min(local, down)).build());
        });
  }

  /** FinalizeChunk: closes the chunk at its final length here and down the chain. */
  void finalizeChunk(ServerCall<FinalizeChunkRequest, FinalizeChunkResponse> call) {
    FinalizeChunkRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    ctx.onDisk(
        call,
        key,
        () -> {
          Replica r =
              ctx.admission.atVersion(
                  call.caller(),
                  key,
                  req.getToken(),
                  CapabilityToken.WRITE,
                  req.getVersion(),
                  "request");
          CompletableFuture<Long> rest =
              forward(
                  req.getDownstreamList(),
                  d -> req.toBuilder().clearDownstream().addAllDownstream(d).build(),
                  RpcMethod.FINALIZE_CHUNK,
                  null,
                  FinalizeChunkResponse::getLength);
          r.finalizeAt(req.getVersion(), req.getLength(), !req.getSkipSync());
          ctx.reports.finalized(r);
          answer(
              call,
              req.getDownstreamList(),
              rest,
              down -> FinalizeChunkResponse.newBuilder().setLength(req.getLength()).build());
        });
  }

  /**
   * TruncateChunk from a writer: cuts this replica to the acknowledged length at a new version.
   * Idempotent. A token is required; one that also names an MDS epoch (an MDS command) is refused
   * if the epoch is older than the highest this server has seen.
   */
  void truncate(ServerCall<TruncateChunkRequest, TruncateChunkResponse> call) {
    TruncateChunkRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    ctx.onDisk(
        call,
        key,
        () -> {
          ctx.fence.check(req.getMdsEpoch(), "TruncateChunk of chunk " + key);
          Replica r =
              ctx.admission.existing(call.caller(), key, req.getToken(), CapabilityToken.WRITE);
          if (req.getNewVersion() < req.getVersion()) {
            throw invalid(ctx.id + ": truncate of chunk " + key + " to an older version");
          }
          boolean done = r.version() == req.getNewVersion() && r.length() == req.getLength();
          if (!done) {
            ctx.admission.requireVersion(r, req.getVersion(), "truncate");
            r.truncate(req.getNewVersion(), req.getLength());
            ctx.reports.finalized(r);
          }
          call.reply(
              TruncateChunkResponse.newBuilder()
                  .setLength(r.length())
                  .setVersion(r.version())
                  .build());
        });
  }

  /**
   * The mode a SyncChunk needs: a finished replica may be forced by a reader, as that changes no
   * data (fsync(2) of a file opened read-only, or after a close that left the data in the page
   * cache).
   */
  private static int syncMode(Replica r) {
    return r.state() == ReplicaState.REPLICA_STATE_FINALIZED
        ? CapabilityToken.READ
        : CapabilityToken.WRITE;
  }

  /**
   * Sends the request on to the next hop with the rest of the chain, or completes at once with
   * {@code Long.MAX_VALUE} at the tail. The future holds what {@code result} reads from the next
   * hop's answer.
   */
  private <Q extends com.google.protobuf.Message, R extends com.google.protobuf.Message>
      CompletableFuture<Long> forward(
          List<ReplicaLocation> chain,
          java.util.function.Function<List<ReplicaLocation>, Q> request,
          RpcMethod<Q, R> method,
          @org.jspecify.annotations.Nullable ByteBuf payload,
          ToLongFunction<R> result) {
    if (chain.isEmpty()) {
      if (payload != null) {
        payload.release();
      }
      return CompletableFuture.completedFuture(Long.MAX_VALUE);
    }
    InetSocketAddress to;
    Q next;
    try {
      to = HostPort.of(chain.get(0));
      next = request.apply(chain.subList(1, chain.size()));
    } catch (RuntimeException e) {
      if (payload != null) {
        payload.release();
      }
      return CompletableFuture.failedFuture(
          StatusExceptions.toIOException(
              Status.INVALID_ARGUMENT, ctx.id + ": bad next hop " + chain.get(0) + ": " + e, e));
    }
    // The deeper a hop, the sooner it gives up on the next one: a hung tail then times out at the
    // hop in front of it, which names the tail, before any hop further up blames its own next.
    int rest = chain.size();
    Duration timeout = ctx.peerTimeout.multipliedBy(rest).dividedBy(rest + 1);
    return ctx.peers
        .call(to, method, next, payload, timeout)
        .thenApply(
            (RpcResponse<R> response) -> {
              try (response) {
                return result.applyAsLong(response.message());
              }
            });
  }

  /** Answers once the rest of the chain has answered: OK with {@code ok}, or its failure. */
  private static <R extends com.google.protobuf.Message> void answer(
      ServerCall<?, R> call,
      List<ReplicaLocation> chain,
      CompletableFuture<Long> rest,
      java.util.function.LongFunction<R> ok) {
    rest.whenComplete(
        (down, failure) -> {
          if (failure != null) {
            Replies.failDownstream(call, failure, chain.get(0));
          } else {
            call.reply(ok.apply(down));
          }
        });
  }

  private static IOException invalid(String message) {
    return StatusExceptions.toIOException(Status.INVALID_ARGUMENT, message);
  }
}
