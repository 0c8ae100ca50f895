package io.braidfs.client.internal.data;

import com.google.protobuf.ByteString;
import io.braidfs.client.DataPathOptions;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.proto.ChecksumChunkRequest;
import io.braidfs.proto.ChecksumChunkResponse;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ReplicaLocation;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Asks one replica of a chunk for the CRC32C of each piece of a prefix of the chunk (ChecksumChunk,
 * answered from the replica's stored block CRCs), asynchronously: the nearest healthy replica
 * first, the next one when a replica cannot be reached, answers an error, or answers with the wrong
 * shape. The caller sees an error only when every replica failed.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ChunkCrcFetcher {
  private final RpcClient rpc;
  private final ReplicaHealth health;
  private final DataPathOptions options;

  ChunkCrcFetcher(RpcClient rpc, ReplicaHealth health, DataPathOptions options) {
    this.rpc = rpc;
    this.health = health;
    this.options = options;
  }

  /**
   * The CRC32C of each {@code pieceSize}-byte piece of the chunk's bytes {@code [0, length)}, the
   * last piece possibly short. The future completes on an event loop; it fails with the last
   * replica's error (UNAVAILABLE if the chunk has no replica) when none answered.
   *
   * @throws IllegalArgumentException if {@code length} is not positive (0 would ask for the whole
   *     replica, which may hold more than the caller counts)
   */
  CompletableFuture<int[]> pieceCrcs(
      ChunkLocation chunk, ByteString token, long length, int pieceSize) {
    if (length <= 0) {
      throw new IllegalArgumentException("length must be > 0: " + length);
    }
    ChecksumChunkRequest request =
        ChecksumChunkRequest.newBuilder()
            .setChunk(chunk.getId())
            .setVersion(chunk.getVersion())
            .setLength(length)
            .setPieceSize(pieceSize)
            .setToken(token)
            .build();
    CompletableFuture<int[]> result = new CompletableFuture<>();
    attempt(request, health.order(chunk.getReplicasList()), 0, result, null);
    return result;
  }

  private void attempt(
      ChecksumChunkRequest request,
      List<ReplicaLocation> replicas,
      int i,
      CompletableFuture<int[]> result,
      @Nullable Throwable last) {
    if (i == replicas.size()) {
      String why = last == null ? "no replica" : String.valueOf(last.getMessage());
      Status status = last == null ? Status.UNAVAILABLE : StatusExceptions.statusOf(last);
      result.completeExceptionally(
          StatusExceptions.toIOException(
              status,
              "checksum of chunk "
                  + name(request)
                  + " failed on all "
                  + replicas.size()
                  + " replicas; last: "
                  + why,
              last));
      return;
    }
    ReplicaLocation replica = replicas.get(i);
    rpc.call(HostPort.of(replica), RpcMethod.CHECKSUM_CHUNK, request, null, options.callTimeout())
        .whenComplete(
            (response, failure) -> {
              Throwable error = failure;
              if (response != null) {
                try {
                  result.complete(checked(request, replica, response));
                  return;
                } catch (IOException e) {
                  error = e;
                }
              }
              health.failed(replica.getServerId());
              attempt(request, replicas, i + 1, result, error);
            });
  }

  /** The answer's CRCs if it covers exactly what was asked; releases the response. */
  private static int[] checked(
      ChecksumChunkRequest request,
      ReplicaLocation replica,
      RpcResponse<ChecksumChunkResponse> response)
      throws IOException {
    try (response) {
      ChecksumChunkResponse m = response.message();
      long pieces = (request.getLength() + request.getPieceSize() - 1) / request.getPieceSize();
      if (m.getLength() != request.getLength() || m.getPieceCrcsCount() != pieces) {
        throw StatusExceptions.toIOException(
            Status.INTERNAL,
            "replica of chunk "
                + name(request)
                + " on "
                + replica.getHost()
                + ":"
                + replica.getPort()
                + " answered "
                + m.getPieceCrcsCount()
                + " CRCs over "
                + m.getLength()
                + " bytes for "
                + pieces
                + " pieces over "
                + request.getLength());
      }
      int[] crcs = new int[m.getPieceCrcsCount()];
      for (int p = 0; p < crcs.length; p++) {
        crcs[p] = m.getPieceCrcs(p);
      }
      return crcs;
    }
  }

  private static String name(ChecksumChunkRequest request) {
    return request.getChunk().getInodeId()
        + ":"
        + Integer.toUnsignedString(request.getChunk().getChunkIndex());
  }
}
