package io.braidfs.fuse;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a failure of a FUSE operation becomes an errno (HOUSE-STYLE "Error model"): a
 * {@link Status} carried by the client's exception maps through {@link Status#errno()}; the few JDK
 * exceptions the client may throw map to their POSIX meaning; anything else is EIO, logged once
 * with the operation and path (a client failure, never a crash of the mount). {@link #call} runs an
 * operation and answers that errno for what it throws.
 *
 * <p>Thread-safety: stateless.
 */
final class FuseErrors {
  private static final Logger LOG = LoggerFactory.getLogger(FuseErrors.class);

  /** Linux errno values used directly by the file system (asm-generic/errno*.h). */
  static final int EPERM = 1;

  static final int ENOENT = 2;
  static final int EIO = 5;
  static final int EBADF = 9;
  static final int EACCES = 13;
  static final int EEXIST = 17;
  static final int EXDEV = 18;
  static final int ENOTDIR = 20;
  static final int EISDIR = 21;
  static final int EINVAL = 22;
  static final int ERANGE = 34;
  static final int ENOSYS = 38;
  static final int ENODATA = 61;
  static final int EOPNOTSUPP = 95;

  private FuseErrors() {}

  /** The body of a FUSE operation. */
  @FunctionalInterface
  interface Operation {
    /** Its answer to FUSE: 0, a count, or a negative errno it chose itself. */
    int run() throws IOException;
  }

  /**
   * Runs {@code body}, operation {@code op} on {@code path}: its answer, or the negative errno of
   * the exception it threw ({@link #of}). Every operation of {@link BraidFuse} that may fail goes
   * through here.
   */
  static int call(String op, String path, Operation body) {
    try {
      return body.run();
    } catch (IOException | RuntimeException e) {
      return of(op, path, e);
    }
  }

  /**
   * The negative errno FUSE expects for {@code e}, thrown by operation {@code op} on {@code path}.
   */
  static int of(String op, String path, Throwable e) {
    int errno = errno(e);
    if (errno == EIO) {
      // One line per failure, no stack trace for expected server-side statuses.
      if (e instanceof RuntimeException || e instanceof Error) {
        LOG.warn("fuse: {} {}: unexpected failure, EIO", op, path, e);
      } else {
        LOG.warn("fuse: {} {}: {} (EIO)", op, path, e.toString());
      }
    } else if (LOG.isDebugEnabled()) {
      LOG.debug("fuse: {} {}: errno {}: {}", op, path, errno, e.toString());
    }
    return -errno;
  }

  /** The positive errno of {@code e}. */
  static int errno(Throwable e) {
    Status s = StatusExceptions.statusOf(e);
    if (s != Status.INTERNAL && s != Status.OK) {
      return s.errno();
    }
    if (e instanceof NoSuchFileException || e instanceof FileNotFoundException) {
      return ENOENT;
    }
    if (e instanceof FileAlreadyExistsException) {
      return EEXIST;
    }
    if (e instanceof AccessDeniedException) {
      return EACCES;
    }
    if (e instanceof NotDirectoryException) {
      return ENOTDIR;
    }
    if (e instanceof DirectoryNotEmptyException) {
      return Status.NOT_EMPTY.errno();
    }
    if (e instanceof UnsupportedOperationException) {
      return ENOSYS;
    }
    if (e instanceof IllegalArgumentException) {
      return EINVAL;
    }
    return s.errno(); // INTERNAL: EIO
  }
}
