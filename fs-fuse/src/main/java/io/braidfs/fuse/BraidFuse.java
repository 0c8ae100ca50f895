package io.braidfs.fuse;

import com.kenai.jffi.MemoryIO;
import io.braidfs.client.BraidClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import jnr.ffi.Pointer;
import jnr.ffi.Struct;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.FuseOperations;
import ru.serce.jnrfuse.struct.Statvfs;
import ru.serce.jnrfuse.struct.Timespec;

/**
 * Braid as a FUSE file system on jnr-fuse (libfuse 2, high-level path API): every operation goes to
 * a {@link BraidClient} acting as the calling process's user (see {@link Caller} and {@link
 * ClientPool}). This class adapts libfuse's callbacks and nothing more: each is carried out by one
 * of {@link AttributeOperations}, {@link NamespaceOperations}, {@link DataOperations} and {@link
 * XattrOperations}, which throw what the client throws, and {@link FuseErrors#call} turns a failure
 * into the errno FUSE answers.
 *
 * <p>File handles: {@code fi->fh} is an id in the {@link OpenFileTable}; a handle holds its
 * caller's client, a read stream opened at open(2) (close-to-open: open asks the MDS) and the
 * inode's shared {@link OpenFile}, whose one writer takes every write at its offset (pwrite).
 * close(2) commits the writer of the last writing handle, so a file closed here is complete for
 * other clients; fsync(2) is hsync. A read on an inode with unpublished writes hflushes them first.
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
 * It keeps no state of its own: the open files and their locks are {@link OpenFileTable}'s.
 */
public final class BraidFuse extends FuseStubFS {
  private final String name;
  private final OpenFileTable files;
  private final AttributeOperations attributes;
  private final NamespaceOperations namespace;
  private final DataOperations data;
  private final XattrOperations xattrs;

  /**
   * A file system over the clients of {@code clients}.
   *
   * @param name the name in logs and in the mount table (fsname)
   * @param attrTimeout how long the kernel reuses attributes (and this mount its own changes')
   */
  BraidFuse(ClientPool clients, String name, Duration attrTimeout) {
    this.name = name;
    RecentAttributes recent = new RecentAttributes(attrTimeout);
    Caller caller = new Caller(this, clients, recent);
    utimeOmitOk(fuseOperations);
    this.files = new OpenFileTable(name, recent, attrTimeout);
    this.attributes = new AttributeOperations(caller, clients.identities(), files);
    this.namespace = new NamespaceOperations(caller, recent, files, attributes);
    this.data = new DataOperations(caller, files);
    this.xattrs = new XattrOperations(caller, recent, clients.identities());
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
    files.shutdown();
  }

  /** The fsname the mount shows in the mount table. */
  String getFSNameForMount() {
    return name;
  }

  /** How many files are open through the mount now. */
  public int openHandles() {
    return files.openHandles();
  }

  /** A direct buffer over libfuse's own memory at {@code buf}: no copy. */
  private static ByteBuffer direct(Pointer buf, long size) {
    return MemoryIO.getInstance().newDirectByteBuffer(buf.address(), (int) size);
  }

  // ---- attributes -------------------------------------------------------------------------------

  @Override
  public int getattr(String path, FileStat stat) {
    return FuseErrors.call("getattr", path, () -> attributes.getattr(path, stat));
  }

  @Override
  public int fgetattr(String path, FileStat stat, FuseFileInfo fi) {
    return getattr(path, stat);
  }

  @Override
  public int chmod(String path, @mode_t long mode) {
    return FuseErrors.call("chmod", path, () -> attributes.chmod(path, (int) mode & 07777));
  }

  @Override
  public int chown(String path, long uid, long gid) {
    return FuseErrors.call("chown", path, () -> attributes.chown(path, uid, gid));
  }

  @Override
  public int utimens(String path, Timespec[] timespec) {
    return FuseErrors.call("utimens", path, () -> attributes.utimens(path, timespec));
  }

  @Override
  public int truncate(String path, @off_t long size) {
    return FuseErrors.call("truncate", path, () -> attributes.truncate(path, size));
  }

  @Override
  public int ftruncate(String path, @off_t long size, FuseFileInfo fi) {
    FileHandle h = files.handle(fi.fh.get());
    if (h == null) {
      return -FuseErrors.EBADF;
    }
    return FuseErrors.call("ftruncate", path, () -> attributes.ftruncate(path, size, h));
  }

  @Override
  public int access(String path, int mask) {
    return FuseErrors.call("access", path, () -> attributes.access(path, mask));
  }

  @Override
  public int statfs(String path, Statvfs stbuf) {
    return FuseErrors.call("statfs", path, () -> attributes.statfs(stbuf));
  }

