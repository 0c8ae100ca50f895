package io.braidfs.fuse;

import io.braidfs.client.BraidClient;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.DirectoryPage;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.FileType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import jnr.ffi.Struct;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.struct.FileStat;

/**
 * The namespace operations of {@link BraidFuse}: directories (mkdir, rmdir, readdir), names
 * (unlink, rename, link, symlink, readlink) and mknod. Each is one client call; what the mount
 * remembers of a path it changes is forgotten first.
 *
 * <p>Each operation throws what the client throws; {@link BraidFuse} makes it an errno.
 *
 * <p>Thread-safety: thread-safe; it keeps no state of its own.
 */
final class NamespaceOperations {
  private static final int LIST_PAGE = 1000;

  private final Caller caller;
  private final RecentAttributes recent;
  private final OpenFileTable files;
  private final AttributeOperations attributes;
  private final int statSize = Struct.size(new FileStat(Runtime.getSystemRuntime()));

  NamespaceOperations(
      Caller caller, RecentAttributes recent, OpenFileTable files, AttributeOperations attributes) {
    this.caller = caller;
    this.recent = recent;
    this.files = files;
    this.attributes = attributes;
  }

  int mkdir(String path, long mode) throws IOException {
    return caller.changed(path, caller.client().mkdir(path, (int) mode & 07777));
  }

  int rmdir(String path) throws IOException {
    recent.forget(path);
    caller.client().rmdir(path);
    return 0;
  }

  /** Lists {@code path} whole, page by page, with each entry's attributes when the MDS has them. */
  int readdir(String path, Pointer buf, FuseFillDir filter) throws IOException {
    BraidClient c = caller.client();
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
          attributes.fill(st, a, a.size());
        } else {
          st.st_ino.set(e.inodeId());
          st.st_mode.set(AttributeOperations.typeBits(e.type()));
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
  }

  int unlink(String path) throws IOException {
    recent.forget(path);
    files.unlinked(path);
    caller.client().unlink(path);
    return 0;
  }

  int rename(String oldpath, String newpath) throws IOException {
    recent.forgetAll();
    files.renamed(); // paths moved; those files' attribute changes go straight to the MDS
    caller.client().rename(oldpath, newpath);
    return 0;
  }

  int link(String oldpath, String newpath) throws IOException {
    FileAttributes a = caller.client().link(oldpath, newpath);
    recent.forget(oldpath); // its nlink and ctime changed
    return caller.changed(newpath, a);
  }

  int symlink(String oldpath, String newpath) throws IOException {
    return caller.changed(newpath, caller.client().symlink(oldpath, newpath, false));
  }

  int readlink(String path, Pointer buf, long size) throws IOException {
    byte[] target = caller.client().readLink(path).getBytes(StandardCharsets.UTF_8);
    if (size <= 0) {
      return -FuseErrors.EINVAL;
    }
    int n = (int) Math.min(target.length, size - 1);
    buf.put(0, target, 0, n);
    buf.putByte(n, (byte) 0);
    return 0;
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
  int mknod(String path, long mode, long rdev) throws IOException {
    int format = (int) mode & FileStat.S_IFMT;
    FileType type;
    if (format == FileStat.S_IFIFO) {
      type = FileType.FIFO;
    } else if (format == FileStat.S_IFCHR) {
      type = FileType.CHARACTER_DEVICE;
    } else if (format == FileStat.S_IFBLK) {
      type = FileType.BLOCK_DEVICE;
    } else if (format == FileStat.S_IFSOCK) {
      type = FileType.SOCKET;
    } else if (format == FileStat.S_IFREG || format == 0) {
      type = FileType.REGULAR;
    } else {
      return -FuseErrors.EINVAL;
    }
    BraidClient c = caller.client();
    if (type == FileType.REGULAR) {
      c.create(path, createOptions(mode)).close();
      return 0;
    }
    boolean device = type == FileType.CHARACTER_DEVICE || type == FileType.BLOCK_DEVICE;
    return caller.changed(path, c.mknod(path, type, (int) mode & 07777, device ? rdev : 0));
  }

  /** How create(2) and mknod(2) make a file: the mode given, never over another, in a directory. */
  static CreateOptions createOptions(long mode) {
    return CreateOptions.defaults()
        .withMode((int) mode & 07777)
        .withOverwrite(false)
        .withCreateParents(false);
  }
}
