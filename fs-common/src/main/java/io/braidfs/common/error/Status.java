package io.braidfs.common.error;

/**
 * The outcome of every Braid operation, as it travels on the wire.
 *
 * <p>Each status has a stable wire code that never changes meaning (new statuses take new codes), a
 * retriable flag telling clients whether the same call may succeed if repeated (possibly against
 * another server), and the POSIX errno a FUSE mount reports for it. The mapping to Java exceptions
 * lives in {@link StatusExceptions}; the whole table is in {@code docs/errors.md}.
 *
 * <p>Thread-safety: immutable.
 */
public enum Status {
  /** Success; the only status that is not an error. */
  OK(0, false, 0),
  /** The path, or a component of it, does not exist. */
  NOT_FOUND(1, false, Errno.ENOENT),
  /** The target of an exclusive create, a mkdir or a rename already exists. */
  ALREADY_EXISTS(2, false, Errno.EEXIST),
  /** A path component that must be a directory is not one. */
  NOT_DIRECTORY(3, false, Errno.ENOTDIR),
  /** The operation needs a file, but the path is a directory. */
  IS_DIRECTORY(4, false, Errno.EISDIR),
  /** A non-recursive delete, or a rename onto a directory, found it not empty. */
  NOT_EMPTY(5, false, Errno.ENOTEMPTY),
  /** The permission check failed for the caller. */
  PERMISSION_DENIED(6, false, Errno.EACCES),
  /** An argument is malformed or inconsistent; the message says which. */
  INVALID_ARGUMENT(7, false, Errno.EINVAL),
  /** A path component is over 255 bytes, or the path over 4096. */
  NAME_TOO_LONG(8, false, Errno.ENAMETOOLONG),
  /** The cluster, or the dataservers chosen for the data, are out of space. */
  NO_SPACE(9, false, Errno.ENOSPC),
  /** A namespace or space quota on a directory would be exceeded. */
  QUOTA_EXCEEDED(10, false, Errno.EDQUOT),
  /** This MDS is not the leader; the error carries a leader hint. */
  NOT_LEADER(11, true, Errno.EIO),
  /** The server cannot be reached or is shutting down. */
  UNAVAILABLE(12, true, Errno.EIO),
  /** The server is overloaded and shed this call before doing any work. */
  BUSY(13, true, Errno.EAGAIN),
  /** The call's deadline passed; it may or may not have been applied. */
  DEADLINE_EXCEEDED(14, true, Errno.ETIMEDOUT),
  /** The file behind the handle was deleted or replaced; reopen by path. */
  STALE_HANDLE(15, false, Errno.ESTALE),
  /** The caller's write lease lapsed; the file must be reopened for writing. */
  LEASE_EXPIRED(16, false, Errno.ESTALE),
  /** Another client holds the write lease on this file. */
  LEASE_CONFLICT(17, false, Errno.EBUSY),
  /** A chunk replica is older than the version the caller expects. */
  STALE_VERSION(18, false, Errno.ESTALE),
  /** An offset or length lies outside the file or chunk. */
  OUT_OF_RANGE(19, false, Errno.EINVAL),
  /** Data did not match its checksum; the replica or the transfer is corrupt. */
  CHECKSUM_MISMATCH(20, false, Errno.EIO),
  /** The capability token is missing, forged, expired or out of scope. */
  INVALID_TOKEN(21, false, Errno.EACCES),
  /** Too many symbolic links were followed while resolving the path. */
  TOO_MANY_LINKS(22, false, Errno.ELOOP),
  /** The server does not support this operation or option. */
  UNSUPPORTED(23, false, Errno.ENOSYS),
  /** The frame could not be decoded; the connection is closed after this reply. */
  MALFORMED_FRAME(24, false, Errno.EIO),
  /** The frame is larger than the receiver's limits; the connection is closed. */
  FRAME_TOO_LARGE(25, false, Errno.EIO),
  /** The method id is not in the registry; the connection is closed. */
  UNKNOWN_METHOD(26, false, Errno.EIO),
  /** The peer speaks a protocol version this side cannot serve. */
  UNSUPPORTED_VERSION(27, false, Errno.EIO),
  /** A request arrived before the connection's hello. */
  NOT_AUTHENTICATED(28, false, Errno.EACCES),
  /** The call was cancelled by the caller before it completed. */
  CANCELLED(29, false, Errno.EINTR),
  /** An unexpected failure on the server, logged there once with the call id. */
  INTERNAL(30, false, Errno.EIO);

  private static final Status[] BY_CODE;

  static {
    int max = 0;
    for (Status s : values()) {
      max = Math.max(max, s.code);
    }
    BY_CODE = new Status[max + 1];
    for (Status s : values()) {
      if (BY_CODE[s.code] != null) {
        throw new ExceptionInInitializerError("duplicate status code " + s.code);
      }
      BY_CODE[s.code] = s;
    }
  }

  private final int code;
  private final boolean retriable;
  private final int errno;

  Status(int code, boolean retriable, int errno) {
    this.code = code;
    this.retriable = retriable;
    this.errno = errno;
  }

  /** The stable wire code, an unsigned 16-bit value. */
  public int code() {
    return code;
  }

  /**
   * Whether repeating the same call (with the same call id, so the server can recognise a retry)
   * may succeed.
   */
  public boolean isRetriable() {
    return retriable;
  }

  /** The positive POSIX errno a FUSE mount reports for this status; 0 for {@link #OK}. */
  public int errno() {
    return errno;
  }

  /** Whether this is {@link #OK}. */
  public boolean isOk() {
    return this == OK;
  }

  /**
   * The status with this wire code.
   *
   * @throws IllegalArgumentException if no status has this code (a newer peer or a corrupt frame)
   */
  public static Status fromCode(int code) {
    Status s = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    if (s == null) {
      throw new IllegalArgumentException("unknown status code " + code);
    }
    return s;
  }

  /** Linux errno values (asm-generic/errno-base.h and errno.h), named once. */
  static final class Errno {
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EAGAIN = 11;
    static final int EACCES = 13;
    static final int EBUSY = 16;
    static final int EEXIST = 17;
    static final int ENOTDIR = 20;
    static final int EISDIR = 21;
    static final int EINVAL = 22;
    static final int ENOSPC = 28;
    static final int ENAMETOOLONG = 36;
    static final int ENOSYS = 38;
    static final int ENOTEMPTY = 39;
    static final int ELOOP = 40;
    static final int ETIMEDOUT = 110;
    static final int ESTALE = 116;
    static final int EDQUOT = 122;

    private Errno() {}
  }
}
