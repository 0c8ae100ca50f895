package io.braidfs.fuse;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.google.protobuf.ByteString;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.FileAttributes;
import io.braidfs.proto.SetAttrRequest;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The mount's state of one open inode, shared by every handle open on it: the one writer (Braid
 * gives a file's write lease to one stream, so all writing handles of an inode share it), whether
 * it holds bytes readers have not been shown, and how many handles use it.
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
 * <p>Thread-safety: guarded by its own monitor; callers synchronize on the instance (the methods
 * are {@code @GuardedBy("this")}), except for {@link #settle}.
 */
final class OpenFile {
  final long inodeId;

  /** Handles open on the inode; the entry leaves the table at 0. */
  @GuardedBy("this")
  int refs;

  /** Handles open for writing. */
  @GuardedBy("this")
  int writeHandles;

  /**
   * Counts the changes of the inode's data made through this mount (every write and truncate): the
   * one rule of what a change invalidates. A read stream that last saw an older count forgets what
   * it cached (read-ahead blocks, the length, chunk locations that may say "hole") before it reads,
   * whichever user's handle made the change.
   */
  @GuardedBy("this")
  long changes;

  @GuardedBy("this")
  private @Nullable BraidOutputStream out;

  @GuardedBy("this")
  private boolean dirty;

  /** When this mount last wrote the inode ({@link System#nanoTime()}). */
  @GuardedBy("this")
  private long lastWrite;

  /** A commit of an idle writer that failed, to report at the next write, flush or fsync. */
  @GuardedBy("this")
  private @Nullable IOException idleCommitFailure;

  /** The write token of the last writer, kept past its commit for ftruncate(2) of the handles. */
  @GuardedBy("this")
  private ByteString writeToken = ByteString.EMPTY;

  /** The file's attributes as this mount made them, while it writes a file it created. */
  @GuardedBy("this")
  private @Nullable FileAttributes known;

  /** When {@link #known} was last set ({@link System#nanoTime()}). */
  @GuardedBy("this")
  private long knownAt;

  /** Attribute changes not sent yet, merged, with the client of their caller; or null. */
  @GuardedBy("this")
  private SetAttrRequest.@Nullable Builder unsent;

  @GuardedBy("this")
  private @Nullable BraidClient unsentBy;

  @GuardedBy("this")
  private long unsentSince;

  /**
   * The attribute change sent last; never null. Written under the monitor; volatile because {@link
   * #settle} waits for it without the monitor.
   */
  private volatile CompletableFuture<?> sent = CompletableFuture.completedFuture(null);

  OpenFile(long inodeId) {
    this.inodeId = inodeId;
  }

  /** The writer, opened through {@code client} at {@code path} if there is none. */
  @GuardedBy("this")
  BraidOutputStream writer(BraidClient client, String path) throws IOException {
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
   * The write token of this inode's writer, or of the last one committed (empty if there was none):
   * with it a handle open for writing truncates as its open allows, not as the mode does.
   */
  @GuardedBy("this")
  ByteString writeToken() {
    BraidOutputStream o = out;
    return o != null && !o.isClosed() ? o.writeToken() : writeToken;
  }

  /** Adopts the writer of a file just created. */
  @GuardedBy("this")
  void adopt(BraidOutputStream created) {
    out = created;
    writeToken = created.writeToken();
    known = created.createdAttributes();
    knownAt = System.nanoTime();
  }

  @GuardedBy("this")
  @Nullable BraidOutputStream currentWriter() {
    return out;
  }

  @GuardedBy("this")
  void wrote() {
    dirty = true;
    changes++;
    lastWrite = System.nanoTime();
  }

  /**
   * Commits the writer if this mount has not written for {@code idleNanos}, which releases the
   * file's write lease: another client (a second mount appending to the same log) may then write
   * it, and this mount's next write opens a writer again. A failure is kept for {@link
   * #takeIdleCommitFailure}.
   */
  @GuardedBy("this")
  void commitIfIdle(long idleNanos, Executor executor) {
    BraidOutputStream o = out;
    if (o == null || o.isClosed() || System.nanoTime() - lastWrite < idleNanos) {
      return;
    }
    try {
      commit(executor);
    } catch (IOException e) {
      idleCommitFailure = e;
    }
  }

  /** Throws, once, the failure of a commit of an idle writer, if one failed. */
  @GuardedBy("this")
  void takeIdleCommitFailure() throws IOException {
    IOException e = idleCommitFailure;
    if (e != null) {
      idleCommitFailure = null;
      throw e;
    }
  }

  /**
   * The attributes this mount gave the file within the last {@code maxAgeNanos}, if it is writing a
   * file it created (only a chmod or chown by another client could have changed them since, and the
   * kernel's attribute timeout allows that much staleness), else null. The size is the writer's.
   */
  @GuardedBy("this")
  @Nullable FileAttributes known(long maxAgeNanos) {
    BraidOutputStream o = out;
    return o != null && !o.isClosed() && System.nanoTime() - knownAt < maxAgeNanos ? known : null;
  }

  /**
   * Takes {@code change}, made by {@code client}, as done: {@code after} are the file's attributes
   * now. It reaches the MDS merged with the changes before it (a change by another caller sends
   * those first).
   */
  @GuardedBy("this")
  void changeBehind(
      FileAttributes after, BraidClient client, SetAttrRequest change, Executor executor) {
    if (unsent != null && unsentBy != client) {
      send(executor);
    }
    if (unsent == null) {
      unsent = SetAttrRequest.newBuilder().setInodeId(inodeId);
      unsentBy = client;
      unsentSince = System.nanoTime();
    }
    unsent.mergeFrom(change);
    known = after;
    knownAt = System.nanoTime();
  }

  /** Sends the unsent changes in the background if they are older than {@code maxAgeNanos}. */
  @GuardedBy("this")
  void sendIfOlder(long maxAgeNanos, Executor executor) {
    if (unsent != null && System.nanoTime() - unsentSince >= maxAgeNanos) {
      send(executor);
    }
  }

  @GuardedBy("this")
  private void sendUnsent(Executor executor) {
    if (unsent != null) {
      send(executor);
    }
  }

  /** Sends the unsent changes in the background, after those sent before. */
  @GuardedBy("this")
  private void send(Executor executor) {
    SetAttrRequest.Builder u = unsent;
    BraidClient c = unsentBy;
    if (u == null || c == null) {
      return; // nothing unsent (the two are set and cleared together)
    }
    SetAttrRequest req = u.build();
    unsent = null;
    unsentBy = null;
    sent =
        sent.thenRunAsync(
            () -> {
              try {
                c.setAttr(req);
              } catch (IOException e) {
                throw new CompletionException(e);
              }
            },
            executor);
  }

  /**
   * Waits for the changes sent in the background, leaving a failure for the commit to report. Needs
   * no monitor: other calls on the file go on while it waits.
   */
  void settle() {
    try {
      sent.handle((r, e) -> null).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // handle() completes normally
    }
  }

  /**
   * Makes written bytes visible to readers (hflush) if there are any.
   *
   * @return whether there were any
   */
  @GuardedBy("this")
  boolean publish() throws IOException {
    BraidOutputStream o = out;
    if (o != null && dirty) {
      o.hflush();
      dirty = false;
      return true;
    }
    return false;
  }

  /**
   * Commits the writer, if any: the file is complete and the lease is released. Attribute changes
   * not sent yet go at the same time, and the commit returns once they are applied too.
   *
   * @throws IOException the commit's failure, or an attribute change's
   */
  @GuardedBy("this")
  void commit(Executor executor) throws IOException {
    sendUnsent(executor); // its journal sync overlaps the data servers' finalize
    BraidOutputStream o = out;
    out = null;
    dirty = false;
    known = null;
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
      awaitSent();
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

  /**
   * Sends the unsent attribute changes and waits until they are applied (fsync(2): the inode's
   * metadata is durable too).
   *
   * @throws IOException the first change's failure
   */
  @GuardedBy("this")
  void syncAttributes(Executor executor) throws IOException {
    sendUnsent(executor);
    awaitSent();
  }

  @GuardedBy("this")
  private void awaitSent() throws IOException {
    CompletableFuture<?> s = sent;
    sent = CompletableFuture.completedFuture(null);
    try {
      s.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for attribute changes");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    }
  }

  /** Drops the writer and unsent attribute changes without committing (the client is closing). */
  @GuardedBy("this")
  void abandon() {
    BraidOutputStream o = out;
    out = null;
    known = null;
    unsent = null;
    unsentBy = null;
    if (o != null) {
      o.abort();
    }
  }
}
