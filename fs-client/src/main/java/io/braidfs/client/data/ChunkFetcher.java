package io.braidfs.client.data;

import com.google.protobuf.ByteString;
import io.braidfs.common.checksum.ChecksumMismatch;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.proto.BadReplica;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.ReadChunkResponse;
import io.braidfs.proto.ReplicaLocation;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a byte range of one chunk from one of its replicas, asynchronously: the nearest healthy
 * replica first, the next one when a replica cannot be reached, answers an error, or sends bytes
 * that fail their CRC32C (which is also reported to the MDS). The caller sees an error only when
 * every replica failed.
 *
 * <p>Bytes past the chunk's committed length are not fetched: they are a hole or a cut tail, and
 * read as zeros.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ChunkFetcher {
  private final RpcClient rpc;
  private final ChunkService mds;
  private final ReplicaHealth health;
  private final DataPathOptions options;

  ChunkFetcher(RpcClient rpc, ChunkService mds, ReplicaHealth health, DataPathOptions options) {
    this.rpc = rpc;
    this.mds = mds;
    this.health = health;
    this.options = options;
  }

  /**
   * The bytes {@code [offset, offset + length)} of the chunk, cut at its committed length (the
   * caller fills the rest with zeros). The future's buffer belongs to the caller; it completes on
   * an event loop.
   */
  CompletableFuture<ByteBuf> fetch(ChunkLocation chunk, ByteString token, long offset, int length) {
    long want = Math.min(length, chunk.getLength() - offset);
    if (want <= 0 || chunk.getReplicasCount() == 0) {
      return CompletableFuture.completedFuture(Unpooled.EMPTY_BUFFER);
    }
    ReadChunkRequest request =
        ReadChunkRequest.newBuilder()
            .setChunk(chunk.getId())
            .setVersion(chunk.getVersion())
            .setOffset(offset)
            .setLength((int) want)
            .setToken(token)
            .build();
    CompletableFuture<ByteBuf> result = new CompletableFuture<>();
    attempt(request, health.order(chunk.getReplicasList()), 0, result, null);
    return result;
  }

  private void attempt(
      ReadChunkRequest request,
      List<ReplicaLocation> replicas,
      int i,
      CompletableFuture<ByteBuf> result,
      @org.jspecify.annotations.Nullable Throwable last) {
    if (i == replicas.size()) {
      String why = last == null ? "no replica" : String.valueOf(last.getMessage());
      Status status = last == null ? Status.UNAVAILABLE : StatusExceptions.statusOf(last);
      result.completeExceptionally(
          StatusExceptions.toIOException(
              status,
              "read of chunk "
                  + request.getChunk().getInodeId()
                  + ":"
                  + Integer.toUnsignedString(request.getChunk().getChunkIndex())
                  + " failed on all "
                  + replicas.size()
                  + " replicas; last: "
                  + why,
              last));
      return;
    }
    ReplicaLocation replica = replicas.get(i);
    InetSocketAddress address = HostPort.of(replica);
    rpc.call(address, RpcMethod.READ_CHUNK, request, null, options.callTimeout())
        .whenComplete(
            (response, failure) -> {
              Throwable error = failure;
              if (response != null) {
                try {
                  result.complete(verified(request, replica, response));
                  return;
                } catch (IOException e) {
                  error = e;
                }
              }
              health.failed(replica.getServerId());
              attempt(request, replicas, i + 1, result, error);
            });
  }

  /** The requested bytes of a response, after checking every block; releases the response. */
  private ByteBuf verified(
      ReadChunkRequest request, ReplicaLocation replica, RpcResponse<ReadChunkResponse> response)
      throws IOException {
    try (response) {
      ReadChunkResponse m = response.message();
      ByteBuf data = response.payload();
      long first = m.getFirstBlockOffset();
      long skip = request.getOffset() - first;
      int[] crcs = m.getChecksumsList().stream().mapToInt(Integer::intValue).toArray();
      if (skip < 0
          || first % Checksums.BLOCK_SIZE != 0
          || data.readableBytes() < skip + request.getLength()
          || crcs.length != Checksums.blockCount(data.readableBytes())) {
        throw bad(
            request,
            replica,
            first,
            "short or misshapen answer: "
                + data.readableBytes()
                + " bytes from "
                + first
                + " with "
                + crcs.length
                + " CRCs");
      }
      Optional<ChecksumMismatch> mismatch = Checksums.verify(data, first, crcs);
      if (mismatch.isPresent()) {
        throw bad(request, replica, mismatch.get().offset(), "CRC32C mismatch: " + mismatch.get());
      }
      return data.retainedSlice(data.readerIndex() + (int) skip, request.getLength());
    }
  }

  private IOException bad(
      ReadChunkRequest request, ReplicaLocation replica, long offset, String reason) {
    mds.reportBadReplicas(
        List.of(
            BadReplica.newBuilder()
                .setChunk(request.getChunk())
                .setVersion(request.getVersion())
                .setServerId(replica.getServerId())
                .setOffset(offset)
                .setReason(reason)
                .build()));
    return StatusExceptions.toIOException(
        Status.CHECKSUM_MISMATCH,
        "replica of chunk "
            + request.getChunk().getInodeId()
            + ":"
            + Integer.toUnsignedString(request.getChunk().getChunkIndex())
            + " on "
            + replica.getHost()
            + ":"
            + replica.getPort()
            + " is bad: "
            + reason);
  }
}
