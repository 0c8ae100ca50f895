package io.braidfs.client.internal.data;

import com.google.protobuf.ByteString;
import io.braidfs.client.DataPathOptions;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.layout.Segment;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * Positional reads of one file: a range is cut into stripe-unit segments (and those into pieces of
 * at most {@link DataPathOptions#maxTransfer()}), fetched in parallel from the replicas of their
 * chunks, every block verified, and assembled in order. Chunk locations and the read token come
 * from the MDS and are cached; an expired token or a stale location is refreshed once per read.
 *
 * <p>Thread-safety: thread-safe; concurrent reads share the location cache.
 */
public final class StripedReader {
  /** Bytes of file located per MDS call beyond what a read needs: a few chunk sets ahead. */
  private static final long LOCATE_AHEAD = 256L << 20;

  private final ChunkService mds;
  private final ChunkFetcher fetcher;
  private final DataPathOptions options;
  private final long inodeId;
  private final String path;
  private final Layout layout;

  /**
   * What the MDS last said, replaced whole: concurrent readers (a positional read refreshing at the
   * end of the file while another reads on) never see a half-cleared state.
   */
  private volatile Located located = Located.NONE;

  public StripedReader(
      RpcClient rpc,
      ChunkService mds,
      ReplicaHealth health,
      DataPathOptions options,
      LocalReplicas local,
      long inodeId,
      String path,
      Layout layout) {
    this.mds = mds;
    this.fetcher = new ChunkFetcher(rpc, mds, health, options, local);
    this.options = options;
    this.inodeId = inodeId;
    this.path = path;
    this.layout = layout;
  }

  /**
   * The file's visible length, as the MDS last said.
   *
   * @throws IOException if the MDS cannot be asked
   */
  public long length() throws IOException {
    Located l = located;
    return l.length >= 0 ? l.length : locate(0, 1, Located.NONE).length;
  }

  /**
   * Takes the locations an open answered with, so that reads of them need no further MDS call.
   * {@code sets} are the file's first chunk sets, consecutive from set 0 (an open stops at the
   * first set missing, which may be a hole before more data): they cover exactly their own range.
   */
  public void prime(List<ChunkSetLocation> sets, ByteString token, long length) {
    Map<Long, ChunkSetLocation> bySet = new HashMap<>();
    for (ChunkSetLocation c : sets) {
      if (c.getSetIndex() != bySet.size()) {
        return; // not the consecutive answer expected: leave locating to the reads
      }
      bySet.put(c.getSetIndex(), c);
    }
    located =
        new Located(Map.copyOf(bySet), token, length, 0, layout.fileOffset(bySet.size(), 0, 0));
  }

  /** Forgets the cached locations and length (close-to-open: the next read asks the MDS). */
  public void invalidate() {
    located = Located.NONE;
  }

  /**
   * Reads up to {@code length} bytes at file offset {@code offset} into {@code dst} (at its writer
   * index, which advances). Bytes of holes read as zeros.
   *
   * @return the bytes read, or -1 if {@code offset} is at or past the end of the file
   * @throws IOException if a chunk could not be read from any replica (a precise status), or the
   *     MDS could not be asked; nothing is then written to {@code dst}
   * @throws IllegalArgumentException if {@code dst} has room for fewer than {@code length} bytes
   */
  public int read(long offset, ByteBuf dst, int length) throws IOException {
    if (dst.writableBytes() < length) {
      throw new IllegalArgumentException(
          "dst has room for " + dst.writableBytes() + " bytes, not " + length);
    }
    long fileLength = length();
    if (offset >= fileLength) {
      fileLength = locate(offset, 1, Located.NONE).length; // the file may have grown
      if (offset >= fileLength) {
        return -1;
      }
    }
    int n = (int) Math.min(length, fileLength - offset);
    try {
      readRange(offset, dst, n);
    } catch (IOException e) {
      Status s = StatusExceptions.statusOf(e);
      if (s != Status.INVALID_TOKEN && s != Status.STALE_VERSION && s != Status.NOT_FOUND) {
        throw e;
      }
      invalidate(); // an expired token or a replica moved since the locations were fetched
      readRange(offset, dst, n);
    }
    dst.writerIndex(dst.writerIndex() + n);
    return n;
  }

  /**
   * Starts fetching file bytes {@code [offset, offset + length)}, which must lie within one stripe
   * unit and one transfer and below the file's length as last seen: a read-ahead request. The
   * future's buffer belongs to the caller and may be shorter than {@code length}: the bytes past
   * its end are a hole and read as zeros. The future fails if no replica could serve the range; the
   * caller then reads it with {@link #read}, which refreshes expired tokens and moved chunks.
   *
   * @throws IOException if the chunk's location could not be asked from the MDS
   * @throws IllegalArgumentException if the range crosses a stripe unit or exceeds a transfer
   */
  public CompletableFuture<ByteBuf> readAhead(long offset, int length) throws IOException {
    if (length > options.maxTransfer()
        || (offset % layout.stripeUnit()) + length > layout.stripeUnit()) {
      throw new IllegalArgumentException(
          "read-ahead of " + length + " bytes at " + offset + " crosses a stripe unit or transfer");
    }
    Segment s = layout.segments(offset, length).iterator().next();
    Located l = located(s);
    ChunkLocation chunk = l.chunk(s);
    if (chunk == null) {
      return CompletableFuture.completedFuture(Unpooled.EMPTY_BUFFER);
    }
    return fetcher.fetch(chunk, l.token, s.offsetInChunk(), length);
  }

  /** Fills {@code dst[writerIndex, +n)} with file bytes {@code [offset, offset + n)}. */
  private void readRange(long offset, ByteBuf dst, int n) throws IOException {
    List<Piece> wave = new ArrayList<>(options.maxInFlight());
    try {
      readRange(offset, dst, n, wave);
    } catch (IOException | RuntimeException e) {
      for (Piece p : wave) { // sent but never collected: release each answer when it arrives
        release(p.data);
      }
      throw e;
    }
  }

  private static void release(@Nullable CompletableFuture<ChunkFetcher.@Nullable Answer> data) {
    if (data != null) {
      data.thenAccept(
          a -> {
            if (a != null) {
              a.release();
            }
          });
    }
  }

  private void readRange(long offset, ByteBuf dst, int n, List<Piece> wave) throws IOException {
    for (Segment s : layout.segments(offset, n)) {
      for (int done = 0; done < s.length(); done += options.maxTransfer()) {
        int len = Math.min(options.maxTransfer(), s.length() - done);
        Located l = located(s);
        ChunkLocation chunk = l.chunk(s);
        int at = (int) (s.fileOffset() - offset) + done;
        int local =
            chunk == null
                ? LocalReplicas.ASIDE
                : fetcher.readLocal(
                    chunk, l.token, s.offsetInChunk() + done, len, dst, dst.writerIndex() + at);
        if (local == LocalReplicas.IN_PLACE) {
          continue; // read from a local replica's file straight into place
        }
        CompletableFuture<ChunkFetcher.@Nullable Answer> f =
            chunk == null
                ? null
                : fetcher.fetchUnverified(
                    chunk, l.token, s.offsetInChunk() + done, len, local == LocalReplicas.ASIDE);
        wave.add(new Piece(at, len, f));
        if (wave.size() == options.maxInFlight()) {
          collect(wave, dst);
        }
      }
    }
    collect(wave, dst);
  }

  /**
   * Waits for every piece of {@code wave} in order, verifies its blocks on this thread and copies
   * it into place; a hole, or the part of a piece past the chunk's committed length, becomes zeros.
   */
  private void collect(List<Piece> wave, ByteBuf dst) throws IOException {
    IOException failure = null;
    int k = 0;
    try {
      for (; k < wave.size(); k++) {
        Piece p = wave.get(k);
        int at = dst.writerIndex() + p.at;
        if (p.data == null) {
          dst.setZero(at, p.length);
          continue;
        }
        if (failure != null) { // the read fails anyway: release what arrives, without waiting
          release(p.data);
          continue;
        }
        ChunkFetcher.Answer answer;
        try {
          answer = p.data.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          release(p.data);
          failure = new InterruptedIOException("read of " + path + " interrupted");
          continue;
        } catch (ExecutionException e) {
          failure = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
          continue;
        }
        ByteBuf b;
        try {
          b = fetcher.take(answer); // consumes the answer, also when it throws
        } catch (IOException e) {
          failure = e;
          continue;
        }
        try {
          int got = b.readableBytes();
          dst.setBytes(at, b, b.readerIndex(), got);
          dst.setZero(at + got, p.length - got);
        } finally {
          b.release();
        }
      }
    } finally {
      // After an unchecked exception at piece k, the pieces after it were never looked at.
      for (int i = k + 1; i < wave.size(); i++) {
        release(wave.get(i).data);
      }
      wave.clear();
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Locations that cover the segment's chunk set (asking the MDS if the cache does not). */
  private Located located(Segment s) throws IOException {
    Located l = located;
    if (!l.sets.containsKey(s.chunkSet()) && !l.covers(layout.fileOffset(s.chunkSet(), 0, 0))) {
      l = locate(layout.fileOffset(s.chunkSet(), 0, 0), LOCATE_AHEAD, l);
    }
    return l;
  }

  /**
   * Asks the MDS where {@code [offset, offset + span)} is and publishes the answer, merged with
   * {@code base}'s sets when the token did not change.
   */
  private Located locate(long offset, long span, Located base) throws IOException {
    GetChunkLocationsResponse r =
        mds.locations(
            GetChunkLocationsRequest.newBuilder()
                .setPath(path)
                .setInodeId(inodeId)
                .setOffset(offset)
                .setLength(span)
                .build());
    Map<Long, ChunkSetLocation> sets = new HashMap<>();
    if (base.token.equals(r.getToken())) {
      sets.putAll(base.sets);
    }
    for (ChunkSetLocation c : r.getChunkSetsList()) {
      sets.put(c.getSetIndex(), c);
    }
    Located l =
        new Located(Map.copyOf(sets), r.getToken(), r.getFileLength(), offset, offset + span);
    located = l;
    return l;
  }

  /**
   * One answer of the MDS: chunk sets by index, the read token, the visible length, and the file
   * range asked about (a set missing inside it is a hole, not yet asked).
   */
  private record Located(
      Map<Long, ChunkSetLocation> sets, ByteString token, long length, long from, long to) {
    static final Located NONE = new Located(Map.of(), ByteString.EMPTY, -1, 0, 0);

    boolean covers(long fileOffset) {
      return length >= 0 && fileOffset >= from && fileOffset < to;
    }

    /** The segment's chunk, or null for a chunk set never written (a hole). */
    @Nullable ChunkLocation chunk(Segment s) {
      ChunkSetLocation set = sets.get(s.chunkSet());
      if (set == null || s.chunkInSet() >= set.getChunksCount()) {
        return null;
      }
      return set.getChunks(s.chunkInSet());
    }
  }

  /**
   * One piece of a read: where it goes in the destination, its length, and the answer (null: a
   * hole).
   */
  private record Piece(
      int at, int length, @Nullable CompletableFuture<ChunkFetcher.@Nullable Answer> data) {}
}
