package io.braidfs.hadoop;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.ClusterStorageCapacityExceededException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.InvalidPathException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.PathOperationException;
import org.apache.hadoop.security.AccessControlException;

/**
 * The one place where a Braid {@link Status} becomes the exception the Hadoop FileSystem
 * specification names, so that callers written for HDFS catch what they expect. The Braid exception
 * stays attached as the cause (with its status and the server's message).
 *
 * <p>Thread-safety: stateless.
 */
final class HadoopErrors {
  private static final String DOES_NOT_EXIST = "File does not exist: ";
  private static final String NOT_A_FILE = "Path is not a file: ";

  private HadoopErrors() {}

  /** What the failed operation was doing, where the same status means different things. */
  enum Op {
    /** Reading or changing an existing path (a file on the way means it does not exist). */
    PATH,
    /**
     * Creating a path: a directory in the way means the file exists, a file on the way is a parent
     * that is not a directory, as HDFS says.
     */
    CREATE,
    /** Opening a file to read (a directory is "not a file": FileNotFoundException, as HDFS). */
    OPEN,
  }

  /**
   * The Hadoop exception for a Braid failure.
   *
   * @param e what the client threw
   * @param op what was being done
   * @return the exception to throw; {@code e} itself when Hadoop has no more precise type
   * @throws UnsupportedOperationException for UNSUPPORTED, as the specification asks
   * @throws InvalidPathException for NAME_TOO_LONG, as HDFS raises it
   */
  static IOException translate(IOException e, Op op) {
    Status status = StatusExceptions.statusOf(e);
    String message = e.getMessage() == null ? status.name() : e.getMessage();
    IOException h =
        switch (status) {
          // The HDFS texts lead, as callers (and Hadoop's own tests) match on them.
          case NOT_FOUND -> new FileNotFoundException(DOES_NOT_EXIST + message);
          case ALREADY_EXISTS -> new FileAlreadyExistsException(message);
          case NOT_DIRECTORY ->
              op == Op.CREATE
                  ? new ParentNotDirectoryException(message)
                  : new FileNotFoundException(DOES_NOT_EXIST + message);
          case IS_DIRECTORY ->
              switch (op) {
                case CREATE -> new FileAlreadyExistsException(message);
                case OPEN -> new FileNotFoundException(NOT_A_FILE + message);
                case PATH -> null;
              };
          case NOT_EMPTY -> new PathIsNotEmptyDirectoryException(message);
          case PERMISSION_DENIED, INVALID_TOKEN, NOT_AUTHENTICATED ->
              new AccessControlException(message);
          case CHECKSUM_MISMATCH -> new ChecksumException(message, -1);
          // No data server has room: Hadoop's own type for a full cluster, which HDFS's quota
          // exceptions extend too (QUOTA_EXCEEDED stays the Braid exception: HDFS's
          // QuotaExceededException lives in hadoop-hdfs-client, which this module does not use).
          case NO_SPACE -> new ClusterStorageCapacityExceededException(message);
          // Unchecked, as the specification (and HDFS's client) raise them.
          case NAME_TOO_LONG -> throw withCause(new InvalidPathException(message), e);
          case UNSUPPORTED -> throw withCause(new UnsupportedOperationException(message), e);
          default -> null;
        };
    if (h == null) {
      return e;
    }
    h.initCause(e);
    return h;
  }

  /**
   * The refusal of an operation whose feature Braid does not have at all (ACLs, snapshots, storage
   * policies): a {@link PathOperationException} (Hadoop's ENOTSUP) naming the operation and the
   * path, caused by an {@link UnsupportedOperationException} naming the feature. An {@code
   * IOException}, like the AclException or SnapshotException of HDFS with the feature switched off,
   * so FsShell prints one line and exits 1; the unchecked UnsupportedOperationException of Hadoop's
   * defaults ends FsShell with "Fatal internal error" and a stack trace.
   *
   * @param op the FileSystem method ({@code setAcl})
   * @param path the qualified path it was called on
   * @param feature what Braid lacks, plural ({@code ACLs})
   */
  static IOException unsupported(String op, String path, String feature) {
    PathOperationException e = new PathOperationException(path);
    e.setOperation(op);
    e.initCause(new UnsupportedOperationException(feature + " are not supported by Braid"));
    return e;
  }

  private static RuntimeException withCause(RuntimeException r, IOException cause) {
    r.initCause(cause);
    return r;
  }

  /** A client call that may fail. */
  @FunctionalInterface
  interface Call<T> {
    T run() throws IOException;
  }

  /** A client call with no result that may fail. */
  @FunctionalInterface
  interface Action {
    void run() throws IOException;
  }

  /**
   * Runs a client call, its failure translated for {@code op}: the one try/catch every FileSystem
   * method would otherwise repeat.
   */
  static <T> T call(Op op, Call<T> call) throws IOException {
    try {
      return call.run();
    } catch (IOException e) {
      throw translate(e, op);
    }
  }

  /** As {@link #call(Op, Call)}, for a call with no result. */
  static void run(Op op, Action action) throws IOException {
    try {
      action.run();
    } catch (IOException e) {
      throw translate(e, op);
    }
  }

  /** Whether {@code e} carries {@code status}. */
  static boolean is(IOException e, Status status) {
    return StatusExceptions.statusOf(e) == status;
  }
}
