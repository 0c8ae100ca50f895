package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server processes with {@code braid.log.dir} (here through {@code BRAID_LOG_DIR}) write their logs
 * to files named for their role and id in that directory, through the shipped {@code logback.xml}:
 * an MDS and a data server share one directory, the MDS's audit lines go to its audit file and
 * nowhere else, only warnings stay on stderr, and a stop is logged to the file. Without it, logs go
 * to stderr and the audit log is off. A directory that cannot be used, or rotation settings that
 * contradict each other, stop the start.
 */
class LogFilesTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private static final Pattern DS_LISTENING = Pattern.compile("braid dataserver listening on .+");

  @TempDir Path tmp;

  @Test
  void serversWriteTheirOwnFilesAndTheAuditLogGoesToItsOwn() throws Exception {
    Path logs = tmp.resolve("logs");
    Map<String, String> env = Map.of("BRAID_LOG_DIR", logs.toString());
    Path mdsLog = logs.resolve("braid-mds-7.log");
    Path auditLog = logs.resolve("braid-mds-7-audit.log");
    Path dsLog = logs.resolve("braid-dataserver-ds1.log");
    Path mdsStderr = tmp.resolve("mds.stderr");
    String mdsAddress;
    try (BraidProcess mds =
        BraidProcess.start(
            mdsStderr,
            env,
            "mds",
            "--address",
            "127.0.0.1:0",
            "--dir",
            tmp.resolve("mds").toString(),
            "--id",
            "7")) {
      InetSocketAddress address = mds.awaitMdsListening(TIMEOUT);
      mdsAddress = "127.0.0.1:" + address.getPort();
      awaitLine(mdsLog, "mds-7: serving on");

      try (BraidProcess ds =
          BraidProcess.start(
              tmp.resolve("ds.stderr"),
              env,
              "dataserver",
              "--address",
              "127.0.0.1:0",
              "--dir",
              tmp.resolve("disk").toString(),
              "--mds",
              mdsAddress,
              "--id",
              "ds1")) {
        ds.awaitLine(DS_LISTENING, TIMEOUT);
        awaitLine(dsLog, "ds1: serving");
        assertThat(read(dsLog)).contains("braid dataserver: logging to " + dsLog);
        assertThat(read(mdsLog)).doesNotContain("braid dataserver: logging to");
        assertThat(read(dsLog)).doesNotContain("braid mds: logging to");
        assertThat(ds.terminate(TIMEOUT)).isEqualTo(Braid.EXIT_OK);
      }

      FsCommandTest.Run mkdir = FsCommandTest.fsAt(mdsAddress, "mkdir", "/audited");
      assertThat(mkdir.code()).as(mkdir.err()).isZero();
      awaitLine(auditLog, "cmd=mkdir\tsrc=/audited");
      assertThat(read(auditLog).lines())
          .allSatisfy(l -> assertThat(l).contains("\tuser=").contains("\tcmd="));
      assertThat(read(mdsLog)).doesNotContain("/audited");
      assertThat(read(mdsStderr)).doesNotContain("/audited").doesNotContain(" INFO ");

      assertThat(mds.terminate(TIMEOUT)).isEqualTo(Braid.EXIT_OK);
      assertThat(read(mdsLog)).contains("braid mds: stopped");
    }
    try (Stream<Path> files = Files.list(logs)) {
      // A data server runs no MDS: no audit file of its own.
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder(
              "braid-mds-7.log", "braid-mds-7-audit.log", "braid-dataserver-ds1.log");
    }
  }

  @Test
  void withoutALogDirectoryLogsGoToStderrAndTheAuditLogIsOff() throws Exception {
    Path stderr = tmp.resolve("mds.stderr");
    try (BraidProcess mds =
        BraidProcess.start(
            stderr, "mds", "--address", "127.0.0.1:0", "--dir", tmp.resolve("mds").toString())) {
      InetSocketAddress address = mds.awaitMdsListening(TIMEOUT);
      FsCommandTest.Run mkdir =
          FsCommandTest.fsAt("127.0.0.1:" + address.getPort(), "mkdir", "/unaudited");
      assertThat(mkdir.code()).as(mkdir.err()).isZero();
      assertThat(mds.terminate(TIMEOUT)).isEqualTo(Braid.EXIT_OK);
    }
    // The stop is the last thing logged: had the audit line been written, it would be before it.
    assertThat(read(stderr)).contains("mds: serving on", "braid mds: stopped");
    assertThat(read(stderr)).doesNotContain("/unaudited");
    try (Stream<Path> files = Files.list(tmp)) {
      assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(".log"));
    }
  }

  @Test
  void aLogDirectoryThatCannotBeMadeStopsTheStartWithOneLine() throws Exception {
    Path file = Files.writeString(tmp.resolve("not-a-dir"), "");
    FsCommandTest.Run r =
        FsCommandTest.braid(
            "mds",
            "--address",
            "127.0.0.1:0",
            "--dir",
            tmp.resolve("mds").toString(),
            "-D",
            "braid.log.dir=" + file.resolve("logs"));
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .startsWith("braid mds: cannot write log files to " + file.resolve("logs"))
        .contains("(braid.log.dir)");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aSizeCapBelowTheFileSizeIsAConfigurationError() {
    FsCommandTest.Run r =
        FsCommandTest.braid(
            "zk",
            "--address",
            "127.0.0.1:0",
            "--dir",
            tmp.resolve("zk").toString(),
            "-D",
            "braid.log.dir=" + tmp.resolve("logs"),
            "-D",
            "braid.log.max-file-size=10MiB",
            "-D",
            "braid.log.total-size-cap=1MiB");
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.errLines())
        .containsExactly(
            "braid zk: braid.log.total-size-cap (1MiB) is less than braid.log.max-file-size"
                + " (10MiB)");
    assertThat(tmp.resolve("logs")).doesNotExist();
  }

  @Test
  void aFileIsNamedForTheRoleAndTheIdOnce() {
    assertThat(ServerLogs.name("mds", "mds")).isEqualTo("mds");
    assertThat(ServerLogs.name("mds", "mds-2")).isEqualTo("mds-2");
    assertThat(ServerLogs.name("mds", "east")).isEqualTo("mds-east");
    assertThat(ServerLogs.name("dataserver", "ds1")).isEqualTo("dataserver-ds1");
    assertThat(ServerLogs.name("mds", "a/b c")).isEqualTo("mds-a_b_c");
  }

  /** Waits until {@code file} exists and holds {@code text}. */
  private static void awaitLine(Path file, String text) {
    Await.until(
        "'" + text + "' in " + file,
        TIMEOUT,
        () -> Files.exists(file) && read(file).contains(text));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
