package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.proto.StatFsRequest;
import io.braidfs.proto.StatFsResponse;
import io.braidfs.testing.Await;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code braid dataserver}: the listening line, registration with a real {@code braid mds}, a clean
 * stop on request and on SIGTERM (exit code 0), start failures (exit code 1) and bad command lines
 * (exit code 2, one line naming the flag or key).
 */
class DataServerCommandTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** The line {@code braid dataserver} prints once it listens. */
  private static final Pattern LISTENING =
      Pattern.compile("braid dataserver listening on (.+):(\\d+) \\(dirs (.+), mds (.+)\\)");

  @TempDir Path tmp;

  /** The outcome of a command that ends by itself. */
  private record Run(int code, String out, List<String> err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        Braid.commandLine(new StopSignal(), new PrintWriter(out, true), new PrintWriter(err, true))
            .execute(args);
    return new Run(code, out.toString(), err.toString().lines().toList());
  }

  private static String localPort(int port) {
    return "127.0.0.1:" + port;
  }

  /** A loopback port nothing listens on (just now). */
  private static int closedPort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void registersWithTheMdsPrintsOneLineAndStopsWithZeroOnRequest() throws Exception {
    Path d1 = tmp.resolve("disk1");
    Path d2 = tmp.resolve("disk2");
    try (InProcessBraid mds =
            new InProcessBraid(
                "mds", "--address", "127.0.0.1:0", "--dir", tmp.resolve("mds").toString());
        RpcClient client = RpcClient.builder("t").user("root").build()) {
      Matcher m = mds.awaitLine(BraidProcess.MDS_LISTENING);
      InetSocketAddress mdsAddress =
          new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
      String mdsFlag = localPort(mdsAddress.getPort());
      try (InProcessBraid ds =
          new InProcessBraid(
              "dataserver",
              "--address",
              "127.0.0.1:0",
              "--dir",
              d1.toString(),
              "--dir",
              d2.toString(),
              "--mds",
              mdsFlag,
              "--id",
              "ds-cli")) {
        Matcher line = ds.awaitLine(LISTENING);
        int port = Integer.parseInt(line.group(2));
        assertThat(port).isPositive();
        assertThat(ds.out.toString())
            .isEqualTo(
                "braid dataserver listening on 127.0.0.1:"
                    + port
                    + " (dirs "
                    + d1.toAbsolutePath()
                    + ","
                    + d2.toAbsolutePath()
                    + ", mds "
                    + mdsFlag
                    + ")"
                    + System.lineSeparator());

        client.start();
        StatFsRequest statFs = StatFsRequest.newBuilder().setPath("/").build();
        Await.until(
            "the data server's capacity at the MDS",
            TIMEOUT,
            () -> {
              try {
                return client.callSync(mdsAddress, RpcMethod.STAT_FS, statFs).getCapacityBytes()
                    > 0;
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
        StatFsResponse registered = client.callSync(mdsAddress, RpcMethod.STAT_FS, statFs);
        assertThat(registered.getLiveDataServers()).isEqualTo(1);
        assertThat(Files.isDirectory(d1.resolve("chunks"))).isTrue();
        assertThat(Files.isDirectory(d2.resolve("chunks"))).isTrue();
        assertThat(Await.braidThreads()).anyMatch(n -> n.startsWith("braid-ds-cli-"));

        ds.stop.request();
        assertThat(ds.awaitExit()).isEqualTo(Braid.EXIT_OK);
        assertThat(ds.out.toString().lines()).hasSize(1);
        assertThat(ds.err.toString()).isEmpty();
        Await.until(
            "the data server's threads to end (alive: " + Await.braidThreads() + ")",
            TIMEOUT,
            () -> Await.braidThreads().stream().noneMatch(n -> n.startsWith("braid-ds-cli-")));
      }
      assertThat(mds.stop.isRequested()).isFalse();
    }
  }

  @Test
  void sigtermStopsTheProcessWithZeroAndLeavesNothingInProcessBraid() throws Exception {
    Path log = tmp.resolve("ds.log");
    Path dir = tmp.resolve("disk");
    // No MDS listens there: the data server serves anyway and keeps retrying in the background.
    String mds = localPort(closedPort());
    try (BraidProcess p =
        BraidProcess.start(
            log,
            "dataserver",
            "--address",
            "127.0.0.1:0",
            "--dir",
            dir.toString(),
            "--mds",
            mds,
            "-D",
            "braid.dataserver.register-retry=100ms")) {
      Await.until(
          "braid dataserver's listening line; " + log,
          TIMEOUT,
          () -> p.stdout().stream().anyMatch(l -> LISTENING.matcher(l).matches()));
      assertThat(p.stdout())
          .singleElement()
          .asString()
          .startsWith("braid dataserver listening on 127.0.0.1:")
          .endsWith(" (dirs " + dir.toAbsolutePath() + ", mds " + mds + ")");
      // It says so in its log, naming the address, once and not at every retry.
      Await.until(
          "a warning that the MDS cannot be reached; " + log,
          TIMEOUT,
          () -> readLog(log).contains("WARN"));
      // That nothing more is logged can only be seen over a window: five more retries (100 ms).
      Thread.sleep(500);
      assertThat(readLog(log).lines().filter(l -> l.contains("cannot reach the MDS at")).toList())
          .singleElement()
          .asString()
          .contains("WARN")
          .contains("/127.0.0.1:" + mds.substring(mds.indexOf(':') + 1) + " to register")
          .contains("retrying every 100 ms");

      assertThat(p.terminate(TIMEOUT)).as(p.diagnostics()).isZero();
      assertThat(ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      assertThat(p.stdout()).hasSize(1);
      assertThat(Files.readString(log)).contains("braid dataserver: stopped");
    }
  }

  private static String readLog(Path log) {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void noDataDirIsAUsageErrorNamingTheKeyAndTheFlag() {
    Run r = run("dataserver", "--address", "127.0.0.1:0");
    assertThat(r.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .containsExactly(
            "braid dataserver: braid.dataserver.dirs is not set: name at least one data directory"
                + " with --dir DIR");
  }

  @Test
  void aMalformedMdsOrAddressIsAUsageErrorNamingTheFlag() {
    Path dir = tmp.resolve("untouched");
    String expected = "': expected HOST:PORT with a port from 0 to 65535";

    Run nonsense = run("dataserver", "--dir", dir.toString(), "--mds", "nonsense");
    assertThat(nonsense.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(nonsense.out()).isEmpty();
    assertThat(nonsense.err())
        .containsExactly("braid dataserver: --mds: invalid address 'nonsense" + expected);

    Run second = run("dataserver", "--dir", dir.toString(), "--mds", "127.0.0.1:7400,h:x");
    assertThat(second.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(second.err())
        .containsExactly("braid dataserver: --mds: invalid address 'h:x" + expected);

    Run empty = run("dataserver", "--dir", dir.toString(), "--mds", "");
    assertThat(empty.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(empty.err())
        .containsExactly("braid dataserver: --mds: name at least one MDS as HOST:PORT");

    Run fromKey = run("dataserver", "--dir", dir.toString(), "-D", "braid.dataserver.mds=nowhere");
    assertThat(fromKey.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(fromKey.err())
        .containsExactly(
            "braid dataserver: braid.dataserver.mds: invalid address 'nowhere" + expected);

    Run address = run("dataserver", "--dir", dir.toString(), "--address", "localhost");
    assertThat(address.code()).isEqualTo(Braid.EXIT_USAGE);
    assertThat(address.err())
        .containsExactly("braid dataserver: --address: invalid address 'localhost" + expected);

    // Nothing was started, so nothing was created.
    assertThat(dir).doesNotExist();
  }

  @Test
  void aDataDirThatIsARegularFileFailsToStartWithOneLineAndExitCodeOne() throws IOException {
    Path file = Files.writeString(tmp.resolve("not-a-dir"), "x");
    Run r = run("dataserver", "--address", "127.0.0.1:0", "--dir", file.toString());
    assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .singleElement()
        .asString()
        .startsWith("braid dataserver: failed to start (address 127.0.0.1:0, dirs " + file)
        .endsWith("): " + file.toAbsolutePath() + " is not a directory");
  }

  @Test
  void aBusyPortFailsToStartWithOneLineAndExitCodeOne() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String address = localPort(taken.getLocalPort());
      Run r = run("dataserver", "--address", address, "--dir", tmp.resolve("d").toString());
      assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
      assertThat(r.out()).isEmpty();
      assertThat(r.err())
          .singleElement()
          .asString()
          .startsWith("braid dataserver: failed to start (address " + address + ", dirs ")
          .contains("Address already in use");
    }
  }

  @Test
  void helpListsTheCommandItsOptionsAndExitCodes() {
    assertThat(run("--help").out()).contains("dataserver");
    Run r = run("dataserver", "--help");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .contains(
            "Usage: braid dataserver",
            "--conf",
            "-D",
            "--address",
            "--dir",
            "--mds",
            "--id",
            "registers with the MDS in the background",
            "Exit codes");
  }

  @Test
  void flagsOverrideDefinesWhichOverrideTheFile() throws IOException {
    Path conf = tmp.resolve("ds.properties");
    Files.writeString(
        conf,
        "braid.dataserver.address=10.0.0.1:1\nbraid.dataserver.dirs=/f1,/f2\n"
            + "braid.dataserver.mds=m1:1\nbraid.dataserver.rack=/from/file\n");

    BraidConfig fileOnly = configuration("--conf", conf.toString());
    assertThat(fileOnly.get(DataServerConfigKeys.DIRS)).containsExactly("/f1", "/f2");
    assertThat(fileOnly.get(DataServerConfigKeys.MDS)).containsExactly("m1:1");

    BraidConfig all =
        configuration(
            "--conf",
            conf.toString(),
            "-D",
            "braid.dataserver.address=10.0.0.2:2",
            "-D",
            "braid.dataserver.rack=/from/define",
            "-D",
            "braid.dataserver.dirs=/d1",
            "--address",
            "10.0.0.3:3",
            "--dir",
            "/a",
            "--dir",
            "/b",
            "--mds",
            "m2:2,m3:3");
    assertThat(all.get(DataServerConfigKeys.ADDRESS)).isEqualTo("10.0.0.3:3");
    assertThat(all.get(DataServerConfigKeys.DIRS)).containsExactly("/a", "/b");
    assertThat(all.get(DataServerConfigKeys.MDS)).containsExactly("m2:2", "m3:3");
    assertThat(all.get(DataServerConfigKeys.RACK)).isEqualTo("/from/define");
  }

  /** The configuration {@code braid dataserver args...} would start with. */
  private static BraidConfig configuration(String... args) {
    CommandLine cmd =
        Braid.commandLine(
            new StopSignal(),
            new PrintWriter(new StringWriter()),
            new PrintWriter(new StringWriter()));
    String[] all = new String[args.length + 1];
    all[0] = "dataserver";
    System.arraycopy(args, 0, all, 1, args.length);
    CommandLine.ParseResult parsed = cmd.parseArgs(all);
    DataServerCommand ds = parsed.subcommand().commandSpec().commandLine().getCommand();
    return ds.configuration();
  }
}
