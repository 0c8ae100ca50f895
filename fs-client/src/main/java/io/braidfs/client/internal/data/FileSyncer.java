package io.braidfs.client.internal.data;

import io.braidfs.client.DataPathOptions;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkSetLocation;
import io.braidfs.proto.GetChunkLocationsRequest;
import io.braidfs.proto.GetChunkLocationsResponse;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.SyncChunkRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Forces every chunk of a finished file to disk on each of its replicas: fsync(2) of a file whose
 * writer closed without syncing ({@code braid.client.close.sync=false}) or that is open read-only.
 * Each replica is asked directly (SyncChunk with no downstream), all of a page of chunk sets at
 * once; a finalized replica accepts the file's READ token, since forcing it changes no data.
 *
 * <p>Thread-safety: thread-safe; each call works on its own state.
 */
public final class FileSyncer {
  /** Chunk sets located per MDS call. */
  private static final int SETS_PER_PAGE = 256;

  private final RpcClient rpc;
  private final ChunkService mds;
  private final DataPathOptions options;

  public FileSyncer(RpcClient rpc, ChunkService mds, DataPathOptions options) {
    this.rpc = rpc;
    this.mds = mds;
    this.options = options;
  }

  /**
   * Syncs the file at {@code path}.
   *
   * @param layout the file's layout (to page through its chunk sets)
   * @throws IOException the first replica's failure (a replica that cannot be forced leaves the
   *     file's durability unknown, as a failed fsync does), or the MDS's
   */
  public void sync(String path, Layout layout) throws IOException {
    long span = layout.chunkSize() * layout.stripeWidth();
    long offset = 0;
    while (true) {
      GetChunkLocationsResponse r =
          mds.locations(
              GetChunkLocationsRequest.newBuilder()
                  .setPath(path)
                  .setOffset(offset)
                  .setLength(span * SETS_PER_PAGE)
                  .build());
      List<CompletableFuture<?>> calls = new ArrayList<>();
      for (ChunkSetLocation set : r.getChunkSetsList()) {
        for (ChunkLocation chunk : set.getChunksList()) {
          if (chunk.getLength() == 0) {
            continue; // never written: its replicas may not even exist
          }
          for (ReplicaLocation replica : chunk.getReplicasList()) {
            calls.add(
                rpc.call(
                        HostPort.of(replica),
                        RpcMethod.SYNC_CHUNK,
                        SyncChunkRequest.newBuilder()
                            .setChunk(chunk.getId())
                            .setVersion(chunk.getVersion())
                            .setToken(r.getToken())
                            .build(),
                        null,
                        options.callTimeout())
                    .thenAccept(response -> response.close()));
          }
        }
      }
      await(path, calls);
      offset += span * SETS_PER_PAGE;
      if (offset >= r.getFileLength()) {
        return;
      }
    }
  }

  private static void await(String path, List<CompletableFuture<?>> calls) throws IOException {
    IOException first = null;
    for (CompletableFuture<?> f : calls) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while syncing " + path);
      } catch (ExecutionException e) {
        if (first == null) {
          Throwable c = e.getCause();
          first =
              c instanceof IOException io
                  ? io
                  : StatusExceptions.toIOException(Status.INTERNAL, "sync " + path + ": " + c, c);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
