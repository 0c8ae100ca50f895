package io.braidfs.fuse;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import com.kenai.jffi.MemoryIO;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.DirectoryPage;
import io.braidfs.client.FileAttributes;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.FileType;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.StatFsResponse;
import io.braidfs.proto.XattrSetMode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseContext;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.FuseOperations;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * Braid as a FUSE file system on jnr-fuse (libfuse 2, high-level path API): every operation goes to
 * a {@link BraidClient} acting as the calling process's user (see {@link ClientPool}).
 *
 * <p>File handles: {@code fi->fh} is an id in a handle table; a handle holds its caller's client, a
 * read stream opened at open(2) (close-to-open: open asks the MDS) and the inode's shared {@link
 * OpenFile}, whose one writer takes every write at its offset (pwrite). close(2) commits the writer
 * of the last writing handle, so a file closed here is complete for other clients; fsync(2) is
 * hsync. A read on an inode with unpublished writes hflushes them first.
 *
 * <p>Unlink or rename over a file that is still open is handled by libfuse's high-level layer
 * (without {@code hard_remove}): the file is renamed to {@code .fuse_hiddenNNN} and removed at its
 * last release, as NFS does; open handles keep reading and writing it.
 *
 * <p>Special files (FIFOs, devices, sockets) are inodes only: {@link #mknod} makes them, getattr
 * shows their type and device number, and the kernel does their I/O without calling this class.
 *
 * <p>Errors: every exception becomes an errno in {@link FuseErrors}; operations Braid does not have
 * answer ENOSYS (left unimplemented, so libfuse answers) or EOPNOTSUPP.
 *
 * <p>Thread-safety: thread-safe; libfuse's multi-threaded loop calls it from many native threads.
 */
public final class BraidFuse extends FuseStubFS {
  private static final Logger LOG = LoggerFactory.getLogger(BraidFuse.class);

  private static final int O_ACCMODE = 03;
  private static final int O_WRONLY = 01;
  private static final int O_RDWR = 02;
  private static final int O_TRUNC = 01000;
  private static final int O_APPEND = 02000;
  private static final long UTIME_NOW = (1L << 30) - 1;
  private static final long UTIME_OMIT = (1L << 30) - 2;
  private static final int XATTR_CREATE = 1;
  private static final int XATTR_REPLACE = 2;
  private static final int BLOCK = 4096;
  private static final int SETID = 06000;
  private static final int LIST_PAGE = 1000;

  /** The shortest pause after which a writer counts as idle, whatever the attribute timeout. */
  private static final long MIN_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** How long a write waits for another client to let go of the file's write lease. */
  private static final long LEASE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final ClientPool clients;
  private final Identities ids;
  private final String name;
  private final Map<Long, Handle> handles = new ConcurrentHashMap<>();
  private final Map<Long, OpenFile> files = new ConcurrentHashMap<>();
  private final AtomicLong nextHandle = new AtomicLong(1);
  private final RecentAttributes recent;
  private final CallerGroups callerGroups = new CallerGroups();
  private final long attrTimeoutNanos;

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

  private final int statSize = Struct.size(new FileStat(Runtime.getSystemRuntime()));

  /** One open(2) of a file: the caller's client, its read stream, the inode's shared state. */
  private static final class Handle {
    final BraidClient client;
    final OpenFile file;
    final boolean readable;
    final boolean writable;
    final boolean append;

    @GuardedBy("this")
    @Nullable BraidInputStream in;

    @GuardedBy("this")
    long inChanges; // the file's change count the stream last saw

    Handle(BraidClient client, OpenFile file, boolean readable, boolean writable, boolean append) {
      this.client = client;
      this.file = file;
      this.readable = readable;
      this.writable = writable;
      this.append = append;
    }
  }

  /**
   * A file system over the clients of {@code clients}.
   *
   * @param name the name in logs and in the mount table (fsname)
   * @param attrTimeout how long the kernel reuses attributes (and this mount its own changes')
   */
  BraidFuse(ClientPool clients, String name, Duration attrTimeout) {
    this.clients = clients;
    this.ids = clients.identities();
    this.name = name;
    this.recent = new RecentAttributes(attrTimeout);
    this.attrTimeoutNanos = attrTimeout.toNanos();
    utimeOmitOk(fuseOperations);
    long period = Math.max(50, attrTimeout.toMillis() / 4);
    idle.scheduleWithFixedDelay(this::commitIdleWriters, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * Sets {@code flag_utime_omit_ok} in libfuse 2's {@code struct fuse_operations}: without it
   * libfuse calls utimens only when both times are set, dropping utimensat calls that set one
   * (touch -a, touch -m), and turns UTIME_NOW into explicit times, which only the owner may set
   * (touch by another user who may write). jnr-fuse maps the flag word as padding, so the bit is
   * set in the struct's memory: bit 2 of the bit-field word that follows the 38 operation pointers
   * from {@code getattr} to {@code bmap} (GCC's layout, first bit-field in the lowest bit, on the
   * little-endian x86-64 and aarch64 that libfuse 2 runs on here).
   */
  private static void utimeOmitOk(FuseOperations ops) {
    Pointer memory = Struct.getMemory(ops);
    long flags = 38L * ops.getRuntime().addressSize();
    memory.putByte(flags, (byte) (memory.getByte(flags) | 0x04));
  }

  @Override
  protected String getFSName() {
    return name;
  }

  /** Stops the background threads (the mount is closing). */
  void shutdown() {
    idle.shutdownNow();
    behind.shutdown();
  }

  /** The fsname the mount shows in the mount table. */
  String getFSNameForMount() {
    return name;
  }

  /** How many files are open through the mount now. */
  public int openHandles() {
    return handles.size();
  }

  // ---- identity ---------------------------------------------------------------------------------

  private BraidClient caller() throws IOException {
    FuseContext ctx = getContext();
    int pid = (int) ctx.pid.get();
    return clients.client((int) ctx.uid.get(), (int) ctx.gid.get(), callerGroups.of(pid));
  }

  private int callerUid() {
    return (int) getContext().uid.get();
  }

  /** Keeps what a change answered for the getattr libfuse sends next; returns 0. */
  private int changed(String path, FileAttributes a) {
    recent.put(path, callerUid(), a);
    return 0;
  }

  // ---- attributes -------------------------------------------------------------------------------

  @Override
  public int getattr(String path, FileStat stat) {
    try {
      FileAttributes a = recent.take(path, callerUid());
      if (a == null) {
        OpenFile w = writing.get(path);
        if (w != null) {
          synchronized (w) {
            a = w.known(attrTimeoutNanos); // the kernel asks again after every write
          }
          if (a == null) {
            w.settle(); // changes sent in the background are seen
          }
        }
        if (a == null) {
          a = caller().lstat(path);
        }
      }
      fill(stat, a, sizeOf(a));
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("getattr", path, e);
    }
  }

  @Override
  public int fgetattr(String path, FileStat stat, FuseFileInfo fi) {
    return getattr(path, stat);
  }

  /** The size to show: an open writer's length covers bytes not yet committed. */
  private long sizeOf(FileAttributes a) {
    if (!a.isFile()) {
      return a.size();
    }
    OpenFile f = files.get(a.inodeId());
    if (f == null) {
      return a.size();
    }
    synchronized (f) {
      BraidOutputStream out = f.currentWriter();
      return out != null && !out.isClosed() ? out.length() : a.size();
    }
  }

  /** The {@code S_IF*} bits of a type; an unknown type shows as a regular file. */
  private static int typeBits(FileType type) {
    return switch (type) {
      case FILE_TYPE_DIRECTORY -> FileStat.S_IFDIR;
      case FILE_TYPE_SYMLINK -> FileStat.S_IFLNK;
      case FILE_TYPE_FIFO -> FileStat.S_IFIFO;
      case FILE_TYPE_CHARACTER_DEVICE -> FileStat.S_IFCHR;
      case FILE_TYPE_BLOCK_DEVICE -> FileStat.S_IFBLK;
      case FILE_TYPE_SOCKET -> FileStat.S_IFSOCK;
      case FILE_TYPE_REGULAR, FILE_TYPE_UNSPECIFIED, UNRECOGNIZED -> FileStat.S_IFREG;
    };
  }

  /**
   * The bytes {@code st_blocks} counts (du): for a file, what its chunks hold at the MDS, so a hole
   * takes no space; while this mount writes it ({@code size} is then the writer's length), at least
   * that length, since the chunks are reported only as they are finished and at commit. Directories
   * and symlinks show their size, as before.
   */
  private static long allocatedOf(FileAttributes a, long size) {
    if (!a.isFile()) {
      return size;
    }
    return size == a.size() ? a.allocatedBytes() : Math.max(size, a.allocatedBytes());
  }

  private void fill(FileStat st, FileAttributes a, long size) {
    st.st_mode.set(typeBits(a.type()) | (a.mode() & 07777));
    st.st_rdev.set(a.rdev());
    st.st_ino.set(a.inodeId());
    st.st_nlink.set(Math.max(1, a.nlink()));
    st.st_uid.set(ids.uid(a.user()));
    st.st_gid.set(ids.gid(a.group()));
    st.st_size.set(size);
    st.st_blksize.set(BLOCK);
    st.st_blocks.set((allocatedOf(a, size) + 511) / 512);
    time(st.st_atim, a.atimeNanos());
    time(st.st_mtim, a.mtimeNanos());
    time(st.st_ctim, a.ctimeNanos());
  }

  private static void time(Timespec t, long nanos) {
    t.tv_sec.set(Math.floorDiv(nanos, 1_000_000_000L));
    t.tv_nsec.set(Math.floorMod(nanos, 1_000_000_000L));
  }

  @Override
  public int chmod(String path, @mode_t long mode) {
    try {
      BraidClient c = caller();
      int m = (int) mode & 07777;
      OpenFile w = writing.get(path);
      if (w != null && (m & SETID) == 0) {
        synchronized (w) {
          FileAttributes k = w.known(attrTimeoutNanos);
          if (k != null && (callerUid() == 0 || k.user().equals(c.user()))) {
            FileAttributes after = changedAttributes(k, b -> b.setMode(m));
            w.changeBehind(after, c, SetAttrRequest.newBuilder().setMode(m).build(), behind);
            return changed(path, after);
          }
        }
      }
      try {
        return changed(path, c.setPermission(path, m));
      } catch (IOException e) {
        if (StatusExceptions.statusOf(e) != Status.PERMISSION_DENIED
            || callerUid() == 0
            || !onlyClearsSetId(c.lstat(path).mode(), m)) {
          throw e;
        }
        // A chmod from a non-owner that only drops set-id bits is the kernel's own, after a write
        // (default_permissions has refused any other): the MDS allows it to writers.
        return changed(
            path, c.setAttr(SetAttrRequest.newBuilder().setPath(path).setKillSetid(true).build()));
      }
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("chmod", path, e);
    }
  }

  /** Whether going from {@code mode} to {@code wanted} only clears set-id bits. */
  private static boolean onlyClearsSetId(int mode, int wanted) {
    return (mode & 07777 & ~SETID) == (wanted & ~SETID)
        && (wanted & SETID & ~mode) == 0
        && (wanted & SETID) != (mode & SETID);
  }

  @Override
  public int chown(String path, long uid, long gid) {
    try {
      String user = (int) uid == -1 ? null : ids.userName((int) uid);
      String group = (int) gid == -1 ? null : ids.groupName((int) gid);
      BraidClient c = caller();
      if (user == null && group == null) {
        return changed(path, c.lstat(path));
      }
      OpenFile w = writing.get(path);
      if (w != null && callerUid() == 0) {
        synchronized (w) {
          FileAttributes k = w.known(attrTimeoutNanos);
          if (k != null && (k.mode() & SETID) == 0) { // else the MDS may clear set-id bits
            SetAttrRequest.Builder b = SetAttrRequest.newBuilder();
            if (user != null) {
              b.setUser(user);
            }
            if (group != null) {
              b.setGroup(group);
            }
            SetAttrRequest req = b.build();
            FileAttributes after =
                changedAttributes(
                    k,
                    a ->
                        a.setUser(req.hasUser() ? req.getUser() : k.user())
                            .setGroup(req.hasGroup() ? req.getGroup() : k.group()));
            w.changeBehind(after, c, req, behind);
            return changed(path, after);
          }
        }
      }
      return changed(path, c.setOwner(path, user, group));
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("chown", path, e);
    }
  }

  @Override
  public int utimens(String path, Timespec[] timespec) {
    try {
      SetAttrRequest.Builder b = SetAttrRequest.newBuilder().setPath(path);
      times(timespec[0], b, true);
      times(timespec[1], b, false);
      BraidClient c = caller();
      OpenFile f = writing.get(path);
      if (f == null && writersOpen()) {
        f = files.get(inodeOf(c, path)); // opened for writing elsewhere, or renamed since
      }
      if (f != null) {
        synchronized (f) {
          f.commit(behind); // a later commit would set mtime again: written bytes go first
          return changed(path, c.setAttr(b.build()));
        }
      }
      return changed(path, c.setAttr(b.build()));
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("utimens", path, e);
    }
  }

  /** {@code known} with a change applied and ctime now, as the MDS will make it. */
  private static FileAttributes changedAttributes(
      FileAttributes known, UnaryOperator<Attributes.Builder> change) {
    long now = System.currentTimeMillis() * 1_000_000L;
    return FileAttributes.of(change.apply(known.toProto().toBuilder()).setCtimeNs(now).build());
  }

  /** Whether any file has uncommitted writes through this mount. */
  private boolean writersOpen() {
    for (OpenFile f : files.values()) {
      synchronized (f) {
        if (f.currentWriter() != null) {
          return true;
        }
      }
    }
    return false;
  }

  private long inodeOf(BraidClient c, String path) throws IOException {
    long id = recent.inodeOf(path);
    return id != 0 ? id : c.lstat(path).inodeId();
  }

  private static void times(Timespec t, SetAttrRequest.Builder b, boolean atime) {
    long nsec = t.tv_nsec.longValue();
    if (nsec == UTIME_OMIT) {
      return;
    }
    if (nsec == UTIME_NOW) {
      if (atime) {
        b.setAtimeNow(true);
      } else {
        b.setMtimeNow(true);
      }
      return;
    }
    long ns = t.tv_sec.get() * 1_000_000_000L + nsec;
    if (atime) {
      b.setAtimeNs(ns);
    } else {
      b.setMtimeNs(ns);
    }
  }

  @Override
  public int truncate(String path, @off_t long size) {
    try {
      BraidClient c = caller();
      long inode = inodeOf(c, path);
      return changed(path, withLease(path, () -> truncate(c, path, inode, size, false)));
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("truncate", path, e);
    }
  }

  @Override
  public int ftruncate(String path, @off_t long size, FuseFileInfo fi) {
    Handle h = handles.get(fi.fh.get());
    if (h == null) {
      return -FuseErrors.EBADF;
    }
    try {
      return changed(
          path, withLease(path, () -> truncate(h.client, path, h.file.inodeId, size, h.writable)));
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("ftruncate", path, e);
    }
  }

  /**
   * Truncates: an open writer is committed first and reopened by the next write. Through a handle
   * open for writing ({@code byWriter}), the truncate is checked against that open, not the mode.
   */
  private FileAttributes truncate(
      BraidClient c, String path, long inodeId, long size, boolean byWriter) throws IOException {
    OpenFile f = files.get(inodeId);
    if (f == null) {
      return c.truncate(path, size);
    }
    synchronized (f) {
      f.commit(behind);
      FileAttributes a = byWriter ? c.truncate(path, size, f.writeToken()) : c.truncate(path, size);
      f.changes++;
      return a;
    }
  }

  @Override
  public int access(String path, int mask) {
    try {
      FuseContext ctx = getContext();
      int uid = (int) ctx.uid.get();
      FileAttributes a = caller().lstat(path);
      if (mask == 0) {
        return 0;
      }
      int mode = a.mode();
      if (uid == 0) {
        // root: everything but executing a file with no x bit at all
        return (mask & 1) != 0 && a.isFile() && (mode & 0111) == 0 ? -FuseErrors.EACCES : 0;
      }
      int bits;
      if (ids.uid(a.user()) == uid) {
        bits = (mode >> 6) & 7;
      } else if (clients
          .groupNames(uid, (int) ctx.gid.get(), callerGroups.of((int) ctx.pid.get()))
          .contains(a.group())) {
        bits = (mode >> 3) & 7;
      } else {
        bits = mode & 7;
      }
      return (bits & mask) == mask ? 0 : -FuseErrors.EACCES;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("access", path, e);
    }
  }

  // ---- directories ------------------------------------------------------------------------------

  @Override
  public int mkdir(String path, @mode_t long mode) {
    try {
      return changed(path, caller().mkdir(path, (int) mode & 07777));
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("mkdir", path, e);
    }
  }

  @Override
  public int rmdir(String path) {
    try {
      recent.forget(path);
      caller().rmdir(path);
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("rmdir", path, e);
    }
  }

  @Override
  public int readdir(
      String path, Pointer buf, FuseFillDir filter, @off_t long offset, FuseFileInfo fi) {
    try {
      BraidClient c = caller();
      Pointer mem = Memory.allocateDirect(Runtime.getSystemRuntime(), statSize, true);
      FileStat st = FileStat.of(mem);
      filter.apply(buf, ".", null, 0);
      filter.apply(buf, "..", null, 0);
      String after = "";
      while (true) {
        DirectoryPage page = c.list(path, after, LIST_PAGE, false);
        for (DirectoryEntry e : page.entries()) {
          FileAttributes a = e.attributes();
          if (a != null) {
            fill(st, a, a.size());
          } else {
            st.st_ino.set(e.inodeId());
            st.st_mode.set(typeBits(e.type()));
          }
          if (filter.apply(buf, e.name(), st, 0) != 0) {
            return 0; // the kernel's buffer is full (cannot happen with offset 0 fills)
          }
        }
        List<DirectoryEntry> entries = page.entries();
        if (!page.hasMore() || entries.isEmpty()) {
          return 0;
        }
        after = entries.get(entries.size() - 1).name();
      }
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("readdir", path, e);
    }
  }

  @Override
  public int fsyncdir(String path, FuseFileInfo fi) {
    return 0; // every namespace change is durable at the MDS when it returns
  }

  // ---- entries ----------------------------------------------------------------------------------

  @Override
  public int unlink(String path) {
    try {
      recent.forget(path);
      writing.remove(path);
      caller().unlink(path);
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("unlink", path, e);
    }
  }

  @Override
  public int rename(String oldpath, String newpath) {
    try {
      recent.forgetAll();
      writing.clear(); // paths moved; those files' attribute changes go straight to the MDS
      caller().rename(oldpath, newpath);
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("rename", oldpath + " -> " + newpath, e);
    }
  }

  @Override
  public int link(String oldpath, String newpath) {
    try {
      FileAttributes a = caller().link(oldpath, newpath);
      recent.forget(oldpath); // its nlink and ctime changed
      return changed(newpath, a);
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("link", oldpath + " -> " + newpath, e);
    }
  }

  @Override
  public int symlink(String oldpath, String newpath) {
    try {
      return changed(newpath, caller().symlink(oldpath, newpath, false));
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("symlink", newpath, e);
    }
  }

  @Override
  public int readlink(String path, Pointer buf, @size_t long size) {
    try {
      byte[] target = caller().readLink(path).getBytes(StandardCharsets.UTF_8);
      if (size <= 0) {
        return -FuseErrors.EINVAL;
      }
      int n = (int) Math.min(target.length, size - 1);
      buf.put(0, target, 0, n);
      buf.putByte(n, (byte) 0);
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("readlink", path, e);
    }
  }

  /**
   * mknod(2), mkfifo(3) and bind(2) of a unix socket. A regular file is created and committed
   * empty; a FIFO, device or socket is an inode only ({@link BraidClient#mknod}): the kernel sees
   * its type in getattr and does its I/O itself (a FIFO's bytes go through the kernel's pipe, a
   * device's through its driver), so open(2) of one never reaches this file system.
   *
   * @param rdev the device number as the kernel sent it (its 32-bit encoding equals glibc's {@code
   *     makedev} for majors below 4096 and minors below 2^20); kept for devices only
   */
  @Override
  public int mknod(String path, @mode_t long mode, long rdev) {
    int format = (int) mode & FileStat.S_IFMT;
    FileType type;
    if (format == FileStat.S_IFIFO) {
      type = FileType.FILE_TYPE_FIFO;
    } else if (format == FileStat.S_IFCHR) {
      type = FileType.FILE_TYPE_CHARACTER_DEVICE;
    } else if (format == FileStat.S_IFBLK) {
      type = FileType.FILE_TYPE_BLOCK_DEVICE;
    } else if (format == FileStat.S_IFSOCK) {
      type = FileType.FILE_TYPE_SOCKET;
    } else if (format == FileStat.S_IFREG || format == 0) {
      type = FileType.FILE_TYPE_REGULAR;
    } else {
      return -FuseErrors.EINVAL;
    }
    try {
      BraidClient c = caller();
      if (type == FileType.FILE_TYPE_REGULAR) {
        c.create(path, createOptions(mode)).close();
        return 0;
      }
      boolean device =
          type == FileType.FILE_TYPE_CHARACTER_DEVICE || type == FileType.FILE_TYPE_BLOCK_DEVICE;
      return changed(path, c.mknod(path, type, (int) mode & 07777, device ? rdev : 0));
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("mknod", path, e);
    }
  }

  private static CreateOptions createOptions(long mode) {
    return CreateOptions.defaults()
        .withMode((int) mode & 07777)
        .withOverwrite(false)
        .withCreateParents(false);
  }

  // ---- files ------------------------------------------------------------------------------------

  @Override
  public int create(String path, @mode_t long mode, FuseFileInfo fi) {
    OpenFile f = null;
    try {
      BraidClient c = caller();
      BraidOutputStream out = c.create(path, createOptions(mode));
      int flags = fi.flags.get();
      f = acquire(out.inodeId());
      synchronized (f) {
        BraidOutputStream old = f.currentWriter();
        if (old != null) {
          old.abort(); // an inode id is never reused: cannot happen
        }
        f.adopt(out);
        f.writeHandles++;
      }
      Handle h = new Handle(c, f, (flags & O_ACCMODE) == O_RDWR, true, (flags & O_APPEND) != 0);
      fi.fh.set(register(h));
      writing.put(path, f);
      FileAttributes created = out.createdAttributes();
      return created != null ? changed(path, created) : 0;
    } catch (IOException | RuntimeException e) {
      if (f != null) {
        release(f);
      }
      return FuseErrors.of("create", path, e);
    }
  }

  @Override
  public int open(String path, FuseFileInfo fi) {
    int flags = fi.flags.get();
    int acc = flags & O_ACCMODE;
    boolean writable = acc == O_WRONLY || acc == O_RDWR;
    boolean readable = acc != O_WRONLY;
    OpenFile f = null;
    BraidInputStream in = null;
    try {
      BraidClient c = caller();
      if (writable) {
        FileAttributes a = c.lstat(path);
        if (a.isDirectory()) {
          return -FuseErrors.EISDIR;
        }
        f = acquire(a.inodeId());
        if ((flags & O_TRUNC) != 0) {
          OpenFile t = f;
          withLease(
              path,
              () -> {
                synchronized (t) {
                  t.commit(behind);
                  t.changes++;
                  return c.truncate(path, 0);
                }
              });
        }
        synchronized (f) {
          // The writer (and the write lease) comes with the first write: an open for writing
          // that writes nothing (touch) commits nothing, so it does not move mtime.
          f.writeHandles++;
        }
      } else {
        in = c.open(path); // asks the MDS: close-to-open
        f = acquire(in.inodeId());
      }
      Handle h = new Handle(c, f, readable, writable, (flags & O_APPEND) != 0);
      if (in != null) {
        synchronized (h) {
          h.in = in;
          synchronized (f) {
            if (f.publish()) {
              in.invalidate(); // opened before this mount's last writes reached the servers
            }
            h.inChanges = f.changes;
          }
        }
      }
      fi.fh.set(register(h));
      return 0;
    } catch (IOException | RuntimeException e) {
      if (in != null) {
        in.close();
      }
      if (f != null) {
        release(f);
      }
      return FuseErrors.of("open", path, e);
    }
  }

  @Override
  public int read(
      String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    Handle h = handles.get(fi.fh.get());
    if (h == null) {
      return -FuseErrors.EBADF;
    }
    ByteBuffer dst = MemoryIO.getInstance().newDirectByteBuffer(buf.address(), (int) size);
    try {
      long changes;
      synchronized (h.file) {
        h.file.publish();
        changes = h.file.changes;
      }
      try {
        return readFully(input(h, path, changes, false), offset, dst);
      } catch (IOException e) {
        // A stale read stream (truncated, overwritten in place, token outdated): reopen once.
        Status s = StatusExceptions.statusOf(e);
        if (s == Status.NOT_FOUND || s == Status.PERMISSION_DENIED) {
          throw e;
        }
        dst.clear();
        return readFully(input(h, path, changes, true), offset, dst);
      }
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("read", path, e);
    }
  }

  /**
   * Fills {@code dst} from {@code offset}. Inside the known length the read goes through the
   * stream's position, so that sequential reads (the kernel's, 128 KiB each, possibly out of order)
   * ride its read-ahead window instead of one round trip each; past it, a positional read asks
   * whether a writer has added more.
   */
  private static int readFully(BraidInputStream in, long offset, ByteBuffer dst)
      throws IOException {
    int total = 0;
    synchronized (in) {
      if (offset < in.length()) {
        in.seek(offset);
        while (dst.hasRemaining()) {
          int n = in.read(dst);
          if (n < 0) {
            break;
          }
          total += n;
        }
        return total;
      }
    }
    while (dst.hasRemaining()) {
      int n = in.read(offset + total, dst);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }

  /**
   * The handle's read stream, opened if it has none or {@code reopen}; one that saw fewer than
   * {@code changes} of the file forgets what it cached first.
   */
  private static BraidInputStream input(Handle h, String path, long changes, boolean reopen)
      throws IOException {
    synchronized (h) {
      BraidInputStream in = h.in;
      if (in == null || reopen) {
        if (in != null) {
          in.close();
        }
        h.in = null;
        in = h.client.open(path);
        h.in = in;
      } else if (h.inChanges != changes) {
        in.invalidate();
      }
      h.inChanges = changes;
      return in;
    }
  }

  @Override
  public int write(
      String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    Handle h = handles.get(fi.fh.get());
    if (h == null || !h.writable) {
      return -FuseErrors.EBADF;
    }
    ByteBuffer src = MemoryIO.getInstance().newDirectByteBuffer(buf.address(), (int) size);
    try {
      withLease(
          path,
          () -> {
            synchronized (h.file) {
              return h.file.writer(h.client, path);
            }
          });
      synchronized (h.file) {
        h.file.takeIdleCommitFailure();
        BraidOutputStream out = h.file.writer(h.client, path);
        // O_APPEND: the end is the writer's length (it holds the lease), not the kernel's idea of
        // the size, which may predate another mount's truncate or append.
        long at = h.append ? out.length() : offset;
        out.write(at, src);
        h.file.wrote();
        h.file.sendIfOlder(attrTimeoutNanos, behind);
      }
      recent.forget(path); // a stat after a write asks again (the size comes from the writer)
      return (int) size;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("write", path, e);
    }
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
   * takes the monitors it needs itself, so none is held while waiting.
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
      synchronized (f) {
        f.commitIfIdle(Math.max(attrTimeoutNanos, MIN_IDLE_NANOS), behind);
      }
    }
  }

  @Override
  public int flush(String path, FuseFileInfo fi) {
    Handle h = handles.get(fi.fh.get());
    if (h == null || !h.writable) {
      return 0;
    }
    try {
      synchronized (h.file) {
        h.file.takeIdleCommitFailure();
        if (h.file.writeHandles <= 1) {
          recent.forget(path); // the commit moves mtime
          h.file.commit(behind); // close(2) of the last writer: complete for every other client
        } else {
          h.file.publish();
        }
      }
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("flush", path, e);
    }
  }

  @Override
  public int fsync(String path, int isdatasync, FuseFileInfo fi) {
    Handle h = handles.get(fi.fh.get());
    if (h == null) {
      return -FuseErrors.EBADF;
    }
    try {
      synchronized (h.file) {
        h.file.takeIdleCommitFailure();
        BraidOutputStream out = h.file.currentWriter();
        if (out != null && !out.isClosed()) {
          out.hsync();
          h.file.syncAttributes(behind); // chmod and chown held back for the close
          return 0;
        }
      }
      if (!h.client.options().data().syncOnClose()) {
        h.client.sync(path); // closed without syncing (POSIX close): force it now
      }
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("fsync", path, e);
    }
  }

  @Override
  public int release(String path, FuseFileInfo fi) {
    Handle h = handles.remove(fi.fh.get());
    if (h == null) {
      return 0;
    }
    int result = 0;
    synchronized (h.file) {
      if (h.writable) {
        h.file.writeHandles--;
        if (h.file.writeHandles == 0) {
          writing.remove(path, h.file);
          try {
            h.file.commit(behind);
          } catch (IOException | RuntimeException e) {
            result = FuseErrors.of("release", path, e);
          }
        }
      }
    }
    synchronized (h) {
      if (h.in != null) {
        h.in.close();
        h.in = null;
      }
    }
    release(h.file);
    return result;
  }

  @Override
  public int fallocate(String path, int mode, long off, long length, FuseFileInfo fi) {
    return -FuseErrors.EOPNOTSUPP;
  }

  private long register(Handle h) {
    long id = nextHandle.getAndIncrement();
    handles.put(id, h);
    return id;
  }

  private OpenFile acquire(long inodeId) {
    return files.compute(
        inodeId,
        (k, f) -> {
          OpenFile o = f != null ? f : new OpenFile(k);
          synchronized (o) {
            o.refs++;
          }
          return o;
        });
  }

  private void release(OpenFile f) {
    files.computeIfPresent(
        f.inodeId,
        (k, o) -> {
          synchronized (o) {
            o.refs--;
            if (o.refs > 0) {
              return o;
            }
            o.abandon(); // nothing left to commit: flush or release committed it
            return null;
          }
        });
  }

  // ---- file system ------------------------------------------------------------------------------

  /**
   * df: what users can store, as the MDS answers it (each disk once, divided by the replication at
   * the root): size is the capacity, used the file data stored (f_blocks - f_bfree), available what
   * can still be stored, which space other files on the disks take may make smaller than size less
   * used.
   */
  @Override
  public int statfs(String path, Statvfs stbuf) {
    try {
      StatFsResponse r = caller().statFs();
      long capacity = r.getCapacityBytes();
      long used = r.getUsedBytes();
      long avail = Math.min(r.getAvailableBytes(), Math.max(0, capacity - used));
      stbuf.f_bsize.set(BLOCK);
      stbuf.f_frsize.set(BLOCK);
      stbuf.f_blocks.set(capacity / BLOCK);
      stbuf.f_bfree.set(Math.max(0, capacity - used) / BLOCK);
      stbuf.f_bavail.set(avail / BLOCK);
      long maxInodes = r.getMaxInodes() > 0 ? r.getMaxInodes() : Long.MAX_VALUE / 2;
      stbuf.f_files.set(maxInodes);
      long free = Math.max(0, maxInodes - r.getInodeCount());
      stbuf.f_ffree.set(free);
      stbuf.f_favail.set(free);
      stbuf.f_namemax.set(r.getMaxNameBytes() > 0 ? r.getMaxNameBytes() : 255);
      return 0;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("statfs", path, e);
    }
  }

  // ---- extended attributes ----------------------------------------------------------------------

  /** Names the kernel asks about on its own (capabilities on every write, ACLs): no round trip. */
  private static boolean local(String xattr) {
    return xattr.equals("security.capability") || xattr.startsWith("system.posix_acl_");
  }

  @Override
  public int getxattr(String path, String xattr, Pointer value, @size_t long size) {
    if (local(xattr)) {
      return -FuseErrors.ENODATA;
    }
    try {
      Optional<byte[]> v = caller().getXattr(path, xattr);
      if (v.isEmpty()) {
        return -FuseErrors.ENODATA;
      }
      byte[] b = v.get();
      if (size == 0) {
        return b.length;
      }
      if (size < b.length) {
        return -FuseErrors.ERANGE;
      }
      value.put(0, b, 0, b.length);
      return b.length;
    } catch (IOException | RuntimeException e) {
      int errno = FuseErrors.of("getxattr", path, e);
      return errno == -FuseErrors.ENOENT && fileExists(path) ? -FuseErrors.ENODATA : errno;
    }
  }

  private boolean fileExists(String path) {
    try {
      caller().lstat(path);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public int setxattr(String path, String xattr, Pointer value, @size_t long size, int flags) {
    if (local(xattr)) {
      return -FuseErrors.EOPNOTSUPP;
    }
    try {
      byte[] b = new byte[(int) size];
      value.get(0, b, 0, b.length);
      XattrSetMode mode =
          (flags & XATTR_CREATE) != 0
              ? XattrSetMode.XATTR_SET_MODE_CREATE
              : (flags & XATTR_REPLACE) != 0
                  ? XattrSetMode.XATTR_SET_MODE_REPLACE
                  : XattrSetMode.XATTR_SET_MODE_UNSPECIFIED;
      recent.forget(path);
      caller().setXattr(path, xattr, b, mode);
      return 0;
    } catch (IOException | RuntimeException e) {
      int errno = FuseErrors.of("setxattr", path, e);
      return errno == -FuseErrors.ENOENT && (flags & XATTR_REPLACE) != 0 && fileExists(path)
          ? -FuseErrors.ENODATA
          : errno;
    }
  }

  @Override
  public int listxattr(String path, Pointer list, @size_t long size) {
    try {
      StringBuilder sb = new StringBuilder();
      for (String n : caller().listXattrs(path)) {
        sb.append(n).append('\0');
      }
      byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
      if (size == 0) {
        return b.length;
      }
      if (size < b.length) {
        return -FuseErrors.ERANGE;
      }
      list.put(0, b, 0, b.length);
      return b.length;
    } catch (IOException | RuntimeException e) {
      return FuseErrors.of("listxattr", path, e);
    }
  }

  @Override
  public int removexattr(String path, String xattr) {
    if (local(xattr)) {
      return -FuseErrors.ENODATA;
    }
    try {
      recent.forget(path);
      caller().removeXattr(path, xattr);
      return 0;
    } catch (IOException | RuntimeException e) {
      int errno = FuseErrors.of("removexattr", path, e);
      return errno == -FuseErrors.ENOENT && fileExists(path) ? -FuseErrors.ENODATA : errno;
    }
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  @Override
  public void destroy(Pointer initResult) {
    // Unmounted: writers of files still open (a killed process) are committed, readers closed.
    for (Long id : List.copyOf(handles.keySet())) {
      Handle h = handles.get(id);
      if (h != null) {
        LOG.info("{}: unmounted with a file still open (inode {})", name, h.file.inodeId);
      }
    }
    for (OpenFile f : List.copyOf(files.values())) {
      synchronized (f) {
        try {
          f.commit(behind);
        } catch (IOException | RuntimeException e) {
          LOG.warn("{}: inode {}: cannot commit at unmount: {}", name, f.inodeId, e.toString());
        }
      }
    }
  }
}
