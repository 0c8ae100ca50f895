package io.braidfs.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

class FuseErrorsTest {
  @Test
  void everyStatusBecomesItsErrno() {
    for (Status s : Status.values()) {
      if (s == Status.OK) {
        continue;
      }
      IOException e = StatusExceptions.toIOException(s, "op /p: " + s);
      assertThat(FuseErrors.of("op", "/p", e)).as(s.name()).isEqualTo(-s.errno());
    }
  }

  @Test
  void jdkExceptionsAndSurprises() {
    assertThat(FuseErrors.errno(new NoSuchFileException("/x"))).isEqualTo(FuseErrors.ENOENT);
    assertThat(FuseErrors.errno(new UnsupportedOperationException())).isEqualTo(FuseErrors.ENOSYS);
    assertThat(FuseErrors.errno(new IllegalArgumentException())).isEqualTo(FuseErrors.EINVAL);
    assertThat(FuseErrors.of("op", "/p", new IllegalStateException("bug")))
        .isEqualTo(-FuseErrors.EIO);
    assertThat(FuseErrors.of("op", "/p", new IOException("connection reset")))
        .isEqualTo(-FuseErrors.EIO);
  }

  @Test
  void callAnswersTheBodysResultOrTheErrnoOfWhatItThrew() {
    assertThat(FuseErrors.call("read", "/p", () -> 4096)).isEqualTo(4096);
    assertThat(FuseErrors.call("getxattr", "/p", () -> -FuseErrors.ENODATA))
        .isEqualTo(-FuseErrors.ENODATA);
    assertThat(
            FuseErrors.call(
                "write",
                "/p",
                () -> {
                  throw StatusExceptions.toIOException(Status.LEASE_CONFLICT, "write /p");
                }))
        .isEqualTo(-Status.LEASE_CONFLICT.errno());
    assertThat(
            FuseErrors.call(
                "open",
                "/p",
                () -> {
                  throw new IllegalStateException("bug");
                }))
        .isEqualTo(-FuseErrors.EIO);
  }

  @Test
  void mountOptionsCarryTheDocumentedDefaults() {
    String[] args = MountOptions.defaults().withAllowOther(false).fuseArgs("braid");
    assertThat(args[0]).isEqualTo("-o");
    assertThat(args[1].split(","))
        .contains(
            "big_writes",
            "max_write=131072",
            "max_read=131072",
            "attr_timeout=1",
            "entry_timeout=1",
            "auto_cache",
            "ac_attr_timeout=0",
            "use_ino",
            "default_permissions",
            "auto_unmount")
        .doesNotContain("allow_other", "-s");
  }
}
