package io.braidfs.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import jnr.constants.platform.Fcntl;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks every file descriptor of this process but stdin, stdout and stderr close-on-exec, so that
 * no program it starts keeps a copy.
 *
 * <p>Why: a FUSE mount made as {@code braid local --mount} does starts {@code fusermount}, which
 * with {@code auto_unmount} stays for as long as the mount and inherits every descriptor open at
 * that moment (the JDK and Netty open theirs without close-on-exec). It would hold the servers'
 * listening sockets: the port of an MDS replica that stops listening to start again (a failover
 * with {@code --ha}) stays taken, so the replica cannot listen again and stops.
 *
 * <p>Linux only ({@code /proc/self/fd}); elsewhere it does nothing.
 *
 * <p>Thread-safety: stateless; descriptors opened by other threads meanwhile may be missed.
 */
final class CloseOnExec {
  private static final Logger LOG = LoggerFactory.getLogger(CloseOnExec.class);

  /** FD_CLOEXEC: 1 on Linux, as POSIX systems define it. */
  private static final int FD_CLOEXEC = 1;

  private CloseOnExec() {}

  /** Marks the descriptors; a descriptor that cannot be marked is left as it is (logged). */
  static void markAll() {
    Path fds = Path.of("/proc/self/fd");
    if (!Files.isDirectory(fds)) {
      return;
    }
    POSIX posix = POSIXFactory.getNativePOSIX();
    int marked = 0;
    try (DirectoryStream<Path> list = Files.newDirectoryStream(fds)) {
      for (Path p : list) {
        int fd;
        try {
          fd = Integer.parseInt(p.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        if (fd <= 2) {
          continue;
        }
        // Fails (EBADF) for the listing's own descriptor once it is closed, and for any other
        // closed meanwhile: nothing to mark then.
        int flags = posix.fcntl(fd, Fcntl.F_GETFD);
        if (flags >= 0 && (flags & FD_CLOEXEC) == 0) {
          if (posix.fcntlInt(fd, Fcntl.F_SETFD, flags | FD_CLOEXEC) == 0) {
            marked++;
          }
        }
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("braid local: cannot list /proc/self/fd to mark descriptors close-on-exec: {}", e);
      return;
    }
    LOG.debug("braid local: marked {} descriptors close-on-exec", marked);
  }
}
