package io.braidfs.client.internal.data;

import com.google.protobuf.ByteString;
import io.braidfs.client.DataPathOptions;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.ChunkAddress;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.AckLevel;
import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.AllocateChunkSetResponse;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.CommitResponse;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.SyncChunkRequest;
import io.braidfs.proto.TruncateChunkRequest;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.proto.WriteChunkRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Writes one file's bytes to its chunks, at any offsets, through the replica chains.
 *
 * <p>Bytes are gathered into a buffer until a transfer is full (the stripe unit, or {@link
 * DataPathOptions#maxTransfer()} if smaller) or the next write is not contiguous, then leave as one
 * WriteChunk to the head of the chunk's chain, with up to {@link DataPathOptions#maxInFlight()}
 * transfers in flight (more writes wait). Chunk sets are allocated from the MDS as the file reaches
 * them. A write that fails on one replica is not an error for the caller: the writer replaces the
 * replica ({@link ReplicaReplacer}) and sends every unacknowledged write again. That includes a
 * data server that refuses with NO_SPACE naming itself (its disk is full; others may have room). A
 * replica holding the chunk's only copy of bytes already written (replication 1, or the last
 * survivor) is never replaced: the write fails rather than lose them. Errors that replacing cannot
 * fix (the MDS's NO_SPACE when no server has room, a bad token, a fenced writer, no replica left)
 * surface on the next call and on every call after it, and the file is never committed past what
 * the last successful flush published.
 *
 * <p>{@link #flush()} returns when every replica has every byte (hflush) and publishes the length;
 * {@link #sync()} also forces it to disk (hsync); {@link #close()} finalizes every chunk (on disk
 * on every replica) and commits the file's length and chunk versions to the MDS.
 *
 * <p>Why it is long: write, flush, sync and complete all go through the same repair (replace a
 * failed replica, then resend every unacknowledged write in its original order) over the same
 * per-chunk pending writes, token and recorded failures, so that mutable state stays in one class;
 * the per-chunk state and the replacement of replicas are already {@code ChunkOut} and {@code
 * ReplicaReplacer}.
 *
 * <p>Thread-safety: not thread-safe; one thread writes (as with an OutputStream).
 */
public final class StripedWriter implements AutoCloseable {
  private final RpcClient rpc;
  private final ChunkService mds;
  private final DataPathOptions options;
  private final long inodeId;
  private final String path;
  private final Layout layout;
  private final ReplicaReplacer replacer;
  private final Semaphore inFlight;
  private final AtomicBoolean anyFailure = new AtomicBoolean();
  private final Map<Long, ChunkSetLocation> sets = new HashMap<>();
  private final Map<Long, ChunkOut> chunks = new TreeMap<>();
  private ByteString token;
  private long length;
  private @Nullable ByteBuf buffer;
  private long bufferStart;
  private long bufferLimit;
  private @Nullable IOException broken;
  private boolean closed;

  public StripedWriter(
      RpcClient rpc, ChunkService mds, DataPathOptions options, WriteTarget target) {
    this.rpc = rpc;
    this.mds = mds;
    this.options = options;
    this.inodeId = target.inodeId();
    this.path = target.path();
    this.layout = target.layout();
    this.token = target.token();
    this.length = target.length();
    this.replacer = new ReplicaReplacer(rpc, mds, inodeId, path);
    this.inFlight = new Semaphore(options.maxInFlight());
    for (ChunkSetLocation s : target.chunkSets()) {
      if (s.getChunksCount() > 0) { // empty when Create could not place it: allocate later
        sets.put(s.getSetIndex(), s);
      }
    }
  }

  /** The file's length as written so far. */
  public long length() {
    return length;
  }

  /**
   * Writes {@code src}'s readable bytes at file offset {@code offset} (they are copied; {@code src}
   * is not changed or released).
   *
   * @throws IOException a failure of an earlier write that could not be repaired
   */
  public void write(long offset, ByteBuf src) throws IOException {
    checkOpen();
    if (broken != null) {
      throw broken;
    }
    if (anyFailure.get()) { // checked per write; the scan of every chunk only after a failure
      repair();
    }
    int from = src.readerIndex();
    int end = src.writerIndex();
    while (from < end) {
      long at = offset + (from - src.readerIndex());
      ByteBuf b = buffer;
      if (b != null && at != bufferStart + b.readableBytes()) {
        send(); // not contiguous: the gathered bytes leave first
        b = null;
      }
      if (b == null) {
        b = open(at);
      }
      int n = (int) Math.min(end - from, bufferLimit - at);
      b.writeBytes(src, from, n);
      from += n;
      length = Math.max(length, at + n);
      if (bufferStart + b.readableBytes() == bufferLimit) {
        send();
      }
    }
  }

  /** Starts a buffer at {@code at}, ending at the next transfer boundary. */
  private ByteBuf open(long at) {
    long unitStart = at - at % layout.stripeUnit();
    long sinceUnit = at - unitStart;
    long pieceEnd = unitStart + (sinceUnit / options.maxTransfer() + 1) * options.maxTransfer();
    bufferLimit = Math.min(unitStart + layout.stripeUnit(), pieceEnd);
    bufferStart = at;
    ByteBuf b =
        PooledByteBufAllocator.DEFAULT.directBuffer(
            Math.min(layout.stripeUnit(), options.maxTransfer()));
    buffer = b;
    return b;
  }

  /** Sends the gathered bytes as one WriteChunk. */
  private void send() throws IOException {
    ByteBuf b = buffer;
    if (b == null) {
      return;
    }
    buffer = null;
    if (!b.isReadable()) {
      b.release();
      return;
    }
    ChunkAddress a = layout.locate(bufferStart);
    ChunkOut c;
    try {
      c = chunk(a);
    } catch (IOException e) {
      b.release();
      throw fail(e);
    } catch (RuntimeException e) {
      b.release();
      throw e;
    }
    ChunkOut.Pending p =
        new ChunkOut.Pending(a.offsetInChunk(), b, Checksums.pieceCrcs(b, a.offsetInChunk()));
    c.pruneAcked();
    c.pending.add(p);
    c.length = Math.max(c.length, a.offsetInChunk() + b.readableBytes());
    c.reported = false;
    c.synced = false;
    issue(c, p);
  }

  /** Sends {@code p} down {@code c}'s chain; waits for room among the writes in flight. */
  private void issue(ChunkOut c, ChunkOut.Pending p) throws IOException {
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("write to " + path + " interrupted");
    }
    ChunkLocation loc = c.location;
    WriteChunkRequest req =
        WriteChunkRequest.newBuilder()
            .setChunk(loc.getId())
            .setVersion(loc.getVersion())
            .setOffset(p.offset)
            .setLength(p.data.readableBytes())
            .addAllChecksums(ints(p.crcs))
            .addAllDownstream(loc.getReplicasList().subList(1, loc.getReplicasCount()))
            .setAckLevel(AckLevel.ACK_LEVEL_IN_MEMORY)
            .setToken(token)
            .build();
    ReplicaLocation head = loc.getReplicas(0);
    p.sent =
        rpc.call(
                HostPort.of(head),
                RpcMethod.WRITE_CHUNK,
                req,
                p.data.retainedDuplicate(),
                options.callTimeout())
            .whenComplete(
                (response, failure) -> {
                  inFlight.release();
                  if (response != null) {
                    response.close();
                    p.acked = true;
                    c.everAcked = true;
                  } else {
                    failed(c, tagged(failure, head));
                  }
                });
  }

  /**
   * The chunk at {@code a}, allocating its chunk set from the MDS when the file first gets there.
   */
  private ChunkOut chunk(ChunkAddress a) throws IOException {
    ChunkOut c = chunks.get(a.chunkIndex());
    if (c != null) {
      return c;
    }
    ChunkSetLocation set = sets.get(a.chunkSet());
    if (set == null || a.chunkInSet() >= set.getChunksCount()) { // new, or cut short by a truncate
      AllocateChunkSetResponse r =
          mds.allocate(
              AllocateChunkSetRequest.newBuilder()
                  .setPath(path)
                  .setInodeId(inodeId)
                  .setSetIndex(a.chunkSet())
                  .build());
      set = r.getChunkSet();
      token = r.getToken();
      sets.put(a.chunkSet(), set);
    }
    ChunkLocation loc = set.getChunks(a.chunkInSet());
    if (loc.getReplicasCount() == 0) {
      throw StatusExceptions.toIOException(
          Status.UNAVAILABLE,
          path + ": chunk " + a.chunkIndex() + " has no live replica to write to");
    }
    c = new ChunkOut(loc);
    chunks.put(a.chunkIndex(), c);
    if (loc.getLength() > 0) {
      trimToCommitted(c);
    }
    return c;
  }

  /**
   * Cuts the replicas of a chunk that already holds committed data back to its committed length
   * before the first write to it: a truncate that cut inside the chunk, or a writer that died
   * before committing, may have left bytes past it that a write further on would otherwise bring
   * back. A replica that cannot be cut is treated as failed and replaced.
   */
  private void trimToCommitted(ChunkOut c) {
    ChunkLocation loc = c.location;
    for (ReplicaLocation r : loc.getReplicasList()) {
      try {
        rpc.callSync(
            HostPort.of(r),
            RpcMethod.TRUNCATE_CHUNK,
            TruncateChunkRequest.newBuilder()
                .setChunk(loc.getId())
                .setVersion(loc.getVersion())
                .setNewVersion(loc.getVersion())
                .setLength(loc.getLength())
                .setToken(token)
                .build());
      } catch (IOException e) {
        // NOT_FOUND too: the chunk has committed bytes, so that replica lost them.
        failed(c, tagged(e, r));
      }
    }
  }

  /**
   * Waits until every write sent so far is acknowledged by every replica (repairing failed replicas
   * on the way), then publishes the new length to the MDS (hflush).
   */
  public void flush() throws IOException {
    checkOpen();
    send();
    drain();
    report(false);
  }

  /** {@link #flush()}, and every replica forces the data to disk first (hsync). */
  public void sync() throws IOException {
    checkOpen();
    send();
    drain();
    for (boolean again = true; again; ) {
      again = false;
      for (ChunkOut c : chunks.values()) {
        if (!c.synced) {
          ChunkLocation loc = c.location;
          try {
            rpc.callSync(
                HostPort.of(loc.getReplicas(0)),
                RpcMethod.SYNC_CHUNK,
                SyncChunkRequest.newBuilder()
                    .setChunk(loc.getId())
                    .setVersion(loc.getVersion())
                    .addAllDownstream(loc.getReplicasList().subList(1, loc.getReplicasCount()))
                    .setToken(token)
                    .build());
            c.synced = true;
          } catch (IOException e) {
            failed(c, tagged(e, loc.getReplicas(0)));
            again = true;
          }
        }
      }
      if (again) {
        repair(); // replaces the failed replica (or gives up, throwing), then sync again
        drain();
      }
    }
    report(true);
  }

  private void report(boolean durable) throws IOException {
    UpdateLengthRequest.Builder req =
        UpdateLengthRequest.newBuilder()
            .setPath(path)
            .setInodeId(inodeId)
            .setLength(length)
            .setDurable(durable);
    for (ChunkOut c : chunks.values()) {
      if (!c.reported) {
        req.addChunks(c.state());
        c.reported = true;
      }
    }
    try {
      mds.updateLength(req.build());
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /**
   * Finalizes every chunk written (on disk on every replica) and commits the file's length and
   * chunk versions; the write lease is released.
   *
   * @return the MDS's answer with the file's attributes
   * @throws IOException if the file could not be completed; its committed length is then the last
   *     one published
   */
  public CommitResponse complete() throws IOException {
    return complete(mds::commit);
  }

  /**
   * {@link #complete()}, but the commit goes to the MDS through {@code committer} (concat sends it
   * inside its own call, so that the append and the sources' removal are one record).
   *
   * @return what {@code committer} returned
   * @throws IOException if the file could not be completed or {@code committer} failed
   */
  public <R> R complete(Committer<R> committer) throws IOException {
    checkOpen();
    try {
      send();
      drain();
      finalizeChunks();
      CommitRequest.Builder req =
          CommitRequest.newBuilder().setPath(path).setInodeId(inodeId).setLength(length);
      for (ChunkOut c : chunks.values()) {
        req.addChunks(c.state());
      }
      return committer.commit(req.build());
    } catch (IOException e) {
      throw fail(e);
    } finally {
      close();
    }
  }

  private void finalizeChunks() throws IOException {
    for (int attempt = 0; ; attempt++) {
      List<CompletableFuture<?>> calls = new ArrayList<>();
      List<ChunkOut> order = new ArrayList<>();
      for (ChunkOut c : chunks.values()) {
        ChunkLocation loc = c.location;
        ReplicaLocation head = loc.getReplicas(0);
        calls.add(
            rpc.call(
                    HostPort.of(head),
                    RpcMethod.FINALIZE_CHUNK,
                    FinalizeChunkRequest.newBuilder()
                        .setChunk(loc.getId())
                        .setVersion(loc.getVersion())
                        .setLength(c.length)
                        .addAllDownstream(loc.getReplicasList().subList(1, loc.getReplicasCount()))
                        .setToken(token)
                        .setSkipSync(!options.syncOnClose())
                        .build(),
                    null,
                    options.callTimeout())
                .whenComplete(
                    (response, failure) -> {
                      if (response != null) {
                        response.close();
                      } else {
                        failed(c, tagged(failure, head));
                      }
                    }));
        order.add(c);
      }
      quiet(calls);
      boolean failed = order.stream().anyMatch(c -> c.failure.get() != null);
      if (!failed) {
        return;
      }
      repair(); // replaces failed replicas and resends; then finalize again
      drain();
    }
  }

  /** Waits for every write in flight, repairing failures, until all are acknowledged. */
  private void drain() throws IOException {
    while (true) {
      List<CompletableFuture<?>> sent = new ArrayList<>();
      for (ChunkOut c : chunks.values()) {
        for (ChunkOut.Pending p : c.pending) {
          sent.add(p.sent);
        }
      }
      quiet(sent);
      if (!repair()) {
        return;
      }
    }
  }

  /**
   * Repairs every chunk with a failed write: replaces the failed replica (or refreshes the token)
   * and resends what was not acknowledged. Forgets acknowledged writes.
   *
   * @return true if anything was resent
   */
  private boolean repair() throws IOException {
    if (broken != null) {
      throw broken;
    }
    boolean resent = false;
    anyFailure.set(false); // a failure recorded during the scan sets it again
    for (ChunkOut c : chunks.values()) {
      c.pruneAcked();
      Throwable f = c.failure.get();
      if (f == null) {
        continue;
      }
      quiet(c.pending.stream().<CompletableFuture<?>>map(p -> p.sent).toList());
      fix(c, f);
      c.failure.set(null);
      // Every write from the first unacknowledged one on goes again, in the original order, so
      // that a later acknowledged write overlapping an earlier failed one still lands last.
      for (ChunkOut.Pending p : new ArrayList<>(c.pending)) {
        p.acked = false;
        issue(c, p);
        resent = true;
      }
    }
    return resent;
  }

  private void fix(ChunkOut c, Throwable failure) throws IOException {
    Status s = StatusExceptions.statusOf(failure);
    int failed = RemoteErrorInfo.of(failure).map(ErrorInfo::getFailedServerId).orElse(0);
    if (s == Status.INVALID_TOKEN && c.tokenRefreshes++ == 0) {
      refreshToken(c); // once: an expired token; a second refusal is not the token's age
    } else if (replaceable(s)
        && failed != 0
        && c.replacements < options.maxReplacements()
        && !onlyCopy(c, failed)) {
      c.failedServers.add(failed);
      ReplicaReplacer.Replaced r;
      try {
        r = replacer.replace(c.location, failed, c.failedServers, token, c.everAcked);
      } catch (IOException e) {
        // The MDS's NO_SPACE (no server has room) among them: the write fails with it.
        throw fail(e);
      }
      c.location = r.location();
      token = r.token();
      c.replacements++;
      c.reported = false;
      if (r.location().getReplicasCount() == 0) {
        // No server could take the replica and none survives: nothing left to write to.
        throw fail(asIOException(failure, s));
      }
    } else {
      throw fail(asIOException(failure, s));
    }
  }

  /**
   * Whether the failed server holds the chunk's only copy of bytes written to it: replacing it with
   * nothing to seed the new one from would lose them (acknowledged writes are not kept to be sent
   * again), so the write fails instead, as HDFS's does when every datanode of a pipeline is bad. A
   * full server's replica is intact; a dead one's may come back.
   */
  private static boolean onlyCopy(ChunkOut c, int failed) {
    boolean othersInChain =
        c.location.getReplicasList().stream().anyMatch(r -> r.getServerId() != failed);
    return !othersInChain && (c.everAcked || c.location.getLength() > 0);
  }

  private static IOException asIOException(Throwable failure, Status s) {
    return failure instanceof IOException io
        ? io
        : StatusExceptions.toIOException(s, String.valueOf(failure.getMessage()), failure);
  }

  private void refreshToken(ChunkOut c) throws IOException {
    AllocateChunkSetResponse r =
        mds.allocate(
            AllocateChunkSetRequest.newBuilder()
                .setPath(path)
                .setInodeId(inodeId)
                .setSetIndex(
                    Integer.toUnsignedLong(c.location.getId().getChunkIndex())
                        / layout.stripeWidth())
                .build());
    token = r.getToken();
  }

  /** Records a failed request to {@code c}; the next write, flush or close repairs it. */
  private void failed(ChunkOut c, Throwable failure) {
    c.failure.compareAndSet(null, failure);
    anyFailure.set(true);
  }

  /**
   * Failures a new replica fixes: the replica or its server is gone or broken, or its disk is full
   * (other servers may have room; a full server is replaced as a dead one is).
   */
  private static boolean replaceable(Status s) {
    return switch (s) {
      case UNAVAILABLE,
          DEADLINE_EXCEEDED,
          INTERNAL,
          CANCELLED,
          BUSY,
          CHECKSUM_MISMATCH,
          NOT_FOUND,
          NO_SPACE ->
          true;
      default -> false;
    };
  }

  /**
   * A failure naming the server that failed: the one the error names, else {@code head}. A NO_SPACE
   * that names no server is not tagged: only the full server itself can say it is full.
   */
  private static Throwable tagged(Throwable failure, ReplicaLocation head) {
    Throwable f =
        failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (RemoteErrorInfo.of(f).map(ErrorInfo::getFailedServerId).orElse(0) != 0
        || StatusExceptions.statusOf(f) == Status.NO_SPACE) {
      return f;
    }
    ErrorInfo info =
        ErrorInfo.newBuilder()
            .setMessage(String.valueOf(f.getMessage()))
            .setFailedServerId(head.getServerId())
            .build();
    IOException e =
        StatusExceptions.toIOException(
            StatusExceptions.statusOf(f),
            head.getHost() + ":" + head.getPort() + ": " + f.getMessage(),
            RemoteErrorInfo.local(info));
    return e;
  }

  private static void quiet(List<CompletableFuture<?>> futures) throws IOException {
    for (CompletableFuture<?> f : futures) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for data servers");
      } catch (ExecutionException e) {
        // Recorded on the chunk by the completion handler.
      }
    }
  }

  private IOException fail(IOException e) {
    if (broken == null) {
      broken = e;
    }
    return e;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw StatusExceptions.toIOException(
          Status.INVALID_ARGUMENT, path + ": the writer is closed");
    }
  }

  /**
   * Releases everything without committing (what was sent may still reach the replicas; the MDS's
   * committed length is unchanged). Safe to call twice; {@link #complete()} calls it.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    ByteBuf b = buffer;
    buffer = null;
    if (b != null) {
      b.release();
    }
    for (ChunkOut c : chunks.values()) {
      for (ChunkOut.Pending p : c.pending) {
        p.sent.whenComplete((x, y) -> p.data.release());
      }
      c.pending.clear();
    }
  }

  private static List<Integer> ints(int[] values) {
    List<Integer> out = new ArrayList<>(values.length);
    for (int v : values) {
      out.add(v);
    }
    return out;
  }

  /** Sends a writer's final commit, once every chunk is finalized. */
  @FunctionalInterface
  public interface Committer<R> {
    R commit(CommitRequest request) throws IOException;
  }

  /** The capability token the writes carry now (the MDS issued it with the write lease). */
  public ByteString token() {
    return token;
  }

  /** The state the MDS would be told at commit, for tests and diagnostics. */
  public List<ChunkState> chunkStates() {
    return chunks.values().stream().map(ChunkOut::state).toList();
  }
}
