package io.braidfs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.hadoop.HadoopErrors.Op;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.ClusterStorageCapacityExceededException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.InvalidPathException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The Status to Hadoop exception table of docs/errors.md, status by status. */
class HadoopErrorsTest {
  private static IOException braid(Status s) {
    return StatusExceptions.toIOException(s, "op /a/b: why");
  }

  private static IOException translate(Status s, Op op) {
    return HadoopErrors.translate(braid(s), op);
  }

  @Test
  void typesAsHdfsRaisesThem() {
    assertThat(translate(Status.NOT_FOUND, Op.PATH))
        .isExactlyInstanceOf(FileNotFoundException.class)
        .hasMessage("File does not exist: op /a/b: why");
    assertThat(translate(Status.ALREADY_EXISTS, Op.CREATE))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(translate(Status.NOT_DIRECTORY, Op.CREATE))
        .isInstanceOf(ParentNotDirectoryException.class);
    assertThat(translate(Status.NOT_DIRECTORY, Op.PATH))
        .isExactlyInstanceOf(FileNotFoundException.class);
    assertThat(translate(Status.IS_DIRECTORY, Op.CREATE))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(translate(Status.IS_DIRECTORY, Op.OPEN))
        .isExactlyInstanceOf(FileNotFoundException.class)
        .hasMessageStartingWith("Path is not a file: ");
    assertThat(translate(Status.NOT_EMPTY, Op.PATH))
        .isInstanceOf(PathIsNotEmptyDirectoryException.class);
    for (Status s : new Status[] {Status.PERMISSION_DENIED, Status.INVALID_TOKEN}) {
      assertThat(translate(s, Op.PATH)).isInstanceOf(AccessControlException.class);
    }
    assertThat(translate(Status.CHECKSUM_MISMATCH, Op.OPEN)).isInstanceOf(ChecksumException.class);
    for (Op op : Op.values()) {
      assertThat(translate(Status.NO_SPACE, op))
          .isExactlyInstanceOf(ClusterStorageCapacityExceededException.class)
          .hasMessage("op /a/b: why");
    }
    // A quota is the Braid exception itself (HDFS's subclass is in hadoop-hdfs-client).
    IOException quota = braid(Status.QUOTA_EXCEEDED);
    assertThat(HadoopErrors.translate(quota, Op.CREATE)).isSameAs(quota);
    assertThatThrownBy(() -> translate(Status.UNSUPPORTED, Op.PATH))
        .isExactlyInstanceOf(UnsupportedOperationException.class)
        .hasCauseInstanceOf(IOException.class);
    assertThatThrownBy(() -> translate(Status.NAME_TOO_LONG, Op.CREATE))
        .isInstanceOf(InvalidPathException.class);
  }

  @ParameterizedTest
  @EnumSource(
      value = Status.class,
      names = {"OK", "UNSUPPORTED", "NAME_TOO_LONG"},
      mode = EnumSource.Mode.EXCLUDE)
  void everyStatusKeepsTheBraidExceptionAndItsMessage(Status s) {
    IOException original = braid(s);
    IOException h = HadoopErrors.translate(original, Op.PATH);
    assertThat(h.getMessage()).contains("op /a/b: why");
    assertThat(h == original || h.getCause() == original).isTrue();
  }
}
