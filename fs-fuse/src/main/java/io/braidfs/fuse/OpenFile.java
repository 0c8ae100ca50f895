package io.braidfs.fuse;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.client.AttrChange;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.WriteToken;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The mount's state of one open inode, shared by every handle open on it (an entry of {@link
 * OpenFileTable}): the one writer (Braid gives a file's write lease to one stream, so all writing
 * handles of an inode share it), whether it holds bytes readers have not been shown, how many
 * changes of the data this mount has made, and how many handles use it.
 *
 * <p>The writer is opened on demand and committed (closed) when the last writing handle is flushed
 * on close(2) or released, and before a truncate: close-to-open, a file closed here is complete for
 * every other client.
 *
 * <p>Attribute write-behind: while this mount writes a file it created, chmod and chown on it (tar
 * sets both on every file it unpacks) answer at once with the attributes they will give and are
 * merged into one SetAttr, sent in the background when the file is committed (its journal sync
 * overlaps the data servers' work of the commit), or once older than the attribute timeout while
 * writes go on; fsync(2) sends them and waits. close(2) still returns only when they are durable,
 * and reports their failure.
 *
 * <p>Locking: {@link #lock} guards every mutable field, and only this class takes it: each method
 * is one atomic step of a FUSE operation on the inode, so a write, a commit, a truncate or an
 * attribute change never interleaves with another. It is held across the client calls of that step
 * (opening, writing, flushing and committing the writer; the MDS call a truncate or utimens runs
 * through {@link #truncate} or {@link #commitThen}), as one inode's operations go one at a time,
 * but never while waiting for another client's write lease ({@link OpenFileTable} retries outside
 * it) nor while {@link #settle} waits. A callback given to a method runs under the lock; none takes
 * another inode's lock.
 *
 * <p>Why it is long: it is one inode's state behind one lock, and each method is one atomic step of
 * a FUSE operation on that state, so splitting it would spread the lock over classes; the held-back
 * attribute changes are already {@code AttributeWriteBehind}, and nearly a third of its lines are
 * javadoc.
 *
 * <p>Thread-safety: thread-safe.
 */
final class OpenFile {
  /** An MDS call made as part of a step, under the lock. */
  @FunctionalInterface
  interface IoSupplier<T> {
    T get() throws IOException;
  }

  /** A truncate at the MDS, given the write token of the inode's last writer. */
  @FunctionalInterface
  interface Truncation {
    FileAttributes apply(WriteToken writeToken) throws IOException;
  }

  final long inodeId;

  private final Object lock = new Object();

  /** What the mount knows of the file's attributes, and changes held back. */
  @GuardedBy("lock")
  private final AttributeWriteBehind behind;

  /** Handles open on the inode; the entry leaves the table at 0. */
  @GuardedBy("lock")
  private int refs;

  /** Handles open for writing. */
  @GuardedBy("lock")
  private int writeHandles;

  /**
   * Counts the changes of the inode's data made through this mount (every write and truncate): the
   * one rule of what a change invalidates. A read stream that last saw an older count forgets what
   * it cached (read-ahead blocks, the length, chunk locations that may say "hole") before it reads,
   * whichever user's handle made the change.
   */
  @GuardedBy("lock")
  private long changes;

  @GuardedBy("lock")
  private @Nullable BraidOutputStream out;

  @GuardedBy("lock")
  private boolean dirty;

  /** When this mount last wrote the inode ({@link System#nanoTime()}). */
  @GuardedBy("lock")
  private long lastWrite;

  /** A commit of an idle writer that failed, to report at the next write, flush or fsync. */
  @GuardedBy("lock")
  private @Nullable IOException idleCommitFailure;

  /** The write token of the last writer, kept past its commit for ftruncate(2) of the handles. */
  @GuardedBy("lock")
  private WriteToken writeToken = WriteToken.none();

  /** An inode's state, sending held-back attribute changes on {@code behind}. */
  OpenFile(long inodeId, Executor behind) {
    this.inodeId = inodeId;
    this.behind = new AttributeWriteBehind(inodeId, behind);
  }

  // ---- handles ----------------------------------------------------------------------------------

  /** One more handle uses the inode. */
  void retain() {
    synchronized (lock) {
      refs++;
    }
  }

  /**
   * One handle fewer; with none left, drops the writer and unsent attribute changes without
   * committing (flush or release committed it).
   *
   * @return whether handles remain, so the entry stays in the table
   */
  boolean releaseRef() {
    synchronized (lock) {
      refs--;
      if (refs > 0) {
        return true;
      }
      abandon();
      return false;
    }
  }

  /** A handle opened for writing the file just created: its writer is {@code created}. */
  void openedCreated(BraidOutputStream created) {
    synchronized (lock) {
      BraidOutputStream old = out;
      if (old != null) {
        old.abort(); // an inode id is never reused: cannot happen
      }
      out = created;
      writeToken = created.writeToken();
      behind.know(created.createdAttributes());
      writeHandles++;
    }
  }

  /**
   * A handle opened for writing. The writer (and the write lease) comes with the first write: an
   * open for writing that writes nothing (touch) commits nothing, so it does not move mtime.
   */
  void openedForWriting() {
    synchronized (lock) {
      writeHandles++;
    }
  }

  /**
   * A writing handle closes (release): the last one commits the writer, after {@code whenLast} has
   * run.
   *
   * @throws IOException the commit's failure (the handle is closed all the same)
   */
  void closedForWriting(Runnable whenLast) throws IOException {
    synchronized (lock) {
      writeHandles--;
      if (writeHandles == 0) {
        whenLast.run();
        commitLocked();
      }
    }
  }

  // ---- data -------------------------------------------------------------------------------------

  /**
   * The writer, opened through {@code client} at {@code path} if there is none: that takes the
   * file's write lease, which another client may hold (LEASE_CONFLICT).
   */
  BraidOutputStream openWriter(BraidClient client, String path) throws IOException {
    synchronized (lock) {
      return writer(client, path);
    }
  }

  /**
   * write(2) of {@code src} at {@code offset}, or for O_APPEND ({@code append}) at the writer's
   * length: the writer holds the lease, so that is the end, where the kernel's idea of the size may
   * predate another mount's truncate or append. Attribute changes held back for longer than {@code
   * maxUnsentNanos} are sent.
   *
   * @throws IOException also a failed commit of the writer while idle, reported once
   */
  void write(
      BraidClient client,
      String path,
      boolean append,
      long offset,
      ByteBuffer src,
      long maxUnsentNanos)
      throws IOException {
    synchronized (lock) {
      takeIdleCommitFailure();
      BraidOutputStream o = writer(client, path);
      long at = append ? o.length() : offset;
      o.write(at, src);
      dirty = true;
      changes++;
      lastWrite = System.nanoTime();
      behind.sendIfOlder(maxUnsentNanos);
    }
  }

  @GuardedBy("lock")
  private BraidOutputStream writer(BraidClient client, String path) throws IOException {
    BraidOutputStream o = out;
    if (o == null || o.isClosed()) {
      o = client.openForWrite(path, false);
      out = o;
      writeToken = o.writeToken();
      lastWrite = System.nanoTime(); // not idle before its first write
    }
    return o;
  }

  /**
   * Before a read: publishes this mount's unpublished writes (hflush).
   *
   * @return the change count a reader compares with the one its stream last saw
   */
  long publishForRead() throws IOException {
    synchronized (lock) {
      publish();
      return changes;
    }
  }

  /**
   * For {@code in}, a stream opened now: if this mount has unpublished writes, publishes them and
   * makes {@code in} forget what it cached, since it was opened before they reached the servers.
   *
   * @return the change count {@code in} has now seen
   */
  long publishFor(BraidInputStream in) throws IOException {
    synchronized (lock) {
      if (publish()) {
        in.invalidate();
      }
      return changes;
    }
  }

  /**
   * close(2) of a writing handle (FUSE flush): the last writing handle commits the writer, so the
   * file is complete for every other client, after {@code beforeCommit} has run; with other writers
   * open, written bytes are published.
   *
   * @throws IOException also a failed commit of the writer while idle, reported once
   */
  void flush(Runnable beforeCommit) throws IOException {
    synchronized (lock) {
      takeIdleCommitFailure();
      if (writeHandles <= 1) {
        beforeCommit.run();
        commitLocked();
      } else {
        publish();
      }
    }
  }

  /**
   * fsync(2) while a writer is open: hsync, then the chmod and chown held back for the close are
   * sent and applied.
   *
   * @return false if no writer is open (nothing done)
   * @throws IOException also a failed commit of the writer while idle, reported once
   */
  boolean sync() throws IOException {
    synchronized (lock) {
      takeIdleCommitFailure();
      BraidOutputStream o = out;
      if (o == null || o.isClosed()) {
        return false;
      }
      o.hsync();
      behind.send();
      behind.await();
      return true;
    }
  }

  /**
   * truncate(2): the writer is committed first (a later commit would undo the truncate; the next
   * write opens a new one), then {@code truncation} runs and the change is counted.
   */
  FileAttributes truncate(Truncation truncation) throws IOException {
    synchronized (lock) {
      commitLocked();
      FileAttributes a = truncation.apply(writeToken());
      changes++;
      return a;
    }
  }

  /**
   * O_TRUNC at open: as {@link #truncate}, but the change is counted before {@code truncation}
   * runs, so also when it fails.
   */
  FileAttributes truncateAtOpen(IoSupplier<FileAttributes> truncation) throws IOException {
    synchronized (lock) {
      commitLocked();
      changes++;
      return truncation.get();
    }
  }

  /**
   * Commits the writer, then runs {@code change} before any other write of this mount reaches the
   * inode (utimens: a later commit would set mtime again, so written bytes go first).
   */
  <T> T commitThen(IoSupplier<T> change) throws IOException {
    synchronized (lock) {
      commitLocked();
      return change.get();
    }
  }

  /** Whether a writer is open, committed or not yet. */
  boolean hasWriter() {
    synchronized (lock) {
      return out != null;
    }
  }

  /** The size to show: an open writer's length covers bytes not yet committed. */
  long size(long committed) {
    synchronized (lock) {
      BraidOutputStream o = out;
      return o != null && !o.isClosed() ? o.length() : committed;
    }
  }

  /**
   * Commits the writer if this mount has not written for {@code idleNanos}, which releases the
   * file's write lease: another client (a second mount appending to the same log) may then write
   * it, and this mount's next write opens a writer again. A failure is kept for the next write,
   * flush or fsync.
   */
  void commitIfIdle(long idleNanos) {
    synchronized (lock) {
      BraidOutputStream o = out;
      if (o == null || o.isClosed() || System.nanoTime() - lastWrite < idleNanos) {
        return;
      }
      try {
        commitLocked();
      } catch (IOException e) {
        idleCommitFailure = e;
      }
    }
  }

  /**
   * Commits the writer, if any: the file is complete and the lease is released. Attribute changes
   * not sent yet go at the same time, and the commit returns once they are applied too.
   *
   * @throws IOException the commit's failure, or an attribute change's
   */
  void commit() throws IOException {
    synchronized (lock) {
      commitLocked();
    }
  }

  @GuardedBy("lock")
  private void takeIdleCommitFailure() throws IOException {
    IOException e = idleCommitFailure;
    if (e != null) {
      idleCommitFailure = null;
      throw e;
    }
  }

  /**
   * The write token of this inode's writer, or of the last one committed (empty if there was none):
   * with it a handle open for writing truncates as its open allows, not as the mode does.
   */
  @GuardedBy("lock")
  private WriteToken writeToken() {
    BraidOutputStream o = out;
    return o != null && !o.isClosed() ? o.writeToken() : writeToken;
  }

  /**
   * Makes written bytes visible to readers (hflush) if there are any.
   *
   * @return whether there were any
   */
  @GuardedBy("lock")
  private boolean publish() throws IOException {
    BraidOutputStream o = out;
    if (o != null && dirty) {
      o.hflush();
      dirty = false;
      return true;
    }
    return false;
  }

  @GuardedBy("lock")
  private void commitLocked() throws IOException {
    behind.send(); // its journal sync overlaps the data servers' finalize
    BraidOutputStream o = out;
    out = null;
    dirty = false;
    behind.forget();
    if (o != null) {
      writeToken = o.writeToken(); // possibly refreshed since it opened
    }
    IOException failed = null;
    try {
      if (o != null) {
        o.close();
      }
    } catch (IOException e) {
      failed = e;
    }
    try {
      behind.await();
    } catch (IOException e) {
      if (failed == null) {
        failed = e;
      } else {
        failed.addSuppressed(e);
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /** Drops the writer and unsent attribute changes without committing (the client is closing). */
  @GuardedBy("lock")
  private void abandon() {
    BraidOutputStream o = out;
    out = null;
    behind.drop();
    if (o != null) {
      o.abort();
    }
  }

  // ---- attributes -------------------------------------------------------------------------------

  /**
   * The attributes this mount gave the file within the last {@code maxAgeNanos}, if it is writing a
   * file it created (only a chmod or chown by another client could have changed them since, and the
   * kernel's attribute timeout allows that much staleness), else null. The size is the writer's.
   */
  @Nullable FileAttributes known(long maxAgeNanos) {
    synchronized (lock) {
      BraidOutputStream o = out;
      return o != null && !o.isClosed() ? behind.known(maxAgeNanos) : null;
    }
  }

  /**
   * Attribute write-behind of {@code change}, made by {@code client}: if the file's attributes are
   * {@link #known} within {@code maxAgeNanos} and {@code outcome} gives what they are once the
   * change is applied (null: the change must go to the MDS now), the change is taken as done. It
   * reaches the MDS merged with the changes before it (a change by another caller sends those
   * first), and {@code answered} is given the attributes before any other change can be made.
   *
   * @return whether the change was taken
   */
  boolean changeBehind(
      BraidClient client,
      AttrChange change,
      long maxAgeNanos,
      Function<FileAttributes, @Nullable FileAttributes> outcome,
      Consumer<FileAttributes> answered) {
    synchronized (lock) {
      FileAttributes k = known(maxAgeNanos);
      if (k == null) {
        return false;
      }
      FileAttributes after = outcome.apply(k);
      if (after == null) {
        return false;
      }
      behind.add(client, change);
      behind.know(after);
      answered.accept(after);
      return true;
    }
  }

  /** Waits for the changes sent in the background, leaving a failure for the commit to report. */
  void settle() {
    CompletableFuture<?> s;
    synchronized (lock) {
      s = behind.lastSent();
    }
    AttributeWriteBehind.settle(s); // not under the lock: writes go on meanwhile
  }
}
