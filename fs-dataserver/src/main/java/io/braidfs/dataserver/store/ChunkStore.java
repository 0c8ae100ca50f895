package io.braidfs.dataserver.store;

import static io.braidfs.common.error.StatusExceptions.toIOException;

import io.braidfs.common.error.Status;
import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicas on this server's data directories.
 *
 * <p>On disk, each data directory holds {@code braid-storage.properties} (storage id, server id,
 * cluster id, highest MDS epoch, layout version; replaced atomically) and {@code
 * chunks/<xx>/<inodeId>_<chunkIndex>.data} with {@code .meta} beside it, where {@code xx} is the
 * inode id's low byte in hex and the chunk index is unsigned. The data file holds the chunk's bytes
 * (its size is the replica's length); the meta file a 32-byte header (magic {@code BRDM}, format
 * version, state, chunk version, generation) followed by one CRC32C per 64 KiB block (see {@link
 * MetaHeader}).
 *
 * <p>A new replica goes to the usable directory with the most available space. Space is tracked per
 * directory (data and meta bytes of its replicas) against its capacity and its file system's free
 * space, so that writes can be refused with {@code NO_SPACE} before any byte is written.
 *
 * <p>A directory whose I/O fails and then fails its check is taken out of service (see {@code
 * DataDir}): its replicas leave the store (requests for them fail with NOT_FOUND, so readers go to
 * another replica) and the {@link Listener} hears of them; the store goes on with the others.
 *
 * <p>Thread-safety: thread-safe. Replicas are in a concurrent map; each replica serializes its own
 * changes. Identity and epoch updates are serialized on a lock of their own.
 */
