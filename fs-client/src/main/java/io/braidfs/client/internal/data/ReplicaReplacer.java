package io.braidfs.client.internal.data;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.CopyChunkRequest;
import io.braidfs.proto.GetChunkInfoRequest;
import io.braidfs.proto.GetChunkInfoResponse;
import io.braidfs.proto.ReplaceReplicaRequest;
import io.braidfs.proto.ReplaceReplicaResponse;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.TruncateChunkRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces a replica that failed mid-write, so the writer can carry on (ARCHITECTURE section 5):
 *
 * <ol>
 *   <li>ask every surviving replica how many bytes it holds;
 *   <li>ask the MDS for a replacement: it bumps the chunk version and returns the new chain;
 *   <li>move the survivors to the new version (TruncateChunk at their own length: nothing is cut,
 *       the writer sends every unacknowledged write again afterwards);
 *   <li>seed the new replica from the survivors (CopyChunk) up to the shortest survivor's length,
 *       which covers every acknowledged write.
 * </ol>
 *
 * The failed replica keeps the old version, so it is recognisably stale and the MDS has it deleted.
 * The writer then resends its unacknowledged writes down the new chain.
 *
 * <p>Thread-safety: called by the writer's thread only.
 */
final class ReplicaReplacer {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaReplacer.class);

  private final RpcClient rpc;
  private final ChunkService mds;
  private final long inodeId;
  private final String path;

  ReplicaReplacer(RpcClient rpc, ChunkService mds, long inodeId, String path) {
    this.rpc = rpc;
    this.mds = mds;
    this.inodeId = inodeId;
    this.path = path;
  }

  /** The outcome: the chunk's new location and the token for it. */
  record Replaced(ChunkLocation location, ByteString token) {}

  /**
   * Replaces the replica on {@code failedServerId}.
   *
   * @param excluded servers not to choose as the replacement (those that failed on this chunk
   *     before: a full server stays full)
   * @param acked whether any write to the chunk was acknowledged by every replica in this stream
   * @return the new chain; without a replacement (shorter) when the MDS found no server for one
   * @throws IOException the MDS's refusal (NO_SPACE when no server has room), or a survivor's
   */
  Replaced replace(
      ChunkLocation old,
      int failedServerId,
      Collection<Integer> excluded,
      ByteString token,
      boolean acked)
      throws IOException {
    Map<Integer, Long> lengths = new TreeMap<>();
    List<ReplicaLocation> survivors = new ArrayList<>();
    for (ReplicaLocation r : old.getReplicasList()) {
      if (r.getServerId() == failedServerId) {
        continue;
      }
      lengths.put(r.getServerId(), length(r, old, token));
      survivors.add(r);
    }
    if (lengths.containsValue(-1L) && (acked || old.getLength() > 0)) {
      // A survivor without the replica although every replica acknowledged data (or the MDS has
      // committed some): it lost its copy, and seeding from the others would skip it.
      throw StatusExceptions.toIOException(
          Status.UNAVAILABLE,
          path
              + ": chunk "
              + Integer.toUnsignedString(old.getId().getChunkIndex())
              + " lost a second replica while replacing one; not written further");
    }
    long held = lengths.values().stream().mapToLong(l -> Math.max(0, l)).min().orElse(0);
    ReplaceReplicaResponse answer =
        mds.replaceReplica(
            ReplaceReplicaRequest.newBuilder()
                .setPath(path)
                .setInodeId(inodeId)
                .setChunk(old.getId())
                .setVersion(old.getVersion())
                .setFailedServerId(failedServerId)
                .setAckedLength(held)
                .addExcludedServerIds(failedServerId)
                .addAllExcludedServerIds(
                    excluded.stream().filter(id -> id != failedServerId).toList())
                .build());
    ChunkLocation now = answer.getChunk();
    ByteString fresh = answer.getToken();
    List<ReplicaLocation> sources = new ArrayList<>();
    for (ReplicaLocation r : survivors) {
      long own = requireNonNull(lengths.get(r.getServerId())); // every survivor has a length
      if (own >= 0) {
        rpc.callSync(
            HostPort.of(r),
            RpcMethod.TRUNCATE_CHUNK,
            TruncateChunkRequest.newBuilder()
                .setChunk(old.getId())
                .setVersion(old.getVersion())
                .setNewVersion(now.getVersion())
                .setLength(own)
                .setToken(fresh)
                .build());
        sources.add(r);
      }
    }
    for (ReplicaLocation r : now.getReplicasList()) {
      if (lengths.containsKey(r.getServerId()) || held <= 0 || sources.isEmpty()) {
        continue; // a survivor, or nothing to copy: the resent writes create the replica
      }
      rpc.callSync(
          HostPort.of(r),
          RpcMethod.COPY_CHUNK,
          CopyChunkRequest.newBuilder()
              .setChunk(old.getId())
              .setVersion(now.getVersion())
              .setLength(held)
              .addAllSources(sources)
              .setSourceToken(fresh)
              .setToken(fresh)
              .build());
    }
    boolean added = now.getReplicasCount() > survivors.size();
    LOG.info(
        "{}: replaced the replica of chunk {} on data server {}: version {} -> {}, {}",
        path,
        Integer.toUnsignedString(old.getId().getChunkIndex()),
        failedServerId,
        old.getVersion(),
        now.getVersion(),
        added
            ? "a new replica seeded with " + held + " bytes"
            : "no server for a new one, "
                + now.getReplicasCount()
                + (now.getReplicasCount() == 1 ? " replica" : " replicas")
                + " left");
    return new Replaced(now, fresh);
  }

  /** The survivor's length, or -1 if it has no replica yet (the writes never reached it). */
  private long length(ReplicaLocation r, ChunkLocation chunk, ByteString token) throws IOException {
    try {
      GetChunkInfoResponse info =
          rpc.callSync(
              HostPort.of(r),
              RpcMethod.GET_CHUNK_INFO,
              GetChunkInfoRequest.newBuilder().setChunk(chunk.getId()).setToken(token).build());
      if (info.getVersion() != chunk.getVersion()) {
        throw StatusExceptions.toIOException(
            Status.STALE_VERSION,
            path
                + ": a surviving replica on "
                + r.getHost()
                + " is at version "
                + info.getVersion()
                + ", not "
                + chunk.getVersion());
      }
      return info.getLength();
    } catch (IOException e) {
      if (StatusExceptions.statusOf(e) == Status.NOT_FOUND) {
        return -1;
      }
      throw e;
    }
  }
}
