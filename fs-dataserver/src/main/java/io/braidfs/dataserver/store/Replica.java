package io.braidfs.dataserver.store;

import static io.braidfs.common.error.StatusExceptions.toIOException;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.proto.ReplicaState;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * One replica of a chunk on this server: a data file with the chunk's bytes and a meta file with
 * its version, file generation, state and block CRCs (design in {@link ChunkStore}).
 *
 * <p>Lengths and offsets are bytes within the chunk. The replica's length is the highest byte
 * written plus one; bytes never written below it (holes) read as zeros and have CRCs of zeros.
 * Errors are {@link IOException}s that implement {@code StatusException}, made with {@code
 * StatusExceptions.toIOException}: {@code NO_SPACE} when the directory is full (nothing is written,
 * the length is unchanged), {@code OUT_OF_RANGE} for offsets past what the operation allows, {@code
 * INVALID_ARGUMENT} for malformed arguments; any other I/O failure is passed on. Once the replica
 * is deleted every method fails with {@code NOT_FOUND}, and once the store is closed with {@code
 * UNAVAILABLE}.
 *
 * <p>Design: the header fields and one CRC per 64 KiB block are held in memory and written through
 * to the meta file on every change, so reads never read the meta file. The replica's length is the
 * data file's size. A write takes the CRCs the caller already verified for the blocks it covers
 * whole, reads back only the (at most two) blocks it covers in part, and gives blocks in a hole the
 * CRC of a zero block. Channels are opened on first use and kept until the replica is finalized,
 * deleted or the store closed (finalized replicas are rarely written again, and keeping every
 * channel would exhaust file descriptors on a large store).
 *
 * <p>Why it is long: it is the state machine of one replica's writes, reads, syncs, finalizes and
 * truncates, which share one monitor (and the count of read views a cut waits for), so splitting it
 * would spread that lock over classes; the files and the block CRCs are already {@code
 * ReplicaFiles} and {@code BlockCrcs}, and a quarter of its lines are javadoc, mostly each
 * operation's errors.
 *
 * <p>Thread-safety: thread-safe. Mutations are serialized on the replica; {@link #read} may run
 * concurrently with them and sees either the state before or after each one.
 */
public final class Replica {
  /** How long a cut waits for read views being sent (see {@link #awaitReads}). */
  private static final long READ_DRAIN_MILLIS = 5_000;

  /** Read views handed out and not yet sent or closed. */
  @GuardedBy("this")
  private int readsInFlight;

  private static final int BLOCK = Checksums.BLOCK_SIZE;

  /** The longest replica (64 TiB), so that block numbers and CRC arrays fit an int. */
  static final long MAX_LENGTH = 1L << 46;

  private enum Life {
    OPEN,
    DELETED,
    /** Its data directory failed: the files are left alone, the replica is out of service. */
    LOST,
    CLOSED
  }

  private final ChunkKey key;
  private final DataDir dir;

  @GuardedBy("this")
  private final ReplicaFiles files;

  // Written under the lock; volatile so the accessors need not take it.
  private volatile ReplicaState state;
  private volatile long version;
  private volatile long generation;
  private volatile long length;
  private volatile long syncedLength;

  @GuardedBy("this")
  private final BlockCrcs crcs; // entries [0, blockCount(length)) are valid

  @GuardedBy("this")
  private boolean headerDirty; // generation raised since the header was written

  @GuardedBy("this")
  private boolean entrySynced; // the files' directory entries are on disk

  @GuardedBy("this")
  private Life life = Life.OPEN;

  Replica(
      ChunkKey key,
      DataDir dir,
      ReplicaFiles files,
      MetaHeader header,
      long length,
      int[] crcs,
      boolean onDisk) {
    this.key = key;
    this.dir = dir;
    this.files = files;
    this.state = header.state();
    this.version = header.version();
    this.generation = header.generation();
    this.length = length;
    this.syncedLength = onDisk ? length : 0;
    this.crcs = new BlockCrcs(files, crcs);
    this.entrySynced = onDisk;
  }

  /**
   * Creates the files of a new, empty replica in {@code dir}, state WRITING.
   *
   * @throws IOException NO_SPACE if the disk is full; otherwise the failure, after marking the
   *     directory failed
   */
  static Replica create(ChunkKey key, DataDir dir, long version, long generation)
      throws IOException {
    MetaHeader header = new MetaHeader(ReplicaState.REPLICA_STATE_WRITING, version, generation);
    ReplicaFiles files;
    try {
      Path subdir = dir.subdir(key);
      if (!Files.isDirectory(subdir)) {
        Files.createDirectories(subdir);
        // Rare (256 subdirectories per disk): make the new one survive a crash at once.
        FileIo.syncDirectory(dir.chunksDir());
      }
      files = ReplicaFiles.create(dir.dataPath(key), dir.metaPath(key), header);
    } catch (IOException e) {
      if (FileIo.isDiskFull(e)) {
        dir.refreshSpace();
        throw toIOException(Status.NO_SPACE, "create chunk " + key + ": " + dir + " is full", e);
      }
      dir.ioError("create chunk " + key, e);
      throw e;
    }
    dir.addUsed(footprint(0));
    return new Replica(key, dir, files, header, 0, new int[0], false);
  }

  public ChunkKey key() {
    return key;
  }

  /** The replica's chunk version (see data.proto). */
  public long version() {
    return version;
  }

  /** The file generation the replica was last written under (from the writer's token). */
  public long generation() {
    return generation;
  }

  public ReplicaState state() {
    return state;
  }

  /** The replica's length in bytes, including data not yet forced to disk. */
  public long length() {
    return length;
  }

  /** Bytes known to be on disk (forced by the last {@link #sync}, finalize or truncate). */
  public long syncedLength() {
    return syncedLength;
  }

  /**
   * Writes {@code data}'s readable bytes at {@code offset} and updates the stored CRCs. A write
   * past the end leaves a hole that reads as zeros. A finalized replica is reopened for writing.
   * The data is in the OS cache when this returns, not necessarily on disk.
   *
   * @param data borrowed: read, not released, indices unchanged
   * @param pieceCrcs the CRC32C of each piece of {@code data} as {@code Checksums.pieceCrcs} cuts
   *     it at {@code offset}; the caller has already verified them against the data, and the store
   *     reuses those of whole blocks rather than computing them again
   * @return the replica's length afterwards
   * @throws IOException NO_SPACE if the directory cannot take the bytes (nothing written);
   *     INVALID_ARGUMENT if the replica is corrupt or the CRC count is wrong, or {@code offset} is
   *     negative; OUT_OF_RANGE if the write would end past the largest possible replica (64 TiB)
   */
  public long write(long offset, ByteBuf data, int[] pieceCrcs) throws IOException {
    int n = data.readableBytes();
    long end = checkWrite(offset, n, pieceCrcs);
    synchronized (this) {
      checkUsable("write");
      if (state == ReplicaState.REPLICA_STATE_CORRUPT) {
        throw error(Status.INVALID_ARGUMENT, "write", "the replica is corrupt");
      }
      if (n == 0) {
        return length;
      }
      long oldLength = length;
      reserve(Math.max(0, end - oldLength));
      ReplicaState before;
      try {
        before = reopen();
      } catch (IOException e) {
        throw ioFailed("write", e);
      }
      try {
        files.writeData(offset, data);
        crcs.afterWrite(offset, end, oldLength, pieceCrcs);
      } catch (IOException e) {
        if (!FileIo.isDiskFull(e)) {
          throw ioFailed("write", e);
        }
        // The data or the meta file could not grow. Either may have changed in part from the
        // first changed block on: cut both back and recompute those CRCs from the data.
        rollBack(oldLength, BlockCrcs.firstChanged(offset, oldLength), before);
        throw noSpace(oldLength, end, e);
      }
      length = Math.max(oldLength, end);
      dir.addUsed(footprint(length) - footprint(oldLength));
      return length;
    }
  }

  /**
   * Records the file generation of a newer token that wrote to the replica (persisted with the next
   * meta write, at the latest at sync). Lower values are ignored.
   */
  public synchronized void raiseGeneration(long generation) {
    if (generation > this.generation) {
      this.generation = generation;
      headerDirty = true;
    }
  }

  /**
   * Forces the data and meta files to disk.
   *
   * @return the synced length (the length at the time of the call)
   */
  public long sync() throws IOException {
    try {
      return syncFiles();
    } catch (IOException e) {
      throw ioFailed("sync", e);
    }
  }

  private long syncFiles() throws IOException {
    FileChannel dataChannel;
    FileChannel metaChannel;
    long target;
    boolean syncEntry;
    synchronized (this) {
      checkUsable("sync");
      if (state == ReplicaState.REPLICA_STATE_FINALIZED) {
        // Finalized without forcing (a POSIX close): nothing writes to it any more, so force it
        // under the lock and let its channels go again.
        forceAll();
        files.close();
        return syncedLength;
      }
      if (headerDirty) {
        writeHeader();
      }
      dataChannel = files.data();
      metaChannel = files.meta();
      target = length;
      syncEntry = !entrySynced;
    }
    // Forced outside the lock, so that the writes of a pipeline go on during an hsync.
    try {
      dataChannel.force(false);
      metaChannel.force(true);
      if (syncEntry) {
        FileIo.syncDirectory(dir.subdir(key));
      }
    } catch (ClosedChannelException e) {
      if (e instanceof ClosedByInterruptException) {
        throw e; // the interrupt flag is set; the next use reopens the channel
      }
      // Finalized, deleted or closed meanwhile: report that, or force the reopened channels.
      synchronized (this) {
        checkUsable("sync");
        forceAll();
        return syncedLength;
      }
    }
    synchronized (this) {
      entrySynced |= syncEntry;
      syncedLength = Math.min(Math.max(syncedLength, target), length);
    }
    return target;
  }

  /**
   * Closes the replica at {@code length} and {@code version}: drops bytes past {@code length} (an
   * unacknowledged tail), recomputes the last block's CRC if it was cut, marks it finalized and
   * forces everything to disk. Idempotent.
   *
   * @throws IOException OUT_OF_RANGE if {@code length} exceeds the replica's length;
   *     INVALID_ARGUMENT if {@code length} is negative or the replica is corrupt
   */
  public void finalizeAt(long version, long length) throws IOException {
    finalizeAt(version, length, true);
  }

  /**
   * Closes the replica at {@code length} and {@code version} as {@link #finalizeAt(long, long)}
   * does, forcing it to disk only if {@code force} (else a later {@link #sync()} does).
   *
   * @throws IOException as {@link #finalizeAt(long, long)}
   */
  public synchronized void finalizeAt(long version, long length, boolean force) throws IOException {
    try {
      finalizeFiles(version, length, force);
    } catch (IOException e) {
      throw ioFailed("finalize", e);
    }
  }

  @GuardedBy("this") // callers hold the monitor
  private void finalizeFiles(long version, long length, boolean force) throws IOException {
    if (length < this.length) {
      awaitReads(); // it will cut the file: first, so the checks below hold until then
    }
    checkUsable("finalize");
    if (state == ReplicaState.REPLICA_STATE_CORRUPT) {
      throw error(Status.INVALID_ARGUMENT, "finalize", "the replica is corrupt");
    }
    checkCut("finalize", length);
    cut(length);
    this.version = version;
    state = ReplicaState.REPLICA_STATE_FINALIZED;
    writeHeader();
    if (force) {
      forceAll();
    }
    files.close();
  }

  /**
   * Cuts the replica to {@code length} and gives it {@code newVersion}, forcing the change to disk;
   * the state does not change. Idempotent.
   *
   * @throws IOException OUT_OF_RANGE if {@code length} exceeds the replica's length;
   *     INVALID_ARGUMENT if it is negative
   */
  public synchronized void truncate(long newVersion, long length) throws IOException {
    awaitReads(); // first: the checks below then hold until the cut
    checkUsable("truncate");
    checkCut("truncate", length);
    try {
      cut(length);
      version = newVersion;
      writeHeader();
      forceAll();
    } catch (IOException e) {
      throw ioFailed("truncate", e);
    }
  }

  /**
   * A view of {@code [offset, offset + length)} clipped at the replica's end and widened to whole
   * 64 KiB blocks, with the stored CRCs of those blocks.
   *
   * @throws IOException OUT_OF_RANGE if {@code offset} is past the replica's length (equal is an
   *     empty view); CHECKSUM_MISMATCH if the replica is marked corrupt; INVALID_ARGUMENT if {@code
   *     offset} or {@code length} is negative
   */
  public ReadView read(long offset, int length) throws IOException {
    if (offset < 0 || length < 0) {
      throw error(Status.INVALID_ARGUMENT, "read", "negative offset or length " + offset);
    }
    synchronized (this) {
      checkUsable("read");
      if (state == ReplicaState.REPLICA_STATE_CORRUPT) {
        throw error(Status.CHECKSUM_MISMATCH, "read", "the replica is corrupt");
      }
      long total = this.length;
      if (offset > total) {
        throw error(Status.OUT_OF_RANGE, "read", "offset " + offset + " is past the end " + total);
      }
      long first = offset / BLOCK * BLOCK;
      long want = Math.min(offset + length, total);
      // Empty when nothing is asked or nothing is there; otherwise whole blocks, the last clipped.
      long end = want == offset ? first : Math.min(roundUp(want), total);
      int[] blockCrcs = crcs.copy(BlockCrcs.blockOf(first), BlockCrcs.blockCount(end));
      // A channel of its own, opened under the lock: a delete cannot remove the file before it
      // is open, and the open file stays readable after a delete.
      FileChannel channel;
      try {
        channel = files.openForRead();
      } catch (IOException e) {
        throw ioFailed("read", e);
      }
      readsInFlight++;
      return new ReadView(first, end - first, blockCrcs, version, total, channel, this::readDone);
    }
  }

  /**
   * What a client on this host needs to read {@code [offset, offset + length)} of a finalized
   * replica from its file: the file, and the stored CRCs of the window's blocks, clipped at the
   * replica's end. Only a finalized replica qualifies: its bytes and CRCs do not change until a
   * truncate or a reopening write, which the client detects as a mismatch.
   *
   * @throws IOException UNSUPPORTED if the replica is not finalized (being written);
   *     CHECKSUM_MISMATCH if it is corrupt; OUT_OF_RANGE if {@code offset} is not below its length;
   *     INVALID_ARGUMENT if {@code offset} is negative, {@code length} not positive, or either not
   *     a multiple of 64 KiB
   */
  public LocalWindow localWindow(long offset, int length) throws IOException {
    if (offset < 0 || offset % BLOCK != 0 || length <= 0 || length % BLOCK != 0) {
      throw error(
          Status.INVALID_ARGUMENT,
          "local read",
          "offset "
              + offset
              + " and length "
              + length
              + " must be multiples of 64 KiB, the length positive");
    }
    synchronized (this) {
      checkUsable("local read");
      if (state == ReplicaState.REPLICA_STATE_CORRUPT) {
        throw error(Status.CHECKSUM_MISMATCH, "local read", "the replica is corrupt");
      }
      if (state != ReplicaState.REPLICA_STATE_FINALIZED) {
        throw error(Status.UNSUPPORTED, "local read", "the replica is " + state);
      }
      if (offset >= this.length) {
        throw error(
            Status.OUT_OF_RANGE, "local read", "offset " + offset + " is not below " + this.length);
      }
      long end = Math.min(offset + length, this.length);
      int[] blockCrcs = crcs.copy(BlockCrcs.blockOf(offset), BlockCrcs.blockCount(end));
      return new LocalWindow(dataFile(), version, this.length, offset, blockCrcs);
    }
  }

  /**
   * A window of a finalized replica for a local reader: the data file, version, length, the
   * window's offset and its blocks' CRCs.
   */
  public record LocalWindow(Path dataFile, long version, long length, long offset, int[] crcs) {}

  /**
   * The CRC32C of each {@code pieceSize}-byte piece of {@code [0, length)}, combined from the
   * stored block CRCs without reading the data (except for a block that {@code length} cuts, whose
   * prefix is read).
   *
   * @param length the bytes to cover; 0 means the whole replica
   * @param pieceSize a positive multiple of 64 KiB, or a divisor of 64 KiB (then every block is
   *     read and checked against its stored CRC)
   * @throws IOException OUT_OF_RANGE if {@code length} exceeds the replica's length;
   *     INVALID_ARGUMENT if {@code pieceSize} is neither a positive multiple nor a divisor of 64
   *     KiB or {@code length} is negative; CHECKSUM_MISMATCH if a block read for pieces under 64
   *     KiB does not match its stored CRC
   */
  public int[] pieceCrcs(long length, int pieceSize) throws IOException {
    if (!validPieceSize(pieceSize) || length < 0) {
      throw error(
          Status.INVALID_ARGUMENT,
          "piece CRCs",
          "piece size "
              + pieceSize
              + " is neither a positive multiple nor a divisor of 64 KiB, or length "
              + length);
    }
    synchronized (this) {
      checkUsable("piece CRCs");
      if (state == ReplicaState.REPLICA_STATE_CORRUPT) {
        throw error(Status.CHECKSUM_MISMATCH, "piece CRCs", "the replica is corrupt");
      }
      long total = this.length;
      if (length > total) {
        throw error(
            Status.OUT_OF_RANGE, "piece CRCs", "length " + length + " is past the end " + total);
      }
      try {
        return crcs.pieces(length == 0 ? total : length, total, pieceSize);
      } catch (IOException e) {
        throw ioFailed("piece CRCs", e);
      }
    }
  }

  /**
   * Whether {@link #pieceCrcs} accepts {@code pieceSize}: a positive multiple or divisor of 64 KiB.
   */
  public static boolean validPieceSize(int pieceSize) {
    return pieceSize > 0 && (pieceSize % BLOCK == 0 || BLOCK % pieceSize == 0);
  }

  /** Marks the replica corrupt (persisted): reads fail until the MDS has it deleted. */
  public synchronized void markCorrupt() throws IOException {
    checkUsable("mark corrupt");
    state = ReplicaState.REPLICA_STATE_CORRUPT;
    try {
      writeHeader();
      files.meta().force(true);
      files.close(); // nothing writes to it any more
    } catch (IOException e) {
      throw ioFailed("mark corrupt", e);
    }
  }

  // ---- the scrubber's view ----------------------------------------------------------------------

  /**
   * Starts a scrub of this replica if it is finalized: the version, generation and length it is
   * checked at, and a channel of its own on the data file.
   *
   * @return null if the replica is not finalized or no longer in service
   * @throws IOException if the data file cannot be opened (the directory is then checked)
   */
  public synchronized @Nullable ReplicaScan startScan() throws IOException {
    if (life != Life.OPEN || state != ReplicaState.REPLICA_STATE_FINALIZED) {
      return null;
    }
    FileChannel channel;
    try {
      channel = files.openForRead();
    } catch (IOException e) {
      throw ioFailed("scrub", e);
    }
    return new ReplicaScan(this, version, generation, length, channel);
  }

  /**
   * Reads block {@code block} through {@code scan}'s channel into {@code buf} and compares its
   * CRC32C with the stored one, under the replica's lock: no write, cut or finalize runs between
   * the read and the comparison, so a replica rewritten while it is scanned is never taken for a
   * corrupt one.
   *
   * @param buf scratch space of at least 64 KiB; its contents are replaced
   * @throws IOException if the read fails (the directory is then checked)
   */
  synchronized ReplicaScan.Block checkBlock(ReplicaScan scan, int block, ByteBuffer buf)
      throws IOException {
    if (!unchangedSince(scan) || block >= BlockCrcs.blockCount(length)) {
      return ReplicaScan.Block.CHANGED;
    }
    int n = BlockCrcs.blockLength(block, length);
    buf.clear().limit(n);
    try {
      FileIo.readFully(scan.channel(), buf, (long) block * BLOCK, files.dataPath());
    } catch (IOException e) {
      throw ioFailed("scrub", e);
    }
    buf.flip();
    CRC32C crc = new CRC32C();
    crc.update(buf);
    return (int) crc.getValue() == crcs.get(block) ? ReplicaScan.Block.GOOD : ReplicaScan.Block.BAD;
  }

  /**
   * Marks the replica corrupt if it is still as {@code scan} began: one rewritten meanwhile is left
   * alone.
   *
   * @return whether it was marked
   */
  synchronized boolean markCorruptIfUnchanged(ReplicaScan scan) throws IOException {
    if (!unchangedSince(scan)) {
      return false;
    }
    markCorrupt();
    return true;
  }

  @GuardedBy("this") // callers hold the monitor
  private boolean unchangedSince(ReplicaScan scan) {
    return life == Life.OPEN
        && state == ReplicaState.REPLICA_STATE_FINALIZED
        && version == scan.version()
        && generation == scan.generation()
        && length == scan.length();
  }

  /** The file holding the replica's bytes (for operators' tools and tests; never write to it). */
  public Path dataFile() {
    return dir.dataPath(key);
  }

  @Override
  public String toString() {
    return "Replica{" + key + " v" + version + " " + state + " len=" + length + "}";
  }

  // ---- package-private, for ChunkStore ----------------------------------------------------------

  DataDir dir() {
    return dir;
  }

  /**
   * Deletes the files if the replica's version is at most {@code maxVersion}; afterwards every
   * method fails with NOT_FOUND.
   *
   * @return whether this call deleted it (false if the version is higher or it is already gone)
   */
  synchronized boolean deleteIfAtMost(long maxVersion) throws IOException {
    if (life != Life.OPEN || version > maxVersion) {
      return false;
    }
    life = Life.DELETED;
    dir.addUsed(-footprint(length));
    files.delete();
    return true;
  }

  synchronized boolean isDeleted() {
    return life == Life.DELETED;
  }

  /**
   * Takes the replica out of service because its directory failed: every method fails with
   * NOT_FOUND from now on, and its files are closed but left alone.
   */
  synchronized void lose() {
    if (life == Life.OPEN) {
      life = Life.LOST;
    }
    try {
      files.close();
    } catch (IOException e) {
      // The directory has failed; there is nothing more to do with its files.
    }
  }

  /** Closes the channels for good: the store is closing. */
  synchronized void close() throws IOException {
    if (life == Life.OPEN) {
      life = Life.CLOSED;
    }
    files.close();
  }

  /** Bytes the replica takes in its directory: data plus meta file. */
  static long footprint(long length) {
    return length + MetaHeader.metaSize(Checksums.blockCount(length));
  }

  // ---- internals --------------------------------------------------------------------------------

  private long checkWrite(long offset, int n, int[] pieceCrcs) throws IOException {
    if (offset < 0) {
      throw error(Status.INVALID_ARGUMENT, "write", "negative offset " + offset);
    }
    if (offset > MAX_LENGTH - n) {
      throw error(
          Status.OUT_OF_RANGE,
          "write",
          n + " bytes at " + offset + " end past the largest replica, " + MAX_LENGTH);
    }
    long pieces = Checksums.pieceCount(offset, n);
    if (pieceCrcs.length != pieces) {
      throw error(
          Status.INVALID_ARGUMENT,
          "write",
          n + " bytes at " + offset + " need " + pieces + " CRCs, got " + pieceCrcs.length);
    }
    return offset + n;
  }

  /** Fails with NO_SPACE, writing nothing, if the directory cannot take {@code grow} more bytes. */
  private void reserve(long grow) throws IOException {
    if (grow == 0 || grow <= dir.availableBytes()) {
      return;
    }
    dir.refreshSpace(); // the cached free space may be a second old
    long available = dir.availableBytes();
    if (grow > available) {
      throw error(
          Status.NO_SPACE,
          "write",
          "data dir " + dir + " has " + available + " bytes available, the write needs " + grow);
    }
  }

  /**
   * Before a write: marks a finalized replica WRITING on disk before its bytes change, so a crash
   * never shows a finalized replica whose bytes differ from what was finalized; also persists a
   * raised generation.
   *
   * @return the state before
   */
  @GuardedBy("this") // callers hold the monitor
  private ReplicaState reopen() throws IOException {
    ReplicaState before = state;
    if (before == ReplicaState.REPLICA_STATE_FINALIZED || headerDirty) {
      state = ReplicaState.REPLICA_STATE_WRITING;
      writeHeader();
    }
    return before;
  }

  /**
   * Undoes a write that hit a full disk: cuts the files back to {@code oldLength}, recomputes the
   * CRCs of blocks from {@code fromBlock} on from the data as it now is (an overwrite may have
   * landed in part), and restores the state.
   */
  @GuardedBy("this") // callers hold the monitor
  private void rollBack(long oldLength, int fromBlock, ReplicaState before) throws IOException {
    dir.refreshSpace();
    files.truncateData(oldLength);
    files.truncateMeta(BlockCrcs.blockCount(oldLength));
    crcs.recomputeFrom(fromBlock, oldLength);
    if (state != before) {
      state = before;
      writeHeader();
    }
  }

  private IOException noSpace(long oldLength, long end, IOException cause) {
    return toIOException(
        Status.NO_SPACE,
        "write chunk " + key + ": data dir " + dir + " is full (" + oldLength + " -> " + end + ")",
        cause);
  }

  private void checkCut(String operation, long newLength) throws IOException {
    if (newLength < 0) {
      throw error(Status.INVALID_ARGUMENT, operation, "negative length " + newLength);
    }
    if (newLength > length) {
      throw error(
          Status.OUT_OF_RANGE, operation, "length " + newLength + " is past the end " + length);
    }
  }

  /** Drops the bytes past {@code newLength} and their CRCs; recomputes a cut last block's CRC. */
  @GuardedBy("this") // callers hold the monitor
  private void cut(long newLength) throws IOException {
    long oldLength = length;
    if (newLength == oldLength) {
      return;
    }
    files.truncateData(newLength);
    crcs.cut(newLength);
    length = newLength;
    syncedLength = Math.min(syncedLength, newLength);
    dir.addUsed(footprint(newLength) - footprint(oldLength));
  }

  /** A read view of this replica was sent or closed. */
  private synchronized void readDone() {
    readsInFlight--;
    notifyAll();
  }

  /**
   * Waits, holding the monitor only between waits, until no read view is being sent, for at most
   * {@link #READ_DRAIN_MILLIS}: a zero-copy send of a range the file no longer holds ends short,
   * which breaks the frame and closes the connection with every call on it. A read that outlasts
   * the wait (a stalled client) meets the cut file and fails alone, as before.
   */
  @GuardedBy("this") // callers hold the monitor
  private void awaitReads() {
    long deadline = System.nanoTime() + READ_DRAIN_MILLIS * 1_000_000L;
    boolean interrupted = false;
    long left;
    while (readsInFlight > 0 && (left = deadline - System.nanoTime()) > 0) {
      try {
        wait(Math.max(1, left / 1_000_000L));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @GuardedBy("this") // callers hold the monitor
  private void forceAll() throws IOException {
    files.data().force(false);
    files.meta().force(true);
    if (!entrySynced) {
      FileIo.syncDirectory(dir.subdir(key));
      entrySynced = true;
    }
    syncedLength = length;
  }

  @GuardedBy("this") // callers hold the monitor
  private void writeHeader() throws IOException {
    files.writeHeader(new MetaHeader(state, version, generation));
    headerDirty = false;
  }

  @GuardedBy("this") // callers hold the monitor
  private void checkUsable(String operation) throws IOException {
    switch (life) {
      case OPEN -> {}
      case DELETED -> throw error(Status.NOT_FOUND, operation, "the replica was deleted");
      case LOST ->
          throw error(
              Status.NOT_FOUND, operation, "the replica was lost with its failed data dir " + dir);
      case CLOSED -> throw error(Status.UNAVAILABLE, operation, "the store is closed");
    }
  }

  /** Has the directory checked after {@code operation} failed with {@code e}; returns {@code e}. */
  private IOException ioFailed(String operation, IOException e) {
    dir.ioError(operation + " chunk " + key, e);
    return e;
  }

  private IOException error(Status status, String operation, String detail) {
    return toIOException(status, operation + " chunk " + key + ": " + detail);
  }

  private static long roundUp(long offset) {
    return (offset + BLOCK - 1) / BLOCK * BLOCK;
  }
}
