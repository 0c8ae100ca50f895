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
  OK(0, false, 0),
  NOT_FOUND(1, false, Errno.ENOENT),
  ALREADY_EXISTS(2, false, Errno.EEXIST),
  NOT_DIRECTORY(3, false, Errno.ENOTDIR),
  IS_DIRECTORY(4, false, Errno.EISDIR),
  NOT_EMPTY(5, false, Errno.ENOTEMPTY),
  PERMISSION_DENIED(6, false, Errno.EACCES),
  INVALID_ARGUMENT(7, false, Errno.EINVAL),
  NAME_TOO_LONG(8, false, Errno.ENAMETOOLONG),
  NO_SPACE(9, false, Errno.ENOSPC),
  QUOTA_EXCEEDED(10, false, Errno.EDQUOT),
  /** This MDS is not the leader; the error carries a leader hint. */
  NOT_LEADER(11, true, Errno.EIO),
  /** The server cannot be reached or is shutting down. */
  UNAVAILABLE(12, true, Errno.EIO),
  /** The server is overloaded and shed this call before doing any work. */
  BUSY(13, true, Errno.EAGAIN),
  /** The call's deadline passed; it may or may not have been applied. */
  DEADLINE_EXCEEDED(14, true, Errno.ETIMEDOUT),
  STALE_HANDLE(15, false, Errno.ESTALE),
  LEASE_EXPIRED(16, false, Errno.ESTALE),
  /** Another client holds the write lease on this file. */
  LEASE_CONFLICT(17, false, Errno.EBUSY),
  /** A chunk replica is older than the version the caller expects. */
  STALE_VERSION(18, false, Errno.ESTALE),
  OUT_OF_RANGE(19, false, Errno.EINVAL),
  CHECKSUM_MISMATCH(20, false, Errno.EIO),
  /** The capability token is missing, forged, expired or out of scope. */
  INVALID_TOKEN(21, false, Errno.EACCES),
  TOO_MANY_LINKS(22, false, Errno.ELOOP),
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
  CANCELLED(29, false, Errno.EINTR),
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