  // ---- namespace --------------------------------------------------------------------------------

  @Override
  public int mkdir(String path, @mode_t long mode) {
    return FuseErrors.call("mkdir", path, () -> namespace.mkdir(path, mode));
  }

  @Override
  public int rmdir(String path) {
    return FuseErrors.call("rmdir", path, () -> namespace.rmdir(path));
  }

  @Override
  public int readdir(
      String path, Pointer buf, FuseFillDir filter, @off_t long offset, FuseFileInfo fi) {
    return FuseErrors.call("readdir", path, () -> namespace.readdir(path, buf, filter));
  }

  @Override
  public int fsyncdir(String path, FuseFileInfo fi) {
    return 0; // every namespace change is durable at the MDS when it returns
  }

  @Override
  public int unlink(String path) {
    return FuseErrors.call("unlink", path, () -> namespace.unlink(path));
  }

  @Override
  public int rename(String oldpath, String newpath) {
    return FuseErrors.call(
        "rename", oldpath + " -> " + newpath, () -> namespace.rename(oldpath, newpath));
  }

  @Override
  public int link(String oldpath, String newpath) {
    return FuseErrors.call(
        "link", oldpath + " -> " + newpath, () -> namespace.link(oldpath, newpath));
  }

  @Override
  public int symlink(String oldpath, String newpath) {
    return FuseErrors.call("symlink", newpath, () -> namespace.symlink(oldpath, newpath));
  }

  @Override
  public int readlink(String path, Pointer buf, @size_t long size) {
    return FuseErrors.call("readlink", path, () -> namespace.readlink(path, buf, size));
  }

  @Override
  public int mknod(String path, @mode_t long mode, long rdev) {
    return FuseErrors.call("mknod", path, () -> namespace.mknod(path, mode, rdev));
  }

  // ---- data -------------------------------------------------------------------------------------

  @Override
  public int create(String path, @mode_t long mode, FuseFileInfo fi) {
    return FuseErrors.call("create", path, () -> data.create(path, mode, fi));
  }

  @Override
  public int open(String path, FuseFileInfo fi) {
    return FuseErrors.call("open", path, () -> data.open(path, fi));
  }

  @Override
  public int read(
      String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    FileHandle h = files.handle(fi.fh.get());
    if (h == null) {
      return -FuseErrors.EBADF;
    }
    ByteBuffer dst = direct(buf, size);
    return FuseErrors.call("read", path, () -> data.read(h, path, offset, dst));
  }

  @Override
  public int write(
      String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
    FileHandle h = files.handle(fi.fh.get());
    if (h == null || !h.writable) {
      return -FuseErrors.EBADF;
    }
    ByteBuffer src = direct(buf, size);
    return FuseErrors.call("write", path, () -> data.write(h, path, offset, src));
  }

  @Override
  public int flush(String path, FuseFileInfo fi) {
    FileHandle h = files.handle(fi.fh.get());
    if (h == null || !h.writable) {
      return 0;
    }
    return FuseErrors.call("flush", path, () -> data.flush(h, path));
  }

  @Override
  public int fsync(String path, int isdatasync, FuseFileInfo fi) {
    FileHandle h = files.handle(fi.fh.get());
    if (h == null) {
      return -FuseErrors.EBADF;
    }
    return FuseErrors.call("fsync", path, () -> data.fsync(h, path));
  }

  @Override
  public int release(String path, FuseFileInfo fi) {
    return FuseErrors.call("release", path, () -> data.release(path, fi.fh.get()));
  }

  @Override
  public int fallocate(String path, int mode, long off, long length, FuseFileInfo fi) {
    return -FuseErrors.EOPNOTSUPP;
  }

  // ---- extended attributes ----------------------------------------------------------------------

  @Override
  public int getxattr(String path, String xattr, Pointer value, @size_t long size) {
    int r = FuseErrors.call("getxattr", path, () -> xattrs.get(path, xattr, value, size));
    return xattrs.noData(path, r);
  }

  @Override
  public int setxattr(String path, String xattr, Pointer value, @size_t long size, int flags) {
    int r = FuseErrors.call("setxattr", path, () -> xattrs.set(path, xattr, value, size, flags));
    return xattrs.noData(path, r, flags);
  }

  @Override
  public int listxattr(String path, Pointer list, @size_t long size) {
    return FuseErrors.call("listxattr", path, () -> xattrs.list(path, list, size));
  }

  @Override
  public int removexattr(String path, String xattr) {
    int r = FuseErrors.call("removexattr", path, () -> xattrs.remove(path, xattr));
    return xattrs.noData(path, r);
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  @Override
  public void destroy(Pointer initResult) {
    // Unmounted: writers of files still open (a killed process) are committed.
    files.commitAll();
  }
}
