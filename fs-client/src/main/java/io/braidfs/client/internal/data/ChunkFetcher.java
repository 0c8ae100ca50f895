package io.braidfs.client.internal.data;

import com.google.protobuf.ByteString;
import io.braidfs.client.DataPathOptions;
import io.braidfs.common.checksum.ChecksumMismatch;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
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
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * Reads a byte range of one chunk from one of its replicas, asynchronously: the nearest healthy
 * replica first, the next one when a replica cannot be reached, answers an error, or sends bytes
 * that fail their CRC32C (which is also reported to the MDS). The caller sees an error only when
 * every replica failed. A nearest replica on this host is read from its file first ({@link
 * LocalReplicas}), when that is enabled and possible.
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
  private final LocalReplicas local;

  ChunkFetcher(
      RpcClient rpc,
      ChunkService mds,
      ReplicaHealth health,
      DataPathOptions options,
      LocalReplicas local) {
    this.rpc = rpc;
    this.mds = mds;
    this.health = health;
    this.options = options;
    this.local = local;
  }

  /**
   * The bytes {@code [offset, offset + length)} of the chunk, cut at its committed length (the
   * caller fills the rest with zeros). The future's buffer belongs to the caller; it completes on
   * an event loop.
   */
  CompletableFuture<ByteBuf> fetch(ChunkLocation chunk, ByteString token, long offset, int length) {
    ReadChunkRequest request = request(chunk, token, offset, length);
    if (request == null) {
      return CompletableFuture.completedFuture(Unpooled.EMPTY_BUFFER);
    }
    List<ReplicaLocation> replicas = health.order(chunk.getReplicasList());
    ByteBuf bytes = local.read(replicas.get(0), request);
    if (bytes != null) {
      return CompletableFuture.completedFuture(bytes);
    }
    CompletableFuture<ByteBuf> result = new CompletableFuture<>();
    attempt(request, replicas, 0, result, null);
    return result;
  }

  /**
   * As {@link #fetch}, but the answer's blocks are verified by {@link #take} on the caller's thread
   * rather than on the event loop, which then only moves bytes: a reader that waits for its pieces
   * anyway checks them on its own core. With {@code tryLocal}, a replica on this host is read from
   * its file first. Completes with null when there is nothing to fetch (a hole or a cut tail); an
   * answer not taken must be {@link Answer#release released}.
   */
  CompletableFuture<@Nullable Answer> fetchUnverified(
      ChunkLocation chunk, ByteString token, long offset, int length, boolean tryLocal) {
    ReadChunkRequest request = request(chunk, token, offset, length);
    if (request == null) {
      return CompletableFuture.completedFuture(null);
    }
    List<ReplicaLocation> replicas = health.order(chunk.getReplicasList());
    ByteBuf bytes = tryLocal ? local.read(replicas.get(0), request) : null;
    if (bytes != null) {
      return CompletableFuture.completedFuture(new Answer(request, replicas, 0, null, bytes));
    }
    CompletableFuture<@Nullable Answer> result = new CompletableFuture<>();
    attemptUnverified(request, replicas, 0, result, null);
    return result;
  }

  /**
   * Reads {@code [offset, offset + length)} of the chunk from a replica on this host straight into
   * {@code dst[index, index + length)}, verified in place, with zeros past the chunk's committed
   * length. The calling thread does the reading.
   *
   * @return {@link LocalReplicas#IN_PLACE}; or {@link LocalReplicas#ASIDE} or {@link
   *     LocalReplicas#NETWORK} (that part of {@code dst} may then hold garbage), and the caller
   *     fetches the range with {@link #fetchUnverified}, saying whether it may try a local replica
   */
  int readLocal(
      ChunkLocation chunk, ByteString token, long offset, int length, ByteBuf dst, int index) {
    ReadChunkRequest request = request(chunk, token, offset, length);
    if (request == null) {
      return LocalReplicas.ASIDE; // a hole or a cut tail: nothing to read
    }
    int how = local.readInto(health.order(chunk.getReplicasList()).get(0), request, dst, index);
    if (how == LocalReplicas.IN_PLACE) {
      dst.setZero(index + request.getLength(), length - request.getLength());
    }
    return how;
  }

  /**
   * The verified bytes of {@code answer} (null: empty), checked on this thread; releases the
   * answer. A replica whose bytes fail their CRC32C is reported and the remaining replicas are
   * tried, this thread waiting for them.
   *
   * @throws IOException if no remaining replica could serve the range
   */
  ByteBuf take(@Nullable Answer answer) throws IOException {
    if (answer == null) {
      return Unpooled.EMPTY_BUFFER;
    }
    if (answer.local != null) {
      return answer.local; // verified as it was read
    }
    CompletableFuture<ByteBuf> bytes = new CompletableFuture<>();
    verifyOrNext(answer, bytes); // complete at once unless the bytes were bad
    try {
      return bytes.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      bytes.thenAccept(ByteBuf::release);
      throw new InterruptedIOException(
          "read of chunk "
              + answer.request.getChunk().getInodeId()
              + ":"
              + Integer.toUnsignedString(answer.request.getChunk().getChunkIndex())
              + " interrupted");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  /**
   * A replica's answer: a response over the network, its blocks not yet verified, or bytes read and
   * verified from a local replica's file (exactly one of the two).
   */
  static final class Answer {
    private final ReadChunkRequest request;
    private final List<ReplicaLocation> replicas;
    private final int index;
    private final @Nullable RpcResponse<ReadChunkResponse> response;
    private final @Nullable ByteBuf local;

    private Answer(
        ReadChunkRequest request,
        List<ReplicaLocation> replicas,
        int index,
        @Nullable RpcResponse<ReadChunkResponse> response,
        @Nullable ByteBuf local) {
      this.request = request;
      this.replicas = replicas;
      this.index = index;
      this.response = response;
      this.local = local;
    }

    /** Releases the answer's bytes without reading them. */
    void release() {
      if (response != null) {
        response.close();
      }
      if (local != null) {
        local.release();
      }
    }
  }

  private @Nullable ReadChunkRequest request(
      ChunkLocation chunk, ByteString token, long offset, int length) {
    long want = Math.min(length, chunk.getLength() - offset);
    if (want <= 0 || chunk.getReplicasCount() == 0) {
      return null;
    }
    return ReadChunkRequest.newBuilder()
        .setChunk(chunk.getId())
        .setVersion(chunk.getVersion())
        .setOffset(offset)
        .setLength((int) want)
        .setToken(token)
        .build();
  }

  private void attemptUnverified(
      ReadChunkRequest request,
      List<ReplicaLocation> replicas,
      int i,
      CompletableFuture<@Nullable Answer> result,
      @Nullable Throwable last) {
    if (i == replicas.size()) {
      result.completeExceptionally(allFailed(request, replicas, last));
      return;
    }
    ReplicaLocation replica = replicas.get(i);
    rpc.call(HostPort.of(replica), RpcMethod.READ_CHUNK, request, null, options.callTimeout())
        .whenComplete(
            (response, failure) -> {
              if (response != null) {
                if (!result.complete(new Answer(request, replicas, i, response, null))) {
                  response.close();
                }
                return;
              }
              health.failed(replica.getServerId());
              attemptUnverified(request, replicas, i + 1, result, failure);
            });
  }

  private static IOException allFailed(
      ReadChunkRequest request, List<ReplicaLocation> replicas, @Nullable Throwable last) {
    String why = last == null ? "no replica" : String.valueOf(last.getMessage());
    Status status = last == null ? Status.UNAVAILABLE : StatusExceptions.statusOf(last);
    return StatusExceptions.toIOException(
        status,
        "read of chunk "
            + request.getChunk().getInodeId()
            + ":"
            + Integer.toUnsignedString(request.getChunk().getChunkIndex())
            + " failed on all "
            + replicas.size()
            + " replicas; last: "
            + why,
        last);
  }

  /** As {@link #attemptUnverified}, then verified where the answer arrives (an event loop). */
  private void attempt(
      ReadChunkRequest request,
      List<ReplicaLocation> replicas,
      int i,
      CompletableFuture<ByteBuf> result,
      @Nullable Throwable last) {
    CompletableFuture<@Nullable Answer> answer = new CompletableFuture<>();
    attemptUnverified(request, replicas, i, answer, last);
    answer.whenComplete(
        (a, failure) -> {
          if (failure != null) {
            result.completeExceptionally(failure);
          } else {
            verifyOrNext(a, result);
          }
        });
  }

  /**
   * Completes {@code result} with the verified bytes of {@code answer}, or, when they fail their
   * CRC32C (reported to the MDS), with what the remaining replicas give; releases the answer.
   */
  private void verifyOrNext(Answer answer, CompletableFuture<ByteBuf> result) {
    verifyOrNext(answer, result, false);
  }

  /**
   * As {@link #verifyOrNext(Answer, CompletableFuture)}; {@code confirming} when {@code answer} is
   * the second read of a replica whose first answer failed its CRC32C. A write racing a read on the
   * data server can pair new bytes with the CRCs of the old ones, so a mismatch is read once more
   * before the replica is reported bad: a replica that answers right the second time is good.
   */
  private void verifyOrNext(Answer answer, CompletableFuture<ByteBuf> result, boolean confirming) {
    ReplicaLocation replica = answer.replicas.get(answer.index);
    try {
      result.complete(
          verified(
              answer.request, replica, Objects.requireNonNull(answer.response, "network answer")));
    } catch (BadReplicaException e) {
      if (!confirming) {
        CompletableFuture<@Nullable Answer> again = new CompletableFuture<>();
        attemptUnverified(answer.request, answer.replicas, answer.index, again, e);
        again.whenComplete(
            (a, failure) -> {
              if (failure != null) {
                result.completeExceptionally(failure);
              } else {
                verifyOrNext(a, result, a.index == answer.index);
              }
            });
        return;
      }
      mds.reportBadReplicas(List.of(e.report));
      health.failed(replica.getServerId());
      attempt(answer.request, answer.replicas, answer.index + 1, result, e);
    }
  }

  /**
   * A replica's answer that failed its checks (CHECKSUM_MISMATCH), with the report the MDS is sent
   * if a second read confirms it.
   */
  private static final class BadReplicaException extends IOException implements StatusException {
    private static final long serialVersionUID = 1L;

    final transient BadReplica report;

    BadReplicaException(String message, BadReplica report) {
      super(message);
      this.report = report;
    }

    @Override
    public Status status() {
      return Status.CHECKSUM_MISMATCH;
    }
  }

  /** The requested bytes of a response, after checking every block; releases the response. */
  private ByteBuf verified(
      ReadChunkRequest request, ReplicaLocation replica, RpcResponse<ReadChunkResponse> response)
      throws BadReplicaException {
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

  private BadReplicaException bad(
      ReadChunkRequest request, ReplicaLocation replica, long offset, String reason) {
    BadReplica report =
        BadReplica.newBuilder()
            .setChunk(request.getChunk())
            .setVersion(request.getVersion())
            .setServerId(replica.getServerId())
            .setOffset(offset)
            .setReason(reason)
            .build();
    return new BadReplicaException(
        "replica of chunk "
            + request.getChunk().getInodeId()
            + ":"
            + Integer.toUnsignedString(request.getChunk().getChunkIndex())
            + " on "
            + replica.getHost()
            + ":"
            + replica.getPort()
            + " is bad: "
            + reason,
        report);
  }
}
