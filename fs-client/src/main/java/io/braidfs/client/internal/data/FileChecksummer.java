package io.braidfs.client.internal.data;

import com.google.protobuf.ByteString;
import io.braidfs.client.DataPathOptions;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.OpenResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The CRC32C of a whole file composed without reading its data: each chunk's replica answers the
 * CRCs of the chunk's pieces from its stored 64 KiB block CRCs (ChecksumChunk), and the pieces are
 * combined ({@link Checksums#combine}) in file order. The result is the CRC32C of the file's byte
 * stream, so it does not depend on the layout: two files with equal bytes have equal checksums
 * whatever their stripe units, widths and chunk sizes (HDFS's COMPOSITE_CRC, which DistCp
 * compares).
 *
 * <p><b>Pieces.</b> With stripe width 1 a chunk is one contiguous run of the file, so a chunk is
 * asked for few large pieces. Wider, consecutive stripe units of a chunk are {@code stripeWidth}
 * units apart in the file, so each stripe unit is one piece, and the pieces of a chunk set are
 * interleaved in unit order. Bytes a chunk does not hold (a hole, a chunk set never written, the
 * tail of a chunk cut short) read as zeros, whose CRC is computed from their length ({@link
 * Checksums#zeros}).
 *
 * <p><b>Parallelism.</b> Chunk requests go out asynchronously, at most {@code maxInFlight} at a
 * time; chunk sets are folded into the CRC in order as their answers arrive, so memory stays
 * bounded by the window whatever the file's size.
 *
 * <p>Thread-safety: thread-safe; each call works on its own state.
 */
public final class FileChecksummer {
  /**
   * The chunk sets an open for a checksum should ask for: few enough that the answer stays small at
   * the widest layout (the rest is located in pages sized by the width).
   */
  public static final int OPEN_CHUNK_SETS = 4;

  /**
   * Chunk locations asked of the MDS per page: some 100 KiB of answer, far below a frame's limit.
   */
  private static final int CHUNKS_PER_PAGE = 1024;

  /**
   * Chunk requests in flight per checksum. The answers are a few CRCs each; the bound keeps a huge
   * file from opening thousands of calls at once.
   */
  static final int MAX_IN_FLIGHT = 64;

  /** The largest piece asked for with stripe width 1: fewer, bigger pieces cost less to combine. */
  private static final int MAX_CONTIGUOUS_PIECE = 1 << 30;

  private final ChunkService mds;
  private final ChunkCrcFetcher fetcher;
  private final int maxInFlight;

  public FileChecksummer(
      RpcClient rpc, ChunkService mds, ReplicaHealth health, DataPathOptions options) {
    this(rpc, mds, health, options, MAX_IN_FLIGHT);
  }

  /** With at most {@code maxInFlight} chunk asks at once (tests use 1 to order them). */
  public FileChecksummer(
      RpcClient rpc,
      ChunkService mds,
      ReplicaHealth health,
      DataPathOptions options,
      int maxInFlight) {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be >= 1: " + maxInFlight);
    }
    this.mds = mds;
    this.fetcher = new ChunkCrcFetcher(rpc, health, options);
    this.maxInFlight = maxInFlight;
  }

  /**
   * The CRC32C of the opened file's bytes {@code [0, size)}, {@code size} being the length in the
   * open's attributes (for a file being written, the length its writer last committed). An expired
   * token or a replica replaced since the open is answered by locating the chunks again, once.
   *
   * @param path the file's path, for MDS calls and messages
   * @param layout the file's layout, as the open's attributes give it
   * @param opened the MDS's answer to a read open of the file, ideally with {@link
   *     #OPEN_CHUNK_SETS} chunk sets
   * @throws IOException if a chunk with data could not be checksummed by any of its replicas (a
   *     precise status; UNAVAILABLE if the MDS knows no live replica), or the MDS could not be
   *     asked for locations
   * @throws InterruptedIOException if the calling thread is interrupted while waiting
   */
  public int crc32c(String path, Layout layout, OpenResponse opened) throws IOException {
    long inodeId = opened.getAttributes().getInodeId();
    long length = opened.getAttributes().getSize();
    try {
      return new Pass(path, inodeId, layout, length, opened.getChunkSetsList(), opened.getToken())
          .run();
    } catch (IOException e) {
      Status s = StatusExceptions.statusOf(e);
      if (s != Status.INVALID_TOKEN && s != Status.STALE_VERSION && s != Status.NOT_FOUND) {
        throw e;
      }
      return new Pass(path, inodeId, layout, length, List.of(), ByteString.EMPTY).run();
    }
  }

  /** The piece size to ask chunks of this layout for; always one the data servers accept. */
  public static int pieceSize(Layout layout) {
    if (layout.stripeWidth() == 1 && layout.chunkSize() >= Checksums.BLOCK_SIZE) {
      long piece = Math.min(layout.chunkSize(), MAX_CONTIGUOUS_PIECE);
      return (int) (piece / Checksums.BLOCK_SIZE * Checksums.BLOCK_SIZE);
    }
    // A power of two from 4 KiB: a multiple of 64 KiB, or a divisor of it (the server then reads
    // the blocks to cut them, as no stored CRC covers less than a block).
    return layout.stripeUnit();
  }

  /**
   * One computation: walks the file's present chunk sets in order (from the open's answer, then
   * from the MDS page by page), keeps their requests in flight within the window, and folds each
   * set into the CRC, oldest first.
   *
   * <p>Thread-safety: confined to the calling thread.
   */
  private final class Pass {
    private final String path;
    private final long inodeId;
    private final Layout layout;
    private final long length;
    private final long setCount;
    private final int pieceSize;
    private final ArrayDeque<SetWork> window = new ArrayDeque<>();
    private int inFlight;

    /** The current page of chunk sets, the next one to take from it, and its token. */
    private List<ChunkSetLocation> page;

    private int taken;
    private ByteString token;

    /** The first chunk set no page has covered yet. */
    private long unlocated;

    /** The first chunk set not yet taken: a set answered twice is not folded twice. */
    private long nextIndex;

    private int crc; // of file bytes [0, folded)
    private long folded;

    Pass(
        String path,
        long inodeId,
        Layout layout,
        long length,
        List<ChunkSetLocation> opened,
        ByteString token) {
      this.path = path;
      this.inodeId = inodeId;
      this.layout = layout;
      this.length = length;
      this.setCount = layout.chunkSetCount(length);
      this.pieceSize = pieceSize(layout);
      this.page = opened;
      this.token = token;
      // An open returns sets 0, 1, ... up to the first one never written (or its limit).
      this.unlocated = opened.isEmpty() ? 0 : opened.get(opened.size() - 1).getSetIndex() + 1;
    }

    int run() throws IOException {
      try {
        for (ChunkSetLocation set = nextSet(); set != null; set = nextSet()) {
          SetWork w = new SetWork(set, token);
          while (!window.isEmpty() && inFlight + w.requests() > maxInFlight) {
            fold(window.remove());
          }
          w.start();
          window.add(w);
          inFlight += w.requests();
        }
        while (!window.isEmpty()) {
          fold(window.remove());
        }
      } finally {
        window.clear(); // answers still coming hold nothing that needs releasing
      }
      zerosTo(length);
      return crc;
    }

    /** The next chunk set with data below the file's length, asking the MDS as needed; or null. */
    private @Nullable ChunkSetLocation nextSet() throws IOException {
      while (true) {
        while (taken < page.size()) {
          ChunkSetLocation set = page.get(taken++);
          long index = set.getSetIndex();
          if (index >= nextIndex && index < setCount && set.getChunksCount() > 0) {
            nextIndex = index + 1;
            return set;
          }
        }
        if (unlocated >= setCount) {
          return null;
        }
        long from = layout.fileOffset(unlocated, 0, 0);
        long sets =
            Math.min(setCount - unlocated, Math.max(1, CHUNKS_PER_PAGE / layout.stripeWidth()));
        GetChunkLocationsResponse r =
            mds.locations(
                GetChunkLocationsRequest.newBuilder()
                    .setPath(path)
                    .setInodeId(inodeId)
                    .setOffset(from)
                    .setLength(Math.min(length - from, sets * layout.chunkSetSpan()))
                    .build());
        page = r.getChunkSetsList();
        taken = 0;
        token = r.getToken();
        // An answer may stop at a limit of its own, so the next page starts after its last set;
        // an empty one means the range asked holds none.
        unlocated = page.isEmpty() ? unlocated + sets : page.get(page.size() - 1).getSetIndex() + 1;
      }
    }

    /** Folds one chunk set into the CRC, in file order, after the zeros of any sets skipped. */
    private void fold(SetWork w) throws IOException {
      inFlight -= w.requests();
      int[][] crcs = w.await();
      long setStart = layout.fileOffset(w.set, 0, 0);
      zerosTo(setStart);
      long setEnd = Math.min(length, setStart + layout.chunkSetSpan());
      if (layout.stripeWidth() == 1) {
        foldRun(crcs[0], w.covered[0], 0, setEnd - setStart);
      } else {
        int unit = layout.stripeUnit();
        int width = layout.stripeWidth();
        for (long u = 0; setStart + u * unit < setEnd; u++) {
          long n = Math.min(unit, setEnd - (setStart + u * unit));
          int c = (int) (u % width);
          foldRun(crcs[c], w.covered[c], (u / width) * unit, n);
        }
      }
      if (folded != setEnd) {
        throw new IllegalStateException(
            path + ": folded to " + folded + " instead of the set's end " + setEnd);
      }
    }

    /**
     * Folds chunk bytes {@code [start, start + n)}, contiguous in the file, from the chunk's piece
     * CRCs over its first {@code covered} bytes; past those the chunk reads as zeros.
     */
    private void foldRun(int[] pieces, long covered, long start, long n) {
      for (long at = start; at < start + n; at += pieceSize) {
        long len = Math.min(pieceSize, start + n - at);
        long held = Math.max(0, Math.min(len, covered - at));
        if (held > 0) {
          // Piece at / pieceSize covers exactly [at, at + held): the chunk's data ends at or
          // after the run's end unless it is cut short here.
          crc = Checksums.combine(crc, pieces[(int) (at / pieceSize)], held);
          folded += held;
        }
        zerosTo(folded + len - held);
      }
    }

    /** Appends zeros to the CRC up to file offset {@code end}. */
    private void zerosTo(long end) {
      long n = end - folded;
      if (n > 0) {
        crc = Checksums.combine(crc, Checksums.zeros(n), n);
        folded = end;
      }
    }

    /** The requests of one chunk set: one per chunk with data below the file's length. */
    private final class SetWork {
      final long set;
      final ChunkLocation[] chunks;
      final long[] covered;
      final ByteString setToken;
      final CompletableFuture<int[]>[] answers;

      @SuppressWarnings("unchecked") // an array of a generic type
      SetWork(ChunkSetLocation location, ByteString setToken) {
        int width = layout.stripeWidth();
        this.set = location.getSetIndex();
        this.setToken = setToken;
        this.chunks = new ChunkLocation[width];
        this.covered = new long[width];
        this.answers = new CompletableFuture[width];
        for (ChunkLocation chunk : location.getChunksList()) {
          // By the chunk's own index, not its place in the list, which skips missing chunks.
          long c = Integer.toUnsignedLong(chunk.getId().getChunkIndex()) - set * width;
          if (c >= 0 && c < width) {
            chunks[(int) c] = chunk;
          }
        }
        for (int c = 0; c < width; c++) {
          // The committed length may be shorter than what the file maps here (a hole at the end
          // of the chunk) or longer (written since the length was read): count what both cover.
          covered[c] =
              chunks[c] == null
                  ? 0
                  : Math.min(chunks[c].getLength(), layout.chunkLength(length, set, c));
        }
      }

      int requests() {
        int n = 0;
        for (long c : covered) {
          n += c > 0 ? 1 : 0;
        }
        return n;
      }

      void start() {
        for (int c = 0; c < chunks.length; c++) {
          if (covered[c] > 0) {
            answers[c] = fetcher.pieceCrcs(chunks[c], setToken, covered[c], pieceSize);
          }
        }
      }

      /** Each chunk's piece CRCs (empty for chunks asked nothing), once all have arrived. */
      int[][] await() throws IOException {
        int[][] crcs = new int[chunks.length][];
        for (int c = 0; c < chunks.length; c++) {
          crcs[c] = answers[c] == null ? new int[0] : get(answers[c]);
        }
        return crcs;
      }

      private int[] get(CompletableFuture<int[]> answer) throws IOException {
        try {
          return answer.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("checksum of " + path + " interrupted");
        } catch (ExecutionException e) {
          throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
      }
    }
  }
}
