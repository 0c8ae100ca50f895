package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid zk} serving for real: the serving line, {@code ruok} answered {@code imok} on the
 * client port, a clean stop on request and on SIGTERM (exit code 0) with only warnings from
 * ZooKeeper in the log, and start failures (exit code 1, one line naming the cause) and bad
 * configuration (exit code 2).
 */
class ZkCommandTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** The line {@code braid zk} prints once it serves. */
  static final Pattern SERVING =
      Pattern.compile("braid zk: serving (.+):(\\d+) \\(standalone, data (.+)\\)");

  @TempDir Path tmp;

  /** Sends a four-letter word to the client port and returns the whole answer. */
  static String fourLetterWord(InetSocketAddress address, String word) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(address, 10_000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(word.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }

  @Test
  void printsOneServingLineAnswersRuokAndStopsWithZeroOnRequest() throws Exception {
    Path dir = tmp.resolve("zk");
    try (InProcessBraid zk =
        new InProcessBraid("zk", "--address", "127.0.0.1:0", "--dir", dir.toString())) {
      InetSocketAddress address = zk.awaitListening(SERVING);
      assertThat(address.getPort()).isPositive();
      assertThat(zk.out.toString())
          .isEqualTo(
              "braid zk: serving 127.0.0.1:"
                  + address.getPort()
                  + " (standalone, data "
                  + dir.toAbsolutePath()
                  + ")"
                  + System.lineSeparator());
      assertThat(fourLetterWord(address, "ruok")).isEqualTo("imok");
      assertThat(fourLetterWord(address, "srvr")).contains("Mode: standalone");

      zk.stop.request();
      assertThat(zk.awaitExit()).isEqualTo(Braid.EXIT_OK);
      assertThat(zk.out.toString().lines()).hasSize(1);
      assertThat(zk.err.toString()).isEmpty();
    }
    assertThat(dir.resolve("version-2")).isDirectory();
  }

  @Test
  void aBusyPortFailsToStartWithOneLineAndExitCodeOne() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String address = "127.0.0.1:" + taken.getLocalPort();
      Path dir = tmp.resolve("zk");
      try (InProcessBraid zk =
          new InProcessBraid("zk", "--address", address, "--dir", dir.toString())) {
        assertThat(zk.awaitExit()).isEqualTo(Braid.EXIT_FAILURE);
        assertThat(zk.out.toString()).isEmpty();
        assertThat(zk.err.toString().lines().toList())
            .containsExactly(
                "braid zk: failed to start (address "
                    + address
                    + ", data "
                    + dir
                    + "): Address already in use (choose another with --address)");
      }
    }
  }

  @Test
  void aDataDirThatCannotBeWrittenFailsToStartWithExitCodeOne() throws Exception {
    // A file where the directory should be: unwritable as a directory even for root, which
    // permission bits would not stop.
    Path file = Files.writeString(tmp.resolve("file"), "x");
    try (InProcessBraid zk =
        new InProcessBraid(
            "zk", "--address", "127.0.0.1:0", "--dir", file.resolve("zk").toString())) {
      assertThat(zk.awaitExit()).isEqualTo(Braid.EXIT_FAILURE);
      assertThat(zk.out.toString()).isEmpty();
      List<String> err = zk.err.toString().lines().toList();
      assertThat(err).hasSize(1);
      assertThat(err.get(0))
          .startsWith("braid zk: failed to start (address 127.0.0.1:0, data " + file + "/zk): ")
          .endsWith("cannot create ZooKeeper data dir " + file + "/zk: Not a directory");
    }
  }

  @Test
  void anIdOutsideTheEnsembleIsAUsageError() throws Exception {
    try (InProcessBraid zk =
        new InProcessBraid(
            "zk",
            "--dir",
            tmp.toString(),
            "--servers",
            "1=127.0.0.1:2888:3888,2=127.0.0.1:2889:3889,3=127.0.0.1:2890:3890",
            "--id",
            "4")) {
      assertThat(zk.awaitExit()).isEqualTo(Braid.EXIT_USAGE);
      assertThat(zk.err.toString().lines().toList())
          .containsExactly(
              "braid zk: braid.zk.id is 4, which is not a member of braid.zk.servers"
                  + " [1=127.0.0.1:2888:3888, 2=127.0.0.1:2889:3889, 3=127.0.0.1:2890:3890]");
    }
  }

  @Test
  void sigtermStopsTheProcessCleanlyAndZooKeeperLogsOnlyWarnings() throws Exception {
    Path log = tmp.resolve("zk.log");
    Path dir = tmp.resolve("zk");
    try (BraidProcess p =
        BraidProcess.start(log, "zk", "--address", "127.0.0.1:0", "--dir", dir.toString())) {
      Matcher m = p.awaitLine(SERVING, TIMEOUT);
      InetSocketAddress address = new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
      assertThat(fourLetterWord(address, "ruok")).isEqualTo("imok");
      assertThat(p.terminate(TIMEOUT)).as(p.diagnostics()).isZero();
      assertThat(p.stdout()).hasSize(1);
    }
    List<String> lines = Files.readAllLines(log);
    assertThat(lines).anyMatch(l -> l.contains("braid zk: stopped"));
    // dist's logback.xml keeps ZooKeeper's INFO chatter off the terminal: INFO lines are ours.
    assertThat(lines.stream().filter(l -> l.contains(" INFO ")))
        .allMatch(l -> l.contains(" EmbeddedZooKeeper - ") || l.contains(" Foreground - "));
  }
}
