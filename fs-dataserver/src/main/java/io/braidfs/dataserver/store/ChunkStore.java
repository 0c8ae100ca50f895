package io.braidfs.dataserver.store;

import java.io.IOException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The replicas on this server's data directories.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ChunkStore implements AutoCloseable {
  private ChunkStore() {}

  /**
   * Opens the store: formats empty directories (a random storage id each), checks that the others
   * belong to the same server and cluster, and loads every replica.
   *
   * @throws IOException if a directory cannot be used, or directories disagree on the server id or
   *     cluster id
   */
  public static ChunkStore open(StoreSettings settings) throws IOException {
    throw new UnsupportedOperationException();
  }

  /** The server id persisted in the directories; 0 before the first registration. */
  public int serverId() {
    throw new UnsupportedOperationException();
  }

  /** The cluster id persisted in the directories; empty before the first registration. */
  public String clusterId() {
    throw new UnsupportedOperationException();
  }

  /**
   * Persists the identity the MDS gave at registration in every directory.
   *
   * @throws IOException if a different non-zero server id or non-empty cluster id is already
   *     stored, or the write fails
   */
  public void saveIdentity(int serverId, String clusterId) throws IOException {
    throw new UnsupportedOperationException();
  }

  /** The highest MDS epoch persisted; 0 if none. */
  public long maxEpochSeen() {
    throw new UnsupportedOperationException();
  }

  /** Persists {@code epoch} if it is higher than {@link #maxEpochSeen()}. */
  public void raiseEpoch(long epoch) throws IOException {
    throw new UnsupportedOperationException();
  }

  /** Every directory's state now. */
  public List<DataDirStatus> dirs() {
    throw new UnsupportedOperationException();
  }

  /** The replica of {@code key}, or null. */
  public @Nullable Replica get(ChunkKey key) {
    throw new UnsupportedOperationException();
  }

  /**
   * Creates an empty replica in the directory with the most available space.
   *
   * @throws IOException ALREADY_EXISTS if the store has a replica of {@code key}; NO_SPACE if no
   *     directory has room
   */
  public Replica create(ChunkKey key, long version, long generation) throws IOException {
    throw new UnsupportedOperationException();
  }

  /**
   * Deletes the replica of {@code key} if its version is at most {@code maxVersion}.
   *
   * @return true if a replica was deleted
   */
  public boolean delete(ChunkKey key, long maxVersion) throws IOException {
    throw new UnsupportedOperationException();
  }

  /** A snapshot of every replica. */
  public List<Replica> replicas() {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() throws IOException {
    throw new UnsupportedOperationException();
  }
}
