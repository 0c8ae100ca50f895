package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid local} in this JVM: what it prints once ready, a clean stop on request, and the
 * failures before and at start (exit code 2 for bad options, 1 for a bad {@code --mount}, a busy
 * port or a data directory another {@code braid local} uses). {@code LocalProcessIT} runs it as a
 * process.
 */
class LocalCommandTest {
  private static final Pattern READY = Pattern.compile(Pattern.quote(LocalCommand.READY) + ".*");

  @TempDir Path tmp;

  @Test
  void printsTheUriAndHowToReachItThenReadyAndStopsWithZero() throws Exception {
    Path data = tmp.resolve("data");
    try (InProcessBraid local =
        new InProcessBraid(
            "local", "--data-servers", "2", "--data", data.toString(), "--mds-port", "0")) {
      local.awaitLine(READY);
      String port = local.awaitLine(FsCommandTest.URI).group(1);
      String authority = "127.0.0.1:" + port;
      List<String> lines = local.out.toString().lines().toList();
      assertThat(lines.get(0))
          .isEqualTo("braid local: an MDS and 2 data servers, data in " + data.toAbsolutePath());
      assertThat(lines)
          .contains("  URI:    braid://" + authority + "/")
          .anyMatch(l -> l.equals("  Files:  braid fs --mds " + authority + " ls /"))
          .anyMatch(
              l ->
                  l.startsWith("  Hadoop: HADOOP_CLASSPATH=")
                      && l.contains("-shaded.jar hadoop fs -Dfs.defaultFS=braid://" + authority))
          .anyMatch(
              l ->
                  l.startsWith("  Spark:  spark-submit")
                      && l.contains("--conf spark.hadoop.fs.defaultFS=braid://" + authority));
      assertThat(lines.get(lines.size() - 1)).startsWith(LocalCommand.READY);
      assertThat(data.resolve("mds")).isDirectory();
      assertThat(data.resolve("ds1")).isDirectory();
      assertThat(data.resolve("ds2")).isDirectory();

      local.stop.request();
      assertThat(local.awaitExit()).isEqualTo(Braid.EXIT_OK);
    }
  }

  @Test
  void mountPointThatCannotBeMadeStartsNothing() throws IOException {
    Path data = tmp.resolve("never");
    Path file = Files.writeString(tmp.resolve("file"), "x");
    BraidCommandTest.Run r =
        BraidCommandTest.run(
            "local", "--data", data.toString(), "--mount", file.resolve("mnt").toString());
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .startsWith("braid local: --mount " + file.resolve("mnt"))
        .contains("cannot create the directory");
    assertThat(r.out()).isEmpty();
    assertThat(data).doesNotExist();
  }

  @Test
  void badOptionsAreUsageErrors() {
    BraidCommandTest.Run none = BraidCommandTest.run("local", "--data-servers", "0");
    assertThat(none.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(none.errLines())
        .containsExactly(
            "braid local: --data-servers: 0 is not from 1 to 64 (see braid local --help)");
    BraidCommandTest.Run port = BraidCommandTest.run("local", "--mds-port", "70000");
    assertThat(port.code()).isEqualTo(Braid.EXIT_USAGE);
    BraidCommandTest.Run key = BraidCommandTest.run("local", "-D", "braid.mds.nope=1");
    assertThat(key.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(key.errLines())
        .containsExactly("braid local: unknown configuration key 'braid.mds.nope' given with -D");
  }

  @Test
  void aBusyPortFailsToStartWithOneLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      BraidCommandTest.Run r =
          BraidCommandTest.run(
              "local",
              "--data",
              tmp.resolve("busy").toString(),
              "--mds-port",
              Integer.toString(taken.getLocalPort()));
      assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
      assertThat(r.errLines())
          .singleElement()
          .asString()
          .startsWith("braid local: failed to start (mds 127.0.0.1:" + taken.getLocalPort())
          .contains("mds: cannot listen on 127.0.0.1:" + taken.getLocalPort())
          .contains("another process listens there")
          .endsWith("(choose other ports with --mds-port)");
    }
  }

  @Test
  void aDataDirectoryInUseFailsToStart() throws Exception {
    String data = tmp.resolve("shared").toString();
    try (InProcessBraid first =
        new InProcessBraid("local", "--data-servers", "1", "--data", data, "--mds-port", "0")) {
      first.awaitLine(READY);
      BraidCommandTest.Run second =
          BraidCommandTest.run("local", "--data-servers", "1", "--data", data, "--mds-port", "0");
      assertThat(second.code()).isEqualTo(Braid.EXIT_FAILURE);
      assertThat(second.errLines())
          .singleElement()
          .asString()
          .startsWith("braid local: failed to start")
          .contains("is in use by another server (an MDS or braid local running on it)");
      assertThat(first.stop.isRequested()).isFalse();
    }
  }

  @Test
  void helpListsTheOptions() {
    BraidCommandTest.Run r = BraidCommandTest.run("local", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains(
            "--data-servers", "--data", "--mds-port", "--mount", "--conf", "-D", "Exit codes");
    assertThat(BraidCommandTest.run("--help").out()).contains("local", "fs");
  }
}
