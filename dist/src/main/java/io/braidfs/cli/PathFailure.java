package io.braidfs.cli;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@code braid fs} operation that failed on one path, Braid's or a local one: what {@code braid
 * fs} reports as its one line, {@code PATH: what went wrong}.
 *
 * <p>For a Braid failure the line is the status in words, its name, and the server's message when
 * the words alone do not say enough: {@code /a/b: no such file or directory (NOT_FOUND)}, {@code
 * /d: invalid argument (INVALID_ARGUMENT: setlayoutpolicy /d: ...)}. The words come from the one
 * exhaustive {@code switch} over {@link Status} in this class, so a new status fails compilation
 * here until it has them. A local failure reads like the C library's message: {@code /tmp/x: no
 * such file or directory}.
 *
 * <p>Thread-safety: immutable once thrown.
 */
final class PathFailure extends IOException {
  private static final long serialVersionUID = 1L;

  /** Statuses whose words say all there is; the server's message is left out for them. */
  private static final Set<Status> SELF_EXPLANATORY =
      EnumSet.of(
          Status.NOT_FOUND,
          Status.ALREADY_EXISTS,
          Status.NOT_DIRECTORY,
          Status.IS_DIRECTORY,
          Status.NOT_EMPTY);

  private final String path;

  /** {@code path} failed with {@code cause}; the message is made from the cause. */
  PathFailure(String path, IOException cause) {
    super(path + ": " + describe(cause), cause);
    this.path = path;
  }

  /** {@code path} failed for a reason {@code braid fs} found itself, such as a directory to rm. */
  PathFailure(String path, String reason) {
    super(path + ": " + reason);
    this.path = path;
  }

  /** The path that failed, as the user named it or as it was resolved. */
  String path() {
    return path;
  }

  /** What {@code e} means for the path it happened to, without the path. */
  static String describe(IOException e) {
    if (e instanceof StatusException se) {
      Status status = se.status();
      String message = e.getMessage();
      if (SELF_EXPLANATORY.contains(status) || message == null || message.isBlank()) {
        return words(status) + " (" + status.name() + ")";
      }
      if (status == Status.UNAVAILABLE) {
        // Its own words ("replication 3 needs 3 live data servers, 1"; "no MDS answered ...")
        // say more than any general ones.
        return oneLine(message) + " (" + status.name() + ")";
      }
      return words(status) + " (" + status.name() + ": " + oneLine(message) + ")";
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "file exists";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "directory not empty";
    }
    if (e instanceof FileSystemException fse && fse.getReason() != null) {
      return oneLine(fse.getReason().toLowerCase(java.util.Locale.ROOT));
    }
    if (e instanceof InterruptedIOException) {
      return "interrupted";
    }
    return Errors.describe(e);
  }

  /** A status in words, as strerror(3) would put the errno it maps to, or closer to Braid. */
  static String words(Status status) {
    return switch (status) {
      case OK -> "no error";
      case NOT_FOUND -> "no such file or directory";
      case ALREADY_EXISTS -> "file exists";
      case NOT_DIRECTORY -> "not a directory";
      case IS_DIRECTORY -> "is a directory";
      case NOT_EMPTY -> "directory not empty";
      case PERMISSION_DENIED -> "permission denied";
      case INVALID_ARGUMENT -> "invalid argument";
      case NAME_TOO_LONG -> "file name too long";
      case NO_SPACE -> "no space left on the data servers";
      case QUOTA_EXCEEDED -> "quota exceeded";
      case NOT_LEADER, UNAVAILABLE -> "no MDS available";
      case BUSY -> "server busy";
      case DEADLINE_EXCEEDED -> "timed out";
      case STALE_HANDLE -> "stale file handle";
      case LEASE_EXPIRED -> "write lease expired";
      case LEASE_CONFLICT -> "file is being written by another client";
      case STALE_VERSION -> "stale replica";
      case OUT_OF_RANGE -> "out of range";
      case CHECKSUM_MISMATCH -> "checksum mismatch";
      case INVALID_TOKEN -> "access token refused";
      case TOO_MANY_LINKS -> "too many levels of symbolic links";
      case UNSUPPORTED -> "operation not supported";
      case MALFORMED_FRAME, FRAME_TOO_LARGE, UNKNOWN_METHOD, UNSUPPORTED_VERSION ->
          "protocol error";
      case NOT_AUTHENTICATED -> "not authenticated";
      case CANCELLED -> "cancelled";
      case INTERNAL -> "server error";
    };
  }

  private static String oneLine(@Nullable String s) {
    return s == null ? "" : s.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
  }
}