public final class ChunkStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ChunkStore.class);

  /**
   * Told of replicas leaving the store. Called on the thread that removed them, possibly holding
   * the lock of one replica: implementations must not block or take replica locks.
   */
  public interface Listener {
    /** Nothing to tell. */
    Listener NONE = new Listener() {};

    /** {@code replica} was deleted. */
    default void removed(Replica replica) {}

    /**
     * A data directory was taken out of service with the replicas it held.
     *
     * @param usableDirs how many directories are still in service (0: the store is unusable)
     */
    default void dirFailed(DataDirStatus dir, List<Replica> lost, int usableDirs) {}
  }

  private final List<DataDir> dirs;
  private final Listener listener;
  private final ConcurrentHashMap<ChunkKey, Replica> replicas = new ConcurrentHashMap<>();
  private final Set<ChunkKey> creating = ConcurrentHashMap.newKeySet();

  /**
   * Replicas that were being written when their directory failed, by version: a writer's next write
   * must not silently start a new replica with a hole where the lost bytes were.
   */
  private final ConcurrentHashMap<ChunkKey, Long> lostWhileWriting = new ConcurrentHashMap<>();

  private final Object identityLock = new Object();
  private volatile int serverId; // written under identityLock
  private volatile String clusterId; // written under identityLock
  private volatile long maxEpoch; // written under identityLock
  private volatile boolean closed;

  private ChunkStore(
      List<DataDir> dirs, int serverId, String clusterId, long maxEpoch, Listener listener) {
    this.dirs = List.copyOf(dirs);
    this.listener = listener;
    this.serverId = serverId;
    this.clusterId = clusterId;
    this.maxEpoch = maxEpoch;
  }

  /**
   * Opens the store: formats empty directories (a random storage id each), checks that the others
   * belong to the same server and cluster, and loads every replica. Directories that lack the
   * identity or the highest epoch the others have are brought up to date.
   *
   * @throws IOException if a directory cannot be used, or directories disagree on the server id or
   *     cluster id
   */
  public static ChunkStore open(StoreSettings settings) throws IOException {
    return open(settings, Listener.NONE);
  }

  /**
   * As {@link #open(StoreSettings)}, telling {@code listener} of replicas that leave the store.
   *
   * @throws IOException as {@link #open(StoreSettings)}
   */
  public static ChunkStore open(StoreSettings settings, Listener listener) throws IOException {
    List<DataDir> dirs = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    for (Path path : settings.dirs()) {
      if (!seen.add(path.toAbsolutePath().normalize())) {
        throw new IOException(path + ": data directory listed twice");
      }
      dirs.add(DataDir.open(path, settings));
    }
    StorageProperties merged = mergeIdentity(dirs);
    for (DataDir dir : dirs) {
      StorageProperties own = dir.properties();
      if (own.serverId() != merged.serverId()
          || !own.clusterId().equals(merged.clusterId())
          || own.maxEpoch() != merged.maxEpoch()) {
        dir.saveProperties(
            own.withIdentity(merged.serverId(), merged.clusterId())
                .withMaxEpoch(merged.maxEpoch()));
      }
    }
    ChunkStore store =
        new ChunkStore(dirs, merged.serverId(), merged.clusterId(), merged.maxEpoch(), listener);
    for (DataDir dir : dirs) {
      for (Replica replica : ReplicaScanner.scan(dir)) {
        store.addLoaded(replica);
      }
    }
    for (DataDir dir : dirs) {
      dir.onFailure(store::dirFailed);
    }
    LOG.info(
        "{}: opened {} replicas in {} data dirs, server id {}, cluster id '{}', max epoch {}",
        store,
        store.replicas.size(),
        dirs.size(),
        store.serverId,
        store.clusterId,
        store.maxEpoch);
    return store;
  }

  /** The identity all directories agree on, and the highest epoch any has. */
  private static StorageProperties mergeIdentity(List<DataDir> dirs) throws IOException {
    int serverId = 0;
    String clusterId = "";
    long maxEpoch = 0;
    DataDir serverIdFrom = dirs.get(0);
    DataDir clusterIdFrom = dirs.get(0);
    for (DataDir dir : dirs) {
      StorageProperties p = dir.properties();
      if (p.serverId() != 0) {
        if (serverId != 0 && serverId != p.serverId()) {
          throw new IOException(
              "data dirs disagree on the server id: "
                  + serverIdFrom
                  + " has "
                  + serverId
                  + ", "
                  + dir
                  + " has "
                  + p.serverId());
        }
        serverId = p.serverId();
        serverIdFrom = dir;
      }
      if (!p.clusterId().isEmpty()) {
        if (!clusterId.isEmpty() && !clusterId.equals(p.clusterId())) {
          throw new IOException(
              "data dirs disagree on the cluster id: "
                  + clusterIdFrom
                  + " has '"
                  + clusterId
                  + "', "
                  + dir
                  + " has '"
                  + p.clusterId()
                  + "'");
        }
        clusterId = p.clusterId();
        clusterIdFrom = dir;
      }
      maxEpoch = Math.max(maxEpoch, p.maxEpoch());
    }
    return new StorageProperties("", serverId, clusterId, maxEpoch);
  }

  /**
   * Adds a replica found at start-up. Two directories holding the same chunk (a crash during a
   * move, or a disk put back) keep the higher version, then the longer; the other is deleted.
   */
  private void addLoaded(Replica replica) throws IOException {
    Replica other = replicas.putIfAbsent(replica.key(), replica);
    if (other == null) {
      return;
    }
    boolean keepNew =
        replica.version() != other.version()
            ? replica.version() > other.version()
            : replica.length() > other.length();
    Replica loser = keepNew ? other : replica;
    LOG.warn(
        "{}: chunk {} is in {} and {}; keeping {}, deleting {}",
        this,
        replica.key(),
        other.dir(),
        replica.dir(),
        keepNew ? replica : other,
        loser);
    loser.deleteIfAtMost(Long.MAX_VALUE);
    if (keepNew) {
      replicas.put(replica.key(), replica);
    }
  }

  /** The server id persisted in the directories; 0 before the first registration. */
  public int serverId() {
    return serverId;
  }

  /** The cluster id persisted in the directories; empty before the first registration. */
  public String clusterId() {
    return clusterId;
  }

  /**
   * Persists the identity the MDS gave at registration in every directory. A directory whose write
   * fails is marked failed; the call fails only if no directory could be written.
   *
   * @throws IOException if a different non-zero server id or non-empty cluster id is already
   *     stored, or the write fails
   */
  public void saveIdentity(int serverId, String clusterId) throws IOException {
    synchronized (identityLock) {
      checkOpen("save identity");
      if (this.serverId != 0 && this.serverId != serverId) {
        throw new IOException(
            "save identity: this server's data dirs belong to server "
                + this.serverId
                + ", not "
                + serverId);
      }
      if (!this.clusterId.isEmpty() && !this.clusterId.equals(clusterId)) {
        throw new IOException(
            "save identity: this server's data dirs belong to cluster '"
                + this.clusterId
                + "', not '"
                + clusterId
                + "'");
      }
      if (this.serverId == serverId && this.clusterId.equals(clusterId)) {
        return;
      }
      saveEverywhere("save identity", p -> p.withIdentity(serverId, clusterId));
      this.serverId = serverId;
      this.clusterId = clusterId;
    }
  }

  /** The highest MDS epoch persisted; 0 if none. */
  public long maxEpochSeen() {
    return maxEpoch;
  }

  /**
   * Persists {@code epoch} if it is higher than {@link #maxEpochSeen()}. As with {@link
   * #saveIdentity}, it fails only if no directory could be written.
   */
  public void raiseEpoch(long epoch) throws IOException {
    synchronized (identityLock) {
      checkOpen("raise epoch");
      if (epoch <= maxEpoch) {
        return;
      }
      saveEverywhere("raise epoch", p -> p.withMaxEpoch(epoch));
      maxEpoch = epoch;
    }
  }

  /** Writes the changed properties to every usable directory; one success is enough. */
  private void saveEverywhere(String operation, UnaryOperator<StorageProperties> change)
      throws IOException {
    @Nullable IOException failure = null;
    int saved = 0;
    for (DataDir dir : dirs) {
      if (dir.failed()) {
        continue;
      }
      try {
        dir.saveProperties(change.apply(dir.properties()));
        saved++;
      } catch (IOException e) {
        // The directory is marked failed; the others still carry the value.
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (saved == 0) {
      throw failure != null ? failure : new IOException(operation + ": every data dir has failed");
    }
  }

  /** Every directory's state now. */
  public List<DataDirStatus> dirs() {
    List<DataDirStatus> result = new ArrayList<>(dirs.size());
    for (DataDir dir : dirs) {
      result.add(dir.status());
    }
    return result;
  }

  /** How many directories are in service. */
  public int usableDirs() {
    int n = 0;
    for (DataDir dir : dirs) {
      n += dir.failed() ? 0 : 1;
    }
    return n;
  }

  /** Drops the replicas of a directory that was taken out of service. */
  private void dirFailed(DataDir dir) {
    List<Replica> lost = new ArrayList<>();
    for (Replica replica : replicas.values()) {
      if (replica.dir() == dir && replicas.remove(replica.key(), replica)) {
        if (replica.state() == ReplicaState.REPLICA_STATE_WRITING) {
          lostWhileWriting.merge(replica.key(), replica.version(), Math::max);
        }
        replica.lose();
        lost.add(replica);
      }
    }
    int usable = usableDirs();
    LOG.error(
        "{}: data dir {} failed; {} replicas on it are lost, {} data dirs still in service",
        this,
        dir,
        lost.size(),
        usable);
    listener.dirFailed(dir.status(), lost, usable);
  }

  /**
   * Whether a replica of {@code key} at {@code version} or later was being written when its
   * directory failed (so a write that would create it anew is missing the bytes before it).
   */
  public boolean lostWhileWriting(ChunkKey key, long version) {
    Long lost = lostWhileWriting.get(key);
    return lost != null && lost >= version;
  }

  /** The replica of {@code key}, or null. */
  public @Nullable Replica get(ChunkKey key) {
    return replicas.get(key);
  }

  /**
   * Creates an empty replica in the directory with the most available space.
   *
   * @throws IOException ALREADY_EXISTS if the store has a replica of {@code key} (or one is being
   *     created); NO_SPACE if no directory has room; UNAVAILABLE if the store is closed
   */
  public Replica create(ChunkKey key, long version, long generation) throws IOException {
    return create(key, version, generation, 0);
  }

  /**
   * As {@link #create(ChunkKey, long, long)}, but refused with NO_SPACE unless a directory has at
   * least {@code expectedBytes} (plus the meta file) available: a copy of known length checks
   * before it starts rather than failing part-way.
   *
   * @throws IOException as {@link #create(ChunkKey, long, long)}
   */
  public Replica create(ChunkKey key, long version, long generation, long expectedBytes)
      throws IOException {
    checkOpen("create chunk " + key);
    if (!creating.add(key)) {
      throw toIOException(Status.ALREADY_EXISTS, "create chunk " + key + ": being created");
    }
    try {
      if (replicas.containsKey(key)) {
        throw toIOException(Status.ALREADY_EXISTS, "create chunk " + key + ": replica exists");
      }
      long needed = expectedBytes > 0 ? Replica.footprint(expectedBytes) : 0;
      Replica replica = createInSomeDir(key, version, generation, needed);
      replicas.put(key, replica);
      if (closed) {
        replica.close(); // raced with close(), which may not have seen it
      }
      return replica;
    } finally {
      creating.remove(key);
    }
  }

  /**
   * Creates the files in the directory with the most space; if that directory fails on the way (and
   * is taken out of service), in the next one.
   */
  private Replica createInSomeDir(ChunkKey key, long version, long generation, long needed)
      throws IOException {
    while (true) {
      DataDir dir = pickDir(key, needed);
      try {
        return Replica.create(key, dir, version, generation);
      } catch (IOException e) {
        if (!dir.failed() || usableDirs() == 0) {
          throw e;
        }
        LOG.warn("{}: creating chunk {} failed in {}; trying another data dir", this, key, dir);
      }
    }
  }

  private DataDir pickDir(ChunkKey key, long needed) throws IOException {
    @Nullable DataDir best = null;
    long bestAvailable = Math.max(0, needed - 1);
    for (DataDir dir : dirs) {
      long available = dir.failed() ? 0 : dir.availableBytes();
      if (available > bestAvailable) {
        best = dir;
        bestAvailable = available;
      }
    }
    if (best == null) {
      throw toIOException(
          Status.NO_SPACE,
          "create chunk "
              + key
              + ": no data dir has "
              + (needed > 0 ? needed + " bytes" : "space")
              + " available");
    }
    return best;
  }

  /**
   * Deletes the replica of {@code key} if its version is at most {@code maxVersion}.
   *
   * @return true if a replica was deleted
   */
  public boolean delete(ChunkKey key, long maxVersion) throws IOException {
    Replica replica = replicas.get(key);
    if (replica == null) {
      return false;
    }
    try {
      return replica.deleteIfAtMost(maxVersion);
    } finally {
      // Even if removing a file failed: the replica is unusable, and found again at restart.
      if (replica.isDeleted() && replicas.remove(key, replica)) {
        listener.removed(replica);
      }
    }
  }

  /** How many replicas the store holds now. */
  public int replicaCount() {
    return replicas.size();
  }

  /** A snapshot of every replica. */
  public List<Replica> replicas() {
    return new ArrayList<>(replicas.values());
  }

  /**
   * Closes every replica's files; afterwards replicas fail with UNAVAILABLE and {@link #create}
   * fails too. Idempotent.
   */
  @Override
  public void close() throws IOException {
    closed = true;
    @Nullable IOException failure = null;
    for (Replica replica : replicas.values()) {
      try {
        replica.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void checkOpen(String operation) throws IOException {
    if (closed) {
      throw toIOException(Status.UNAVAILABLE, operation + ": the chunk store is closed");
    }
  }

  @Override
  public String toString() {
    return "ChunkStore" + dirs;
  }
}
