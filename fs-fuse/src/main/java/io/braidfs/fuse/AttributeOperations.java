package io.braidfs.fuse;

import io.braidfs.client.AttrChange;
import io.braidfs.client.BraidClient;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.FileSystemStats;
import io.braidfs.client.FileType;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.util.function.UnaryOperator;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * The attribute operations of {@link BraidFuse}: getattr, chmod, chown, utimens, truncate, access,
 * and statfs for the file system's own. A file this mount writes shows its writer's length, and
 * while the mount writes a file it created, its getattr, chmod and chown are answered from {@link
 * OpenFileTable} (attribute write-behind, see {@link OpenFile}). Truncate and utimens commit an
 * open writer first, since a later commit would undo them.
 *
 * <p>Each operation throws what the client throws; {@link BraidFuse} makes it an errno.
 *
 * <p>Thread-safety: thread-safe; it keeps no state of its own.
 */
final class AttributeOperations {
  static final int BLOCK = 4096;
  private static final int SETID = 06000;
  private static final long UTIME_NOW = (1L << 30) - 1;
  private static final long UTIME_OMIT = (1L << 30) - 2;

  private final Caller caller;
  private final Identities ids;
  private final OpenFileTable files;

  AttributeOperations(Caller caller, Identities ids, OpenFileTable files) {
    this.caller = caller;
    this.ids = ids;
    this.files = files;
  }

  int getattr(String path, FileStat stat) throws IOException {
    FileAttributes a = caller.recentChange(path);
    if (a == null) {
      a = files.writtenAttributes(path);
    }
    if (a == null) {
      a = caller.client().lstat(path);
    }
    fill(stat, a, files.sizeOf(a));
    return 0;
  }

