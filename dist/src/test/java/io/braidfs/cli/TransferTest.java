package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.NoSuchFileException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The copy loop of {@code braid fs} and how its failures read: the side that failed is named, a
 * stop request interrupts, and every {@link Status} has words.
 */
class TransferTest {
  @Test
  void copiesEveryByteAcrossBuffers() throws IOException {
    byte[] data = new byte[Transfer.BUFFER * 2 + 17];
    new Random(7).nextBytes(data);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long n =
        Transfer.copy(
            new ByteArrayInputStream(data), "in", out, "out", data.length, "t", new StopSignal());
    assertThat(n).isEqualTo(data.length);
    assertThat(out.toByteArray()).isEqualTo(data);
  }

  @Test
  void aReadFailureNamesTheSourceAndAWriteFailureTheDestination() {
    InputStream badIn =
        new InputStream() {
          @Override
          public int read() throws IOException {
            throw StatusExceptions.toIOException(Status.CHECKSUM_MISMATCH, "read /f: chunk 3");
          }
        };
    assertThatThrownBy(
            () ->
                Transfer.copy(
                    badIn, "/f", new ByteArrayOutputStream(), "local", -1, "t", new StopSignal()))
        .isInstanceOf(PathFailure.class)
        .hasMessage("/f: checksum mismatch (CHECKSUM_MISMATCH: read /f: chunk 3)");

    OutputStream badOut =
        new OutputStream() {
          @Override
          public void write(int b) throws IOException {
            throw new NoSuchFileException("/tmp/gone");
          }
        };
    assertThatThrownBy(
            () ->
                Transfer.copy(
                    new ByteArrayInputStream(new byte[10]),
                    "/f",
                    badOut,
                    "/tmp/gone",
                    10,
                    "t",
                    new StopSignal()))
        .isInstanceOf(PathFailure.class)
        .hasMessage("/tmp/gone: no such file or directory");
  }

  @Test
  void aStopRequestInterrupts() {
    StopSignal stop = new StopSignal();
    stop.request();
    assertThatThrownBy(
            () ->
                Transfer.copy(
                    new ByteArrayInputStream(new byte[10]),
                    "a",
                    new ByteArrayOutputStream(),
                    "b",
                    10,
                    "t",
                    stop))
        .isInstanceOf(PathFailure.class)
        .hasMessage("b: interrupted");
  }

  @Test
  void noProgressBarForSmallCopiesOrWithoutATerminal() {
    assertThat(Transfer.showsProgress(Transfer.PROGRESS_THRESHOLD - 1)).isFalse();
    assertThat(Transfer.showsProgress(-1)).isFalse();
    // Tests run without a terminal.
    assertThat(Transfer.showsProgress(Transfer.PROGRESS_THRESHOLD))
        .isEqualTo(System.console() != null);
  }

  @Test
  void everyStatusHasWordsAndSelfExplanatoryOnesLeaveTheServerMessageOut() {
    for (Status s : Status.values()) {
      assertThat(PathFailure.words(s)).as(s.name()).isNotBlank();
    }
    assertThat(
            PathFailure.describe(
                StatusExceptions.toIOException(Status.NOT_FOUND, "open /a/b: no entry 'a'")))
        .isEqualTo("no such file or directory (NOT_FOUND)");
    assertThat(
            PathFailure.describe(
                StatusExceptions.toIOException(Status.INVALID_ARGUMENT, "setlayout /d: bad\nunit")))
        .isEqualTo("invalid argument (INVALID_ARGUMENT: setlayout /d: bad; unit)");
  }
}
