package io.braidfs.it.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.Await;
import io.braidfs.testing.process.CommandResult;
import io.braidfs.testing.process.HostProcess;
import io.braidfs.testing.process.ProcessCluster;
import io.braidfs.testing.process.ProcessClusterExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cluster heals itself across hosts (issue 26): an MDS and four data servers, each a process
 * from the release tarball in a network namespace of its own, replication 3.
 *
 * <ol>
 *   <li>SIGKILL of one data server: fsck reaches healthy on its own; then SIGKILL of two more, and
 *       every file still reads back byte for byte from the one left.
 *   <li>The same with links cut instead of kills.
 *   <li>One byte flipped in a replica file on disk: the scrubber finds it, the replica is replaced
 *       from a good copy and equals the others on disk; reads meanwhile never see the bad byte.
 *   <li>Decommission of a server under read load: no read fails, and at the end the server holds no
 *       replica that is needed.
 * </ol>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RepairIT {
  private static final long FILE = 24L << 20;
  private static final int FILES = 3;
  private static final Duration HEAL = Duration.ofMinutes(3);
  private static final List<String> SERVERS = List.of("ds1", "ds2", "ds3", "ds4");

  @RegisterExtension
  static final ProcessClusterExtension CLUSTER =
      new ProcessClusterExtension(
          b ->
              b.dataServers(4)
                  .clients("client")
                  .set("braid.mds.cluster.heartbeat-interval", "200ms")
                  .set("braid.mds.cluster.dead-interval", "3s")
                  .set("braid.mds.cluster.repair-scan-interval", "5s")
                  .set("braid.mds.cluster.min-free", "64MiB")
                  .set("braid.dataserver.scrub.interval", "2s")
                  .set("braid.dataserver.scrub.bandwidth", "64MiB"));

  @Test
  @Order(1)
  @Timeout(900)
  void killedServersAreReplacedAndTheLastOneLeftServesEverything() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    List<String> files = writeFiles(c, "/kill");
    c.kill("ds1");
    awaitDead(c, 1);
    awaitHealthy(c, "after ds1 was killed");
    for (String f : files) {
      for (Clients.Chunk chunk : Clients.locations(c, "client", f)) {
        assertThat(chunk.replicas()).hasSize(3).doesNotContain(address(c, "ds1"));
      }
    }
    c.kill("ds2");
    c.kill("ds3");
    readAll(c, files);
    everyServerBack(c);
    awaitHealthy(c, "after the three came back");
  }

  @Test
  @Order(2)
  @Timeout(900)
  void serversCutOffAreReplacedAndTheLastOneReachableServesEverything() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    List<String> files = writeFiles(c, "/cut");
    cut(c, "ds2");
    awaitDead(c, 1);
    awaitHealthy(c, "after ds2's link was cut");
    for (String f : files) {
      for (Clients.Chunk chunk : Clients.locations(c, "client", f)) {
        assertThat(chunk.replicas()).hasSize(3).doesNotContain(address(c, "ds2"));
      }
    }
    cut(c, "ds3");
    cut(c, "ds4");
    readAll(c, files);
    everyServerBack(c);
    awaitHealthy(c, "after the links came back");
  }

  @Test
  @Order(3)
  @Timeout(600)
  void aFlippedByteIsFoundByTheScrubberAndRepaired() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    Clients.client(c, "client", "write", "/scrub/file", "" + FILE, "31");
    awaitHealthy(c, "after the write");
    Clients.Chunk chunk = Clients.locations(c, "client", "/scrub/file").get(0);
    String bad = serverAt(c, chunk.replicas().get(0));
    Path file = Clients.replicaFiles(c, bad, chunk).get(0);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xa5}), 4096);
    }
    // Readers start only once the scrubber has spoken: a reader meeting the flipped byte first
    // reports the replica itself, the MDS replaces it, and the scrubber never sees it.
    Await.until(
        "the scrubber of " + bad + " reports the flipped byte",
        HEAL,
        () -> c.process(bad).logCount(Pattern.compile("corrupt")) > 0);
    ReadLoop reader = startReadLoop(c, "/scrub/file", FILE, "31");
    Await.until(
        "the replica on " + bad + " replaced",
        HEAL,
        () ->
            !unchecked(() -> Clients.locations(c, "client", "/scrub/file").get(0).replicas())
                .contains(address(c, bad)));
    awaitHealthy(c, "after the repair");
    Map<String, String> loop = stopReadLoop(reader);
    assertThat(loop).containsEntry("failures", "0").containsEntry("mismatches", "0");

    // Every replica of the chunk now holds the same bytes on disk.
    chunk = Clients.locations(c, "client", "/scrub/file").get(0);
    byte[] first = null;
    for (String replica : chunk.replicas()) {
      byte[] bytes =
          Files.readAllBytes(Clients.replicaFiles(c, serverAt(c, replica), chunk).get(0));
      if (first == null) {
        first = bytes;
      } else {
        assertThat(bytes).as("replica on %s", replica).isEqualTo(first);
      }
    }
  }

  @Test
  @Order(4)
  @Timeout(600)
  void aServerDecommissionedUnderReadLoadIsDrainedWithoutAFailedRead() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    Clients.client(c, "client", "write", "/decom/file", "" + FILE, "41");
    awaitHealthy(c, "after the write");
    String draining =
        serverAt(c, Clients.locations(c, "client", "/decom/file").get(0).replicas().get(0));
    ReadLoop reader = startReadLoop(c, "/decom/file", FILE, "41");
    CommandResult r =
        c.braid(
            "client",
            HEAL,
            "admin",
            "--mds",
            c.mdsAddress(),
            "decommission",
            address(c, draining),
            "--wait");
    assertThat(r.exitCode())
        .as("decommission; stderr:\n%s\nstdout:\n%s", r.stderr(), r.stdout())
        .isZero();
    assertThat(r.stdout()).contains("DECOMMISSIONED");
    Map<String, String> loop = stopReadLoop(reader);
    assertThat(Long.parseLong(loop.get("rounds"))).isPositive();
    assertThat(loop).containsEntry("failures", "0").containsEntry("mismatches", "0");
    // No chunk anywhere names the drained server.
    for (String f : List.of("/decom/file", "/scrub/file")) {
      for (Clients.Chunk chunk : Clients.locations(c, "client", f)) {
        assertThat(chunk.replicas()).hasSize(3).doesNotContain(address(c, draining));
      }
    }
    awaitHealthy(c, "after the decommission");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** Data servers whose link a test cut and has not restored. */
  private static final Set<String> CUT = new HashSet<>();

  /** Every data server running with its link up, whatever an earlier test left. */
  @BeforeEach
  void everyServerBackBeforeEachTest() throws Exception {
    everyServerBack(CLUSTER.cluster());
  }

  private static void everyServerBack(ProcessCluster c) throws Exception {
    for (String ds : SERVERS) {
      if (CUT.remove(ds)) {
        c.linkUp(ds);
      }
      if (!c.process(ds).isAlive()) {
        c.restart(ds);
      }
    }
  }

  private static void cut(ProcessCluster c, String ds) throws Exception {
    c.linkDown(ds);
    CUT.add(ds);
  }

  /**
   * Waits until {@code braid admin report} counts at least {@code n} dead data servers: until then
   * fsck still counts a killed server's replicas.
   */
  private static void awaitDead(ProcessCluster c, int n) {
    Pattern dead = Pattern.compile("\"dead_servers\"\\s*:\\s*(\\d+)");
    Await.until(
        n + " data servers dead to the MDS",
        HEAL,
        () -> {
          CommandResult r = admin(c, "report", "--json");
          java.util.regex.Matcher m = dead.matcher(r.stdout());
          return r.exitCode() == 0 && m.find() && Integer.parseInt(m.group(1)) >= n;
        });
  }

  private static List<String> writeFiles(ProcessCluster c, String dir) throws Exception {
    Clients.braid(c, "fs", "--mds", c.mdsAddress(), "mkdir", "-p", dir);
    Clients.braid(
        c,
        "fs",
        "--mds",
        c.mdsAddress(),
        "layout",
        "set",
        dir,
        "--replication",
        "3",
        "--stripe-width",
        "2",
        "--chunk-size",
        "4MiB");
    List<String> files = new ArrayList<>();
    for (int i = 0; i < FILES; i++) {
      String f = dir + "/f" + i;
      Clients.client(c, "client", "write", f, "" + FILE, "" + (100 + i));
      files.add(f);
    }
    awaitHealthy(c, "after writing " + dir);
    return files;
  }

  private static void readAll(ProcessCluster c, List<String> files) throws Exception {
    for (int i = 0; i < files.size(); i++) {
      Map<String, String> read =
          Clients.client(c, "client", "read", files.get(i), "" + FILE, "" + (100 + i));
      assertThat(read).as("read %s", files.get(i)).containsEntry("mismatch", "-1");
    }
  }

  /** Waits until {@code braid admin fsck} finds every file healthy, out of the start-up grace. */
  private static void awaitHealthy(ProcessCluster c, String when) {
    Pattern healthy =
        Pattern.compile(
            "(?s)(?=.*\"under_replicated_files\"\\s*:\\s*0\\b)(?=.*\"corrupt_files\"\\s*:\\s*0\\b)"
                + "(?=.*\"missing_files\"\\s*:\\s*0\\b)(?=.*\"safe_mode\"\\s*:\\s*false).*");
    String[] last = {""};
    try {
      Await.until(
          "every file healthy " + when,
          HEAL,
          () -> {
            CommandResult r = admin(c, "fsck", "/", "--json");
            last[0] = r.stdout() + r.stderr();
            return r.exitCode() == 0 && healthy.matcher(r.stdout()).matches();
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last fsck:\n" + last[0], e);
    }
  }

  /** A {@link ClientMain} readloop running on the client host, stopped by its stop file. */
  private record ReadLoop(HostProcess process, Path stop) {}

  private static ReadLoop startReadLoop(ProcessCluster c, String path, long size, String seed)
      throws IOException {
    Path stop = c.logDir().resolve("stop-readloop" + path.replace('/', '-'));
    Files.deleteIfExists(stop);
    HostProcess p =
        c.startJava(
            "client",
            ClientMain.class,
            c.mdsAddress(),
            "readloop",
            path,
            "" + size,
            seed,
            stop.toString());
    return new ReadLoop(p, stop);
  }

  private static Map<String, String> stopReadLoop(ReadLoop loop) throws Exception {
    Files.writeString(loop.stop(), "stop");
    int exit = loop.process().awaitExit(Clients.CLIENT_TIMEOUT);
    assertThat(exit).as("readloop: %s", loop.process().diagnostics()).isZero();
    List<String> out = loop.process().stdout();
    assertThat(out).as("readloop: %s", loop.process().diagnostics()).hasSize(1);
    return Clients.pairs(out.get(0));
  }

  /** {@code braid admin --mds MDS ARGS...} on the client host, to its end. */
  private static CommandResult admin(ProcessCluster c, String... args) {
    List<String> all = new ArrayList<>(List.of("admin", "--mds", c.mdsAddress()));
    all.addAll(List.of(args));
    return unchecked(() -> c.braid("client", Clients.CLIENT_TIMEOUT, all.toArray(String[]::new)));
  }

  private static String address(ProcessCluster c, String ds) {
    return c.host(ds).address() + ":" + ProcessCluster.DATA_SERVER_PORT;
  }

  private static String serverAt(ProcessCluster c, String address) {
    for (String ds : SERVERS) {
      if (address(c, ds).equals(address)) {
        return ds;
      }
    }
    throw new AssertionError("no data server at " + address);
  }

  @FunctionalInterface
  private interface IoCall<T> {
    T call() throws Exception;
  }

  private static <T> T unchecked(IoCall<T> call) {
    try {
      return call.call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
