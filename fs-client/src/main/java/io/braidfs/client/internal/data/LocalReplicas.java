package io.braidfs.client.internal.data;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.LocalAddresses;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcConnection;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcResponse;
import io.braidfs.proto.ChunkId;
import io.braidfs.proto.OpenLocalReplicaRequest;
import io.braidfs.proto.OpenLocalReplicaResponse;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.ReplicaLocation;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short-circuit reads: a replica on a data server of this host is read from its file, not over a
 * socket (HDFS's short-circuit local reads). The data server, asked with the read token, names the
 * file of a finalized replica and the CRCs of a window of it; the client opens the file itself,
 * keeps it open for later reads of the window, and verifies every block it reads against those
 * CRCs.
 *
 * <p>Anything unexpected sends the read over the network instead, which is always correct: a
 * replica being written, a refused or failed ask, a file this process may not open (the server then
 * stays on the network path), a short file, or a block that does not match (the replica was
 * truncated or rewritten since the window was opened, or is corrupt: the network read verifies it
 * again and reports it if it is bad, so a stale window never gets a good replica reported).
 *
 * <p>Thread-safety: thread-safe. Closing a window while another thread reads it only sends that
 * read over the network.
 */
public final class LocalReplicas implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalReplicas.class);

  /** Bytes of a replica one ask covers: 1,024 CRCs; a 64 MiB chunk is one window. */
  public static final int WINDOW = 64 << 20;

  /** Windows kept open: open files of the client, each closed when evicted. */
  private static final int MAX_OPEN = 256;

  /** How long a window is used before the data server is asked again. */
  private static final Duration WINDOW_LIFETIME = Duration.ofSeconds(60);

  /**
   * How long a refused window is not asked for again (a replica being written is refused; readers
   * of a file open for writing would otherwise ask before every read).
   */
  private static final Duration REFUSAL_MEMORY = Duration.ofSeconds(2);

  private static final LocalReplicas DISABLED = new LocalReplicas(null, Duration.ofSeconds(1));

  private final @Nullable RpcClient rpc;
  private final Duration callTimeout;
  private final Cache<Key, Window> windows;
  private final Cache<Key, Boolean> refused;
  private final Set<Integer> networkOnly = ConcurrentHashMap.newKeySet();
  private final LongAdder localReads = new LongAdder();
  private final LongAdder localBytes = new LongAdder();
  private final LongAdder fallbacks = new LongAdder();

  private LocalReplicas(@Nullable RpcClient rpc, Duration callTimeout) {
    this.rpc = rpc;
    this.callTimeout = callTimeout;
    this.windows =
        Caffeine.newBuilder()
            .maximumSize(MAX_OPEN)
            // An open file keeps a deleted replica's space in use, and a window outlives the
            // token it was asked with: ask again after a while.
            .expireAfterWrite(WINDOW_LIFETIME)
            .scheduler(Scheduler.systemScheduler())
            .executor(Runnable::run) // close at once, on the thread that removed it
            .removalListener(
                (@Nullable Key k, @Nullable Window w, RemovalCause cause) -> closeQuietly(w))
            .build();
    this.refused =
        Caffeine.newBuilder().maximumSize(MAX_OPEN).expireAfterWrite(REFUSAL_MEMORY).build();
  }

  /**
   * Short-circuit reads through {@code rpc}'s data servers on this host.
   *
   * @param callTimeout how long asking a data server for a window may take
   */
  public static LocalReplicas enabled(RpcClient rpc, Duration callTimeout) {
    return new LocalReplicas(rpc, callTimeout);
  }

  /** Every read over the network. */
  public static LocalReplicas disabled() {
    return DISABLED;
  }

  /** Whether reads may be served from local files at all. */
  public boolean isEnabled() {
    return rpc != null;
  }

  /** Reads served from local files so far. */
  public long localReads() {
    return localReads.sum();
  }

  /** Bytes served from local files so far. */
  public long localBytes() {
    return localBytes.sum();
  }

  /** Reads tried locally that went over the network after all. */
  public long fallbacks() {
    return fallbacks.sum();
  }

  /**
   * The verified bytes {@code [offset, offset + length)} of the request's chunk (a range below its
   * committed length) from {@code replica}'s file; null when the replica is not on this host or
   * cannot be read locally, and the caller reads over the network. The buffer belongs to the
   * caller.
   */
  @Nullable ByteBuf read(ReplicaLocation replica, ReadChunkRequest request) {
    Window w = window(replica, request);
    if (w == null) {
      return null;
    }
    ByteBuf data = w.read(request.getOffset(), request.getLength());
    if (data == null) {
      return failed(replica, request, w);
    }
    localReads.increment();
    localBytes.add(data.readableBytes());
    return data;
  }

  /** {@link #readInto}: the bytes are in place. */
  static final int IN_PLACE = 1;

  /** {@link #readInto}: the range does not suit an in-place read; {@link #read} may serve it. */
  static final int ASIDE = 0;

  /** {@link #readInto}: no local read can serve the range; read it over the network. */
  static final int NETWORK = -1;

  /**
   * As {@link #read}, but straight into {@code dst[index, index + length)}, verified in place: no
   * copy beyond the kernel's. Only for a range that starts on a 64 KiB block and ends on one or at
   * the replica's end (the CRCs cover whole blocks), into a buffer with one NIO view.
   *
   * @return {@link #IN_PLACE}, {@link #ASIDE} or {@link #NETWORK}; unless in place, that part of
   *     {@code dst} may hold garbage
   */
  int readInto(ReplicaLocation replica, ReadChunkRequest request, ByteBuf dst, int index) {
    long offset = request.getOffset();
    int length = request.getLength();
    if (dst.nioBufferCount() != 1 || offset % Checksums.BLOCK_SIZE != 0) {
      return ASIDE; // a composite's NIO view is a copy, not the buffer
    }
    Window w = window(replica, request);
    if (w == null) {
      return NETWORK;
    }
    long end = offset + length;
    if (!w.covers(offset, length) || (end % Checksums.BLOCK_SIZE != 0 && end != w.chunkLength)) {
      return ASIDE; // read() decides, and counts and closes the window if it cannot
    }
    if (!w.readInto(offset, length, dst, index)) {
      failed(replica, request, w);
      return NETWORK;
    }
    localReads.increment();
    localBytes.add(length);
    return IN_PLACE;
  }

  /** The open window holding the request's range, opened now if needed; null if impossible. */
  private @Nullable Window window(ReplicaLocation replica, ReadChunkRequest request) {
    RpcClient client = rpc;
    if (client == null
        || networkOnly.contains(replica.getServerId())
        || !LocalAddresses.isLocal(replica.getHost())) {
      return null;
    }
    long end = request.getOffset() + request.getLength();
    if (request.getLength() <= 0 || (end - 1) / WINDOW != request.getOffset() / WINDOW) {
      return null; // across two windows (a stripe unit that does not divide one): the network
    }
    Key key = key(replica, request);
    Window w = windows.getIfPresent(key);
    if (w == null) {
      if (refused.getIfPresent(key) != null) {
        fallbacks.increment();
        return null;
      }
      w = open(client, replica, request, key.start());
      if (w == null) {
        refused.put(key, Boolean.TRUE);
        fallbacks.increment();
        return null;
      }
      Window raced = windows.asMap().putIfAbsent(key, w);
      if (raced != null) {
        closeQuietly(w);
        w = raced;
      }
    }
    return w;
  }

  /** A window that could not serve a read: closes it, so the next read asks afresh. */
  private @Nullable ByteBuf failed(ReplicaLocation replica, ReadChunkRequest request, Window w) {
    windows.asMap().remove(key(replica, request), w);
    fallbacks.increment();
    return null;
  }

  private static Key key(ReplicaLocation replica, ReadChunkRequest request) {
    long start = request.getOffset() / WINDOW * WINDOW;
    return new Key(replica.getServerId(), request.getChunk(), request.getVersion(), start);
  }

  /** Asks the data server for the window and opens its file; null if either fails. */
  private @Nullable Window open(
      RpcClient client, ReplicaLocation replica, ReadChunkRequest request, long windowStart) {
    OpenLocalReplicaRequest ask =
        OpenLocalReplicaRequest.newBuilder()
            .setChunk(request.getChunk())
            .setVersion(request.getVersion())
            .setOffset(windowStart)
            .setLength(WINDOW)
            .setToken(request.getToken())
            .build();
    OpenLocalReplicaResponse answer;
    RpcConnection connection;
    try {
      connection = client.connection(HostPort.of(replica));
    } catch (IllegalStateException e) {
      return null; // the client is closing: the network read reports that as it always has
    }
    try (RpcResponse<OpenLocalReplicaResponse> r =
        connection
            .call(RpcMethod.OPEN_LOCAL_REPLICA, ask, null, callTimeout.toNanos())
            .get(callTimeout.toNanos(), TimeUnit.NANOSECONDS)) {
      answer = r.message();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (ExecutionException | TimeoutException e) {
      Status s = StatusExceptions.statusOf(e.getCause() == null ? e : e.getCause());
      if (s == Status.PERMISSION_DENIED || s == Status.UNKNOWN_METHOD) {
        // The server does not see this client as local, or predates short-circuit reads.
        networkOnly.add(replica.getServerId());
        LOG.debug("server {}: reads go over the network: {}", replica.getServerId(), s);
      }
      return null;
    }
    if (answer.getOffset() != windowStart
        || answer.getChunkLength() <= windowStart
        || answer.getChecksumsCount()
            != Checksums.blockCount(
                Math.min(answer.getChunkLength(), windowStart + WINDOW) - windowStart)) {
      return null; // not the window asked for: read over the network
    }
    try {
      FileChannel channel =
          FileChannel.open(Path.of(answer.getDataPath()), StandardOpenOption.READ);
      int[] crcs = answer.getChecksumsList().stream().mapToInt(Integer::intValue).toArray();
      return new Window(connection, channel, windowStart, answer.getChunkLength(), crcs);
    } catch (IOException | RuntimeException e) {
      if (e instanceof AccessDeniedException) {
        // The data directory is not readable by this user: stay on the network path.
        networkOnly.add(replica.getServerId());
      } // else the replica may have gone since the answer (deleted, moved): ask again later
      LOG.debug(
          "server {}: cannot open {} ({}); reads go over the network",
          replica.getServerId(),
          answer.getDataPath(),
          e.toString());
      return null;
    }
  }

  /** Closes every open window. */
  @Override
  public void close() {
    windows.invalidateAll();
    windows.cleanUp();
    refused.invalidateAll();
  }

  private static void closeQuietly(@Nullable Window w) {
    if (w != null) {
      try {
        w.channel.close();
      } catch (IOException e) {
        LOG.debug("closing a local replica file: {}", e.toString());
      }
    }
  }

  /** Which window: server, chunk, version and the window's first byte. */
  private record Key(int serverId, ChunkId chunk, long version, long start) {}

  /**
   * An open window: the connection to the server that answered, the replica's file, where the
   * window starts, the replica's length and the CRCs of the window's blocks.
   */
  private record Window(
      RpcConnection connection, FileChannel channel, long start, long chunkLength, int[] crcs) {
    /**
     * Whether {@code [offset, offset + length)} can be read from this window: the server is
     * reachable and the range lies inside the window as it was when opened.
     */
    boolean covers(long offset, int length) {
      // A stopped or unreachable server's replicas are unavailable, as over the network, and
      // whatever it does on restart (deleting the replica, say) is not seen here. A range past
      // the replica's length when the window opened (it has grown since: an append) or across the
      // window (a stripe unit that does not divide it) goes over the network.
      long end = offset + length;
      return connection.isOpen()
          && offset >= start
          && end > offset
          && end <= Math.min(start + WINDOW, chunkLength);
    }

    /**
     * Bytes {@code [offset, offset + length)}, a range {@link #covers} and on block boundaries (or
     * ending at the replica's end), into {@code dst} at {@code index}, verified in place.
     */
    boolean readInto(long offset, int length, ByteBuf dst, int index) {
      try {
        ByteBuffer nio = dst.nioBuffer(index, length);
        for (long at = offset; nio.hasRemaining(); ) {
          int got = channel.read(nio, at);
          if (got < 0) {
            return false; // the file is shorter than the replica was: it changed
          }
          at += got;
        }
      } catch (IOException e) {
        return false; // closed under us, or an I/O error: the network read reports what it finds
      }
      int fromBlock = (int) ((offset - start) / Checksums.BLOCK_SIZE);
      int[] expected =
          Arrays.copyOfRange(crcs, fromBlock, fromBlock + (int) Checksums.blockCount(length));
      return Checksums.verify(dst.slice(index, length), offset, expected).isEmpty();
    }

    /** Bytes {@code [offset, offset + length)}, verified; null if not all of them can be. */
    @Nullable ByteBuf read(long offset, int length) {
      if (!covers(offset, length)) {
        return null;
      }
      long end = offset + length;
      long windowEnd = Math.min(start + WINDOW, chunkLength);
      long first = offset / Checksums.BLOCK_SIZE * Checksums.BLOCK_SIZE;
      long last = Math.min(windowEnd, ceilBlock(end));
      int n = (int) (last - first);
      ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(n);
      try {
        ByteBuffer nio = buf.nioBuffer(0, n);
        long at = first;
        while (nio.hasRemaining()) {
          int got = channel.read(nio, at);
          if (got < 0) {
            return null; // the file is shorter than the replica was: it changed
          }
          at += got;
        }
        buf.writerIndex(n);
        int fromBlock = (int) ((first - start) / Checksums.BLOCK_SIZE);
        int[] expected =
            Arrays.copyOfRange(crcs, fromBlock, fromBlock + (int) Checksums.blockCount(n));
        if (Checksums.verify(buf, first, expected).isPresent()) {
          return null;
        }
        return buf.retainedSlice((int) (offset - first), (int) (end - offset));
      } catch (IOException e) {
        return null; // closed under us, or an I/O error: the network read reports what it finds
      } finally {
        buf.release();
      }
    }

    private static long ceilBlock(long x) {
      return (x + Checksums.BLOCK_SIZE - 1) / Checksums.BLOCK_SIZE * Checksums.BLOCK_SIZE;
    }
  }
}
