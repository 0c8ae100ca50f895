package io.braidfs.fuse;

import io.braidfs.client.AttrChange;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.FileAttributes;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mount's open files: the handles ({@code fi->fh} ids), one {@link OpenFile} per open inode
 * (its writer, change count and held-back attribute changes, shared by the inode's handles and
 * counted by them), and the files this mount created and is writing, by path, for attribute
 * write-behind. Every step of a FUSE operation that reads or changes an open inode's state goes
 * through here or through the {@link OpenFile} and {@link FileHandle} it hands out, which take
 * their own locks; callers hold none.
 *
 * <p>Write lease: a write, truncate or O_TRUNC open that finds the file's lease held by another
 * client retries for up to {@link #LEASE_WAIT_NANOS}, holding no lock while it waits, and a
 * background sweep commits writers this mount has left idle for the attribute timeout, so that
 * mounts take turns as NFS clients do.
 *
 * <p>Locking: the three maps are concurrent and need no lock of their own. Each inode's state is
 * guarded by its {@link OpenFile}'s lock, a handle's read stream by the {@link FileHandle}'s; no
 * thread holds two of them. An inode's entry is created and dropped inside {@code files.compute},
 * with its reference count changed under its own lock there, so an entry never leaves the table
 * while a handle still uses it. The {@code writing} index is changed under the inode's lock where
 * its removal must not interleave with that inode's other steps.
 *
 * <p>Thread-safety: thread-safe.
 */
final class OpenFileTable {
  private static final Logger LOG = LoggerFactory.getLogger(OpenFileTable.class);

  /** The shortest pause after which a writer counts as idle, whatever the attribute timeout. */
  private static final long MIN_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** How long a write waits for another client to let go of the file's write lease. */
  private static final long LEASE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final String name;
  private final RecentAttributes recent;
  private final long attrTimeoutNanos;
  private final Map<Long, FileHandle> handles = new ConcurrentHashMap<>();
  private final AtomicLong nextHandle = new AtomicLong(1);

  /** Open inodes by id, each as long as a handle uses it. */
  private final Map<Long, OpenFile> files = new ConcurrentHashMap<>();

  /** Files this mount created and is writing, by path, for attribute write-behind (OpenFile). */
  private final Map<String, OpenFile> writing = new ConcurrentHashMap<>();

  /** Runs the attribute changes sent in the background. */
  private final ExecutorService behind =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "braid-fuse-attributes");
            t.setDaemon(true);
            return t;
          });

  /**
   * Commits writers left idle (every quarter of the attribute timeout, at least every 50 ms), so
   * that a file this mount stopped writing is free for other clients to write.
   */
  private final ScheduledExecutorService idle =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "braid-fuse-idle-writers");
            t.setDaemon(true);
            return t;
          });

  /**
   * A table whose idle-writer sweep starts now.
   *
   * @param name the mount's name in logs
   * @param recent what the mount's own changes answered, forgotten as writes change the files
   * @param attrTimeout how long the kernel reuses attributes (and this mount its own changes')
   */
  OpenFileTable(String name, RecentAttributes recent, Duration attrTimeout) {
    this.name = name;
    this.recent = recent;
    this.attrTimeoutNanos = attrTimeout.toNanos();
    long period = Math.max(50, attrTimeout.toMillis() / 4);
    idle.scheduleWithFixedDelay(this::commitIdleWriters, period, period, TimeUnit.MILLISECONDS);
  }

  /** How many handles are open. */
  int openHandles() {
    return handles.size();
  }

  /** The handle {@code fh}, or null if it is not open. */
  @Nullable FileHandle handle(long fh) {
    return handles.get(fh);
  }

  // ---- open and close ---------------------------------------------------------------------------

  /**
   * A handle on the file {@code out} has just created at {@code path}, open for writing through it.
   *
   * @return the handle's id
   */
  long create(BraidClient c, String path, BraidOutputStream out, boolean append) {
    OpenFile f = acquire(out.inodeId());
    try {
      f.openedCreated(out);
      long fh = register(new FileHandle(c, f, true, append, null, 0));
      writing.put(path, f);
      return fh;
    } catch (RuntimeException e) {
      release(f);
      throw e;
    }
  }

  /**
   * A handle open for writing on inode {@code inodeId} at {@code path}; with {@code truncate}
   * (O_TRUNC), the file is truncated to 0 first, waiting for the write lease if another client
   * holds it.
   *
   * @return the handle's id
   */
  long openForWriting(BraidClient c, String path, long inodeId, boolean truncate, boolean append)
      throws IOException {
    OpenFile f = acquire(inodeId);
    try {
      if (truncate) {
        withLease(path, () -> f.truncateAtOpen(() -> c.truncate(path, 0)));
      }
      f.openedForWriting();
      return register(new FileHandle(c, f, true, append, null, 0));
    } catch (IOException | RuntimeException e) {
      release(f);
      throw e;
    }
  }

  /**
   * A read-only handle reading through {@code in}, just opened; {@code in} is closed if the handle
   * cannot be made.
   *
   * @return the handle's id
   */
  long openForReading(BraidClient c, BraidInputStream in, boolean append) throws IOException {
    OpenFile f = null;
    try {
      f = acquire(in.inodeId());
      long changes = f.publishFor(in);
      return register(new FileHandle(c, f, false, append, in, changes));
    } catch (IOException | RuntimeException e) {
      in.close();
      if (f != null) {
        release(f);
      }
      throw e;
    }
  }

  /**
   * release(2) of handle {@code fh} at {@code path}: the last writing handle of the inode commits
   * its writer; the handle's stream is closed and the inode's entry let go whether that commit
   * succeeds or not.
   *
   * @throws IOException the commit's failure
   */
  void release(long fh, String path) throws IOException {
    FileHandle h = handles.remove(fh);
    if (h == null) {
      return;
    }
    try {
      if (h.writable) {
        h.file.closedForWriting(() -> writing.remove(path, h.file));
      }
    } finally {
      h.closeInput();
      release(h.file);
    }
  }

  private long register(FileHandle h) {
    long id = nextHandle.getAndIncrement();
    handles.put(id, h);
    return id;
  }

  private OpenFile acquire(long inodeId) {
    return files.compute(
        inodeId,
        (k, f) -> {
          OpenFile o = f != null ? f : new OpenFile(k, behind);
          o.retain();
          return o;
        });
  }

  private void release(OpenFile f) {
    files.computeIfPresent(f.inodeId, (k, o) -> o.releaseRef() ? o : null);
  }

  // ---- data -------------------------------------------------------------------------------------

  /** write(2) through {@code h} of {@code src} at {@code offset} (see {@link OpenFile#write}). */
  void write(FileHandle h, String path, long offset, ByteBuffer src) throws IOException {
    withLease(path, () -> h.file.openWriter(h.client, path));
    h.file.write(h.client, path, h.append, offset, src, attrTimeoutNanos);
    recent.forget(path); // a stat after a write asks again (the size comes from the writer)
  }

  /** close(2) of a writing handle (see {@link OpenFile#flush}). */
  void flush(FileHandle h, String path) throws IOException {
    h.file.flush(() -> recent.forget(path)); // the commit moves mtime
  }

  /**
   * Truncates the file {@code inodeId} at {@code path} to {@code size}, waiting for the write lease
   * if another client holds it: this mount's writer of it is committed first and reopened by the
   * next write. Through a handle open for writing ({@code byWriter}), the truncate is checked
   * against that open, not the mode.
   */
  FileAttributes truncate(BraidClient c, String path, long inodeId, long size, boolean byWriter)
      throws IOException {
    return withLease(
        path,
        () -> {
          OpenFile f = files.get(inodeId);
          if (f == null) {
            return c.truncate(path, size);
          }
          return f.truncate(
              token -> byWriter ? c.truncate(path, size, token) : c.truncate(path, size));
        });
  }

  /** An operation that may find the file's write lease held by another client. */
  @FunctionalInterface
  private interface LeaseAction<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code action}, again while it fails because another client holds the file's write lease,
   * for up to {@link #LEASE_WAIT_NANOS}: that client commits a writer it left idle within the
   * attribute timeout ({@link OpenFile#commitIfIdle}), as NFS lets clients take turns. The action
   * takes the locks it needs itself, so none is held while waiting.
   *
   * @throws IOException LEASE_CONFLICT (EBUSY) if the lease stayed taken, or the action's failure
   */
  private static <T> T withLease(String path, LeaseAction<T> action) throws IOException {
    long deadline = System.nanoTime() + LEASE_WAIT_NANOS;
    long pauseMs = 5;
    while (true) {
      try {
        return action.run();
      } catch (IOException e) {
        if (StatusExceptions.statusOf(e) != Status.LEASE_CONFLICT
            || System.nanoTime() - deadline > 0) {
          throw e;
        }
      }
      // Polled: the MDS cannot tell a client when another client's lease ends (callbacks to
      // clients come with issue 30), so back off from 5 ms to 200 ms within the 10 s wait.
      try {
        Thread.sleep(pauseMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(path + ": interrupted waiting for its write lease");
      }
      pauseMs = Math.min(pauseMs * 2, 200);
    }
  }

  /** Commits writers this mount has left idle for the attribute timeout (see OpenFile). */
  private void commitIdleWriters() {
    for (OpenFile f : files.values()) {
      // A scheduled task that throws is never run again: one bad file must not stop the sweep.
      try {
        f.commitIfIdle(Math.max(attrTimeoutNanos, MIN_IDLE_NANOS));
      } catch (RuntimeException e) {
        LOG.warn("{}: inode {}: idle commit failed", name, f.inodeId, e);
      }
    }
  }

  // ---- attributes -------------------------------------------------------------------------------

  /**
   * The attributes of a file at {@code path} this mount created and is writing, as it made them, if
   * still fresh (the kernel asks again after every write); else null, once the attribute changes
   * sent in the background have been applied, so that the MDS shows them.
   */
  @Nullable FileAttributes writtenAttributes(String path) {
    OpenFile w = writing.get(path);
    if (w == null) {
      return null;
    }
    FileAttributes a = w.known(attrTimeoutNanos);
    if (a == null) {
      w.settle();
    }
    return a;
  }

  /** The size to show for {@code a}: an open writer's length covers bytes not yet committed. */
  long sizeOf(FileAttributes a) {
    if (!a.isFile()) {
      return a.size();
    }
    OpenFile f = files.get(a.inodeId());
    return f == null ? a.size() : f.size(a.size());
  }

  /**
   * Attribute write-behind of {@code change} by {@code c} to a file at {@code path} this mount
   * created and is writing (see {@link OpenFile#changeBehind}); {@code answered} runs under the
   * file's lock.
   *
   * @return whether the change was taken; if not, it must go to the MDS now
   */
  boolean changeBehind(
      String path,
      BraidClient c,
      AttrChange change,
      Function<FileAttributes, @Nullable FileAttributes> outcome,
      Consumer<FileAttributes> answered) {
    OpenFile w = writing.get(path);
    return w != null && w.changeBehind(c, change, attrTimeoutNanos, outcome, answered);
  }

  /**
   * Runs {@code change} (utimens), after committing this mount's writer of the file at {@code path}
   * if there is one and under its lock: a later commit would set mtime again, so written bytes go
   * first.
   */
  <T> T afterCommit(String path, BraidClient c, OpenFile.IoSupplier<T> change) throws IOException {
    OpenFile f = writing.get(path);
    if (f == null && writersOpen()) {
      f = files.get(inodeOf(c, path)); // opened for writing elsewhere, or renamed since
    }
    return f != null ? f.commitThen(change) : change.get();
  }

  /** Whether any file has uncommitted writes through this mount. */
  private boolean writersOpen() {
    for (OpenFile f : files.values()) {
      if (f.hasWriter()) {
        return true;
      }
    }
    return false;
  }

  /** The inode id of {@code path}, from what the mount's changes answered or else the MDS. */
  long inodeOf(BraidClient c, String path) throws IOException {
    long id = recent.inodeOf(path);
    return id != 0 ? id : c.lstat(path).inodeId();
  }

  // ---- namespace --------------------------------------------------------------------------------

  /** {@code path} is unlinked: its attribute changes go straight to the MDS from now. */
  void unlinked(String path) {
    writing.remove(path);
  }

  /** A rename moved paths: every file's attribute changes go straight to the MDS from now. */
  void renamed() {
    writing.clear();
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  /** Unmounted: writers of files still open (a killed process) are committed. */
  void commitAll() {
    for (Long id : List.copyOf(handles.keySet())) {
      FileHandle h = handles.get(id);
      if (h != null) {
        LOG.info("{}: unmounted with a file still open (inode {})", name, h.file.inodeId);
      }
    }
    for (OpenFile f : List.copyOf(files.values())) {
      try {
        f.commit();
      } catch (IOException | RuntimeException e) {
        LOG.warn("{}: inode {}: cannot commit at unmount: {}", name, f.inodeId, e.toString());
      }
    }
  }

  /** Stops the background threads (the mount is closing). */
  void shutdown() {
    idle.shutdownNow();
    behind.shutdown();
  }
}
