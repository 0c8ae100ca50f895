package io.braidfs.client;

import java.util.List;

/**
 * The replicas of one chunk, as the MDS knows them.
 *
 * <p>Thread-safety: immutable.
 *
 * @param inodeId the file's inode id
 * @param chunkIndex the chunk's index within the file, counted from 0 over all chunk sets (an
 *     unsigned 32-bit value)
 * @param version the version every current replica holds; replicas with older versions are stale
 * @param length the chunk's bytes committed to the MDS; a chunk being written may hold more
 * @param replicas the replicas, nearest to the caller first; empty if no live replica is known
 */
public record ChunkLocation(
    long inodeId, int chunkIndex, long version, long length, List<ReplicaLocation> replicas) {
  public ChunkLocation {
    replicas = List.copyOf(replicas);
  }
}
