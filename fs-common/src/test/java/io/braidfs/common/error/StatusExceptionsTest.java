package io.braidfs.common.error;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NotDirectoryException;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StatusExceptionsTest {
  private static final String MESSAGE = "create /a/b: something about /a/b";

  /** The documented mapping (docs/errors.md): the Braid class and the JDK type it extends. */
  private static final Map<Status, Class<?>[]> EXPECTED = new EnumMap<>(Status.class);

  static {
    expect(BraidFileNotFoundException.class, FileNotFoundException.class, Status.NOT_FOUND);
    expect(PathExistsException.class, FileAlreadyExistsException.class, Status.ALREADY_EXISTS);
    expect(PathNotDirectoryException.class, NotDirectoryException.class, Status.NOT_DIRECTORY);
    expect(IsDirectoryException.class, FileSystemException.class, Status.IS_DIRECTORY);
    expect(PathNotEmptyException.class, DirectoryNotEmptyException.class, Status.NOT_EMPTY);
    expect(
        PathAccessDeniedException.class,
        AccessDeniedException.class,
        Status.PERMISSION_DENIED,
        Status.INVALID_TOKEN,
        Status.NOT_AUTHENTICATED);
    expect(
        InvalidArgumentException.class,
        IOException.class,
        Status.INVALID_ARGUMENT,
        Status.NAME_TOO_LONG,
        Status.OUT_OF_RANGE,
        Status.TOO_MANY_LINKS);
    expect(QuotaExceededException.class, IOException.class, Status.NO_SPACE, Status.QUOTA_EXCEEDED);
    expect(
        ServiceUnavailableException.class,
        IOException.class,
        Status.NOT_LEADER,
        Status.UNAVAILABLE,
        Status.BUSY,
        Status.DEADLINE_EXCEEDED);
    expect(
        StaleHandleException.class,
        IOException.class,
        Status.STALE_HANDLE,
        Status.LEASE_EXPIRED,
        Status.STALE_VERSION);
    expect(LeaseConflictException.class, IOException.class, Status.LEASE_CONFLICT);
    expect(OperationUnsupportedException.class, IOException.class, Status.UNSUPPORTED);
    expect(OperationCancelledException.class, InterruptedIOException.class, Status.CANCELLED);
    expect(
        BraidServerException.class,
        IOException.class,
        Status.CHECKSUM_MISMATCH,
        Status.MALFORMED_FRAME,
        Status.FRAME_TOO_LARGE,
        Status.UNKNOWN_METHOD,
        Status.UNSUPPORTED_VERSION,
        Status.INTERNAL);
  }

  private static void expect(Class<?> braidType, Class<?> jdkType, Status... statuses) {
    for (Status s : statuses) {
      EXPECTED.put(s, new Class<?>[] {braidType, jdkType});
    }
  }

  @Test
  void expectationsCoverEveryErrorStatus() {
    for (Status s : Status.values()) {
      assertThat(EXPECTED.containsKey(s)).as("expectation for %s", s).isEqualTo(!s.isOk());
    }
  }

  @ParameterizedTest
  @EnumSource(value = Status.class, names = "OK", mode = EnumSource.Mode.EXCLUDE)
  void everyErrorStatusMapsToTheDocumentedException(Status status) {
    IOException e = StatusExceptions.toIOException(status, MESSAGE);

    assertThat(e).isExactlyInstanceOf(EXPECTED.get(status)[0]);
    assertThat(e).isInstanceOf(EXPECTED.get(status)[1]);
    assertThat(e).isInstanceOf(StatusException.class);
    assertThat(((StatusException) e).status()).isEqualTo(status);
    assertThat(e.getCause()).isNull();
  }

  @ParameterizedTest
  @EnumSource(value = Status.class, names = "OK", mode = EnumSource.Mode.EXCLUDE)
  void roundTripsThroughStatusOf(Status status) {
    assertThat(StatusExceptions.statusOf(StatusExceptions.toIOException(status, MESSAGE)))
        .isEqualTo(status);
  }

  @ParameterizedTest
  @EnumSource(value = Status.class, names = "OK", mode = EnumSource.Mode.EXCLUDE)
  void messageIsTheServersAndToStringAddsTheStatusName(Status status) {
    IOException e = StatusExceptions.toIOException(status, MESSAGE);

    if (status == Status.DEADLINE_EXCEEDED) {
      assertThat(e.getMessage()).startsWith(MESSAGE).contains("may or may not have been applied");
    } else {
      assertThat(e.getMessage()).isEqualTo(MESSAGE);
    }
    assertThat(e.toString())
        .startsWith(e.getClass().getName() + " [" + status.name() + "]: ")
        .endsWith(e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(value = Status.class, names = "OK", mode = EnumSource.Mode.EXCLUDE)
  void keepsALocalCause(Status status) {
    ConnectException cause = new ConnectException("connection refused");

    assertThat(StatusExceptions.toIOException(status, MESSAGE, cause)).hasCause(cause);
  }

  @Test
  void fileSystemExceptionsCarryTheMessageAndNoFile() {
    for (Status s :
        new Status[] {
          Status.ALREADY_EXISTS,
          Status.NOT_DIRECTORY,
          Status.IS_DIRECTORY,
          Status.NOT_EMPTY,
          Status.PERMISSION_DENIED
        }) {
      FileSystemException e = (FileSystemException) StatusExceptions.toIOException(s, MESSAGE);
      assertThat(e.getFile()).as("%s", s).isNull();
      assertThat(e.getReason()).as("%s", s).isEqualTo(MESSAGE);
      assertThat(e.getMessage()).as("%s", s).isEqualTo(MESSAGE);
    }
  }

  @Test
  void okHasNoException() {
    assertThatThrownBy(() -> StatusExceptions.toIOException(Status.OK, "fine"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("OK");
  }

  @Test
  void statusOfAnythingElseIsInternal() {
    assertThat(StatusExceptions.statusOf(new IOException("disk"))).isEqualTo(Status.INTERNAL);
    assertThat(StatusExceptions.statusOf(new IllegalStateException())).isEqualTo(Status.INTERNAL);
    // A wrapped status exception is a failure of the wrapper, not the wrapped status.
    IOException wrapped =
        new IOException(StatusExceptions.toIOException(Status.NOT_FOUND, MESSAGE));
    assertThat(StatusExceptions.statusOf(wrapped)).isEqualTo(Status.INTERNAL);
  }

  @Test
  void serviceUnavailableIsRetriableAndSaysWhetherItMayHaveBeenApplied() {
    for (Status s :
        new Status[] {
          Status.NOT_LEADER, Status.UNAVAILABLE, Status.BUSY, Status.DEADLINE_EXCEEDED
        }) {
      ServiceUnavailableException e =
          (ServiceUnavailableException) StatusExceptions.toIOException(s, MESSAGE);
      assertThat(e.isRetriable()).as("%s", s).isTrue();
      assertThat(e.mayHaveBeenApplied()).as("%s", s).isEqualTo(s == Status.DEADLINE_EXCEEDED);
    }
  }

  @Test
  void constructorsRejectAStatusTheyDoNotCover() {
    assertThatThrownBy(() -> new StaleHandleException(Status.NOT_FOUND, MESSAGE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NOT_FOUND");
  }
}