  /** The {@code S_IF*} bits of a type; an unknown type shows as a regular file. */
  static int typeBits(FileType type) {
    return switch (type) {
      case DIRECTORY -> FileStat.S_IFDIR;
      case SYMLINK -> FileStat.S_IFLNK;
      case FIFO -> FileStat.S_IFIFO;
      case CHARACTER_DEVICE -> FileStat.S_IFCHR;
      case BLOCK_DEVICE -> FileStat.S_IFBLK;
      case SOCKET -> FileStat.S_IFSOCK;
      case REGULAR, UNKNOWN -> FileStat.S_IFREG;
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

  /** Fills {@code st} with {@code a}, showing {@code size} as the size. */
  void fill(FileStat st, FileAttributes a, long size) {
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

  /** chmod to {@code m} (permission bits only). */
  int chmod(String path, int m) throws IOException {
    BraidClient c = caller.client();
    if ((m & SETID) == 0
        && files.changeBehind(
            path,
            c,
            AttrChange.builder().mode(m).build(),
            k ->
                caller.uid() == 0 || k.user().equals(c.user())
                    ? changedAttributes(k, b -> b.mode(m))
                    : null,
            after -> caller.changed(path, after))) {
      return 0;
    }
    try {
      return caller.changed(path, c.setPermission(path, m));
    } catch (IOException e) {
      if (StatusExceptions.statusOf(e) != Status.PERMISSION_DENIED
          || caller.uid() == 0
          || !onlyClearsSetId(c.lstat(path).mode(), m)) {
        throw e;
      }
      // A chmod from a non-owner that only drops set-id bits is the kernel's own, after a write
      // (default_permissions has refused any other): the MDS allows it to writers.
      return caller.changed(path, c.setAttr(path, AttrChange.builder().killSetid().build()));
    }
  }

  /** Whether going from {@code mode} to {@code wanted} only clears set-id bits. */
  private static boolean onlyClearsSetId(int mode, int wanted) {
    return (mode & 07777 & ~SETID) == (wanted & ~SETID)
        && (wanted & SETID & ~mode) == 0
        && (wanted & SETID) != (mode & SETID);
  }

  /** chown to {@code uid} and {@code gid}, either -1 to keep it. */
  int chown(String path, long uid, long gid) throws IOException {
    String user = (int) uid == -1 ? null : ids.userName((int) uid);
    String group = (int) gid == -1 ? null : ids.groupName((int) gid);
    BraidClient c = caller.client();
    if (user == null && group == null) {
      return caller.changed(path, c.lstat(path));
    }
    if (caller.uid() == 0) {
      AttrChange.Builder b = AttrChange.builder();
      if (user != null) {
        b.user(user);
      }
      if (group != null) {
        b.group(group);
      }
      AttrChange req = b.build();
      if (files.changeBehind(
          path,
          c,
          req,
          k ->
              (k.mode() & SETID) == 0 // else the MDS may clear set-id bits
                  ? changedAttributes(
                      k,
                      a ->
                          a.user(user != null ? user : k.user())
                              .group(group != null ? group : k.group()))
                  : null,
          after -> caller.changed(path, after))) {
        return 0;
      }
    }
    return caller.changed(path, c.setOwner(path, user, group));
  }

  /** {@code known} with a change applied and ctime now, as the MDS will make it. */
  private static FileAttributes changedAttributes(
      FileAttributes known, UnaryOperator<FileAttributes.Builder> change) {
    long now = System.currentTimeMillis() * 1_000_000L;
    return change.apply(known.toBuilder()).ctimeNanos(now).build();
  }

  /** utimensat(2): each of the two times set, set to now, or left (UTIME_OMIT). */
  int utimens(String path, Timespec[] timespec) throws IOException {
    AttrChange.Builder b = AttrChange.builder();
    times(timespec[0], b, true);
    times(timespec[1], b, false);
    BraidClient c = caller.client();
    return files.afterCommit(path, c, () -> caller.changed(path, c.setAttr(path, b.build())));
  }

  private static void times(Timespec t, AttrChange.Builder b, boolean atime) {
    long nsec = t.tv_nsec.longValue();
    if (nsec == UTIME_OMIT) {
      return;
    }
    if (nsec == UTIME_NOW) {
      if (atime) {
        b.atimeNow();
      } else {
        b.mtimeNow();
      }
      return;
    }
    long ns = t.tv_sec.get() * 1_000_000_000L + nsec;
    if (atime) {
      b.atimeNanos(ns);
    } else {
      b.mtimeNanos(ns);
    }
  }

  int truncate(String path, long size) throws IOException {
    BraidClient c = caller.client();
    long inode = files.inodeOf(c, path);
    return caller.changed(path, files.truncate(c, path, inode, size, false));
  }

  /** ftruncate(2) through {@code h}: checked against its open if that was for writing. */
  int ftruncate(String path, long size, FileHandle h) throws IOException {
    return caller.changed(path, files.truncate(h.client, path, h.file.inodeId, size, h.writable));
  }

  int access(String path, int mask) throws IOException {
    int uid = caller.uid();
    FileAttributes a = caller.client().lstat(path);
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
    } else if (caller.groupNames().contains(a.group())) {
      bits = (mode >> 3) & 7;
    } else {
      bits = mode & 7;
    }
    return (bits & mask) == mask ? 0 : -FuseErrors.EACCES;
  }

  /**
   * df: what users can store, as the MDS answers it (each disk once, divided by the replication at
   * the root): size is the capacity, used the file data stored (f_blocks - f_bfree), available what
   * can still be stored, which space other files on the disks take may make smaller than size less
   * used.
   */
  int statfs(Statvfs stbuf) throws IOException {
    FileSystemStats r = caller.client().statFs();
    long capacity = r.capacityBytes();
    long used = r.usedBytes();
    long avail = Math.min(r.availableBytes(), Math.max(0, capacity - used));
    stbuf.f_bsize.set(BLOCK);
    stbuf.f_frsize.set(BLOCK);
    stbuf.f_blocks.set(capacity / BLOCK);
    stbuf.f_bfree.set(Math.max(0, capacity - used) / BLOCK);
    stbuf.f_bavail.set(avail / BLOCK);
    long maxInodes = r.maxInodes() > 0 ? r.maxInodes() : Long.MAX_VALUE / 2;
    stbuf.f_files.set(maxInodes);
    long free = Math.max(0, maxInodes - r.inodeCount());
    stbuf.f_ffree.set(free);
    stbuf.f_favail.set(free);
    stbuf.f_namemax.set(r.maxNameBytes() > 0 ? r.maxNameBytes() : 255);
    return 0;
  }
}
