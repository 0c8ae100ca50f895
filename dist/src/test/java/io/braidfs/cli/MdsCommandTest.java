package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.rpc.RpcClient;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.FileType;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid mds} serving for real: the listening line, a clean stop on request and on SIGTERM or
 * SIGINT (exit code 0), and start failures (exit code 1, one line naming the cause).
 */
class MdsCommandTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path tmp;

  @Test
  void printsOneListeningLineServesAndStopsWithZeroOnRequest() throws Exception {
    Path store = tmp.resolve("store");
    try (InProcessBraid mds =
            new InProcessBraid(
                "mds",
                "--address",
                "127.0.0.1:0",
                "--dir",
                store.toString(),
                "-D",
                "braid.mds.cluster.dead-interval=1h");
        RpcClient client = RpcClient.builder("cli-test").user("root").build()) {
      InetSocketAddress address = mds.awaitListening(BraidProcess.MDS_LISTENING);
      assertThat(address.getPort()).isPositive();
      assertThat(mds.out.toString())
          .isEqualTo(
              "braid mds listening on 127.0.0.1:"
                  + address.getPort()
                  + " (store "
                  + store.toAbsolutePath()
                  + ")"
                  + System.lineSeparator());

      client.start();
      MdsFixture ops = MdsFixture.attach(address, client);
      ops.registerDataServers(3);
      ops.mkdir("/a");
      Attributes created = ops.create("/a/f");
      assertThat(ops.getAttr("/a/f").getInodeId()).isEqualTo(created.getInodeId());
      assertThat(ops.getAttr("/a").getType()).isEqualTo(FileType.FILE_TYPE_DIRECTORY);

      mds.stop.request();
      assertThat(mds.awaitExit()).isEqualTo(Braid.EXIT_OK);
      assertThat(mds.out.toString().lines()).hasSize(1);
      assertThat(mds.err.toString()).isEmpty();
    }
  }

  @Test
  void aBusyPortFailsToStartWithOneLineAndExitCodeOne() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String address = "127.0.0.1:" + taken.getLocalPort();
      try (InProcessBraid mds =
          new InProcessBraid("mds", "--address", address, "--dir", tmp.resolve("s").toString())) {
        assertThat(mds.awaitExit()).isEqualTo(Braid.EXIT_FAILURE);
        assertThat(mds.out.toString()).isEmpty();
        List<String> err = mds.err.toString().lines().toList();
        assertThat(err).hasSize(1);
        assertThat(err.get(0))
            .startsWith("braid mds: failed to start (address " + address + ", store ")
            .contains("another process listens there")
            .endsWith("(choose another with --address)");
      }
    }
  }

  @Test
  void aStoreLockedByAnotherMdsFailsToStartWithExitCodeOne() throws Exception {
    String store = tmp.resolve("shared").toString();
    try (InProcessBraid first =
        new InProcessBraid("mds", "--address", "127.0.0.1:0", "--dir", store)) {
      first.awaitListening(BraidProcess.MDS_LISTENING);
      try (InProcessBraid second =
          new InProcessBraid("mds", "--address", "127.0.0.1:0", "--dir", store)) {
        assertThat(second.awaitExit()).isEqualTo(Braid.EXIT_FAILURE);
        assertThat(second.out.toString()).isEmpty();
        List<String> err = second.err.toString().lines().toList();
        assertThat(err).hasSize(1);
        assertThat(err.get(0))
            .startsWith("braid mds: failed to start (address 127.0.0.1:0, store " + store + "): ")
            .contains("the store " + store + " is in use by another server");
      }
      assertThat(first.stop.isRequested()).isFalse();
    }
  }

  @Test
  void sigtermAndSigintStopTheProcessCleanlyWithExitCodeZero() throws Exception {
    Path store = tmp.resolve("store");
    try (BraidProcess p =
        BraidProcess.start(
            tmp.resolve("term.log"),
            "mds",
            "--address",
            "127.0.0.1:0",
            "--dir",
            store.toString())) {
      p.awaitMdsListening(TIMEOUT);
      assertThat(p.terminate(TIMEOUT)).as(p.diagnostics()).isZero();
      assertThat(p.stdout()).hasSize(1);
      assertThat(Files.readString(tmp.resolve("term.log"))).contains("braid mds: stopped");
    }
    try (BraidProcess p =
        BraidProcess.start(
            tmp.resolve("int.log"), "mds", "--address", "127.0.0.1:0", "--dir", store.toString())) {
      p.awaitMdsListening(TIMEOUT);
      Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
      assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(p.awaitExit(TIMEOUT)).as(p.diagnostics()).isZero();
    }
  }

  @Test
  void theProcessReportsABadKeyWithExitCodeTwo() throws IOException, InterruptedException {
    try (BraidProcess p =
        BraidProcess.start(tmp.resolve("bad.log"), "mds", "-D", "braid.mds.nope=1")) {
      assertThat(p.awaitExit(TIMEOUT)).isEqualTo(Braid.EXIT_USAGE);
      assertThat(p.stdout()).isEmpty();
      assertThat(Files.readAllLines(tmp.resolve("bad.log")))
          .containsExactly("braid mds: unknown configuration key 'braid.mds.nope' given with -D");
    }
  }
}
