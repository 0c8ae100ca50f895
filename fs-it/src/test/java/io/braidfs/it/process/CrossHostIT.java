package io.braidfs.it.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.Await;
import io.braidfs.testing.process.CommandResult;
import io.braidfs.testing.process.ProcessCluster;
import io.braidfs.testing.process.ProcessClusterExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Braid across hosts: an MDS, three data servers and a client, each a real process from the release
 * tarball on a host of its own (a network namespace with its own address), so that nothing can pass
 * by way of loopback.
 *
 * <p>Checks: 1 GiB written and read back from the client host (a seeded stream, compared byte for
 * byte and by SHA-256); chunk locations name each data server's own address and the replica is in
 * that server's directory; short-circuit reads happen only on a data server's own host; every
 * server listens on its host's address alone; and each fault call does what it says.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CrossHostIT {
  private static final long GIB = 1L << 30;

  @RegisterExtension
  static final ProcessClusterExtension CLUSTER =
      new ProcessClusterExtension(b -> b.dataServers(3).clients("client"));

  @Test
  @Order(1)
  @Timeout(600)
  void writesAndReadsOneGibFromTheClientHost() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    Map<String, String> wrote =
        Clients.client(c, "client", "write", "/big/one-gib", "" + GIB, "25");
    Map<String, String> read = Clients.client(c, "client", "read", "/big/one-gib", "" + GIB, "25");

    assertThat(wrote).containsEntry("bytes", "" + GIB);
    assertThat(read)
        .containsEntry("bytes", "" + GIB)
        .containsEntry("mismatch", "-1")
        .containsEntry("sha256", wrote.get("sha256"));
    // Short-circuit reads are on in this client, and none happened: no replica is on its host.
    assertThat(read)
        .containsEntry("shortCircuit", "true")
        .containsEntry("localReads", "0")
        .containsEntry("localBytes", "0");
    System.out.printf(
        "1 GiB from the client host over three data server hosts: write %s ms, read %s ms%n",
        wrote.get("millis"), read.get("millis"));

    // Three replicas of every chunk (the default layout), one on each data server's own address.
    List<Clients.Chunk> chunks = Clients.locations(c, "client", "/big/one-gib");
    assertThat(chunks).hasSize((int) (GIB / (64 << 20)));
    for (Clients.Chunk chunk : chunks) {
      assertThat(chunk.replicas())
          .as("replicas of chunk %s", chunk)
          .containsExactlyInAnyOrderElementsOf(Clients.dataServerAddresses(c).values());
    }
  }

  @Test
  @Order(2)
  @Timeout(300)
  void locationsNameTheDataServerHoldingEachReplica() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    // One replica per chunk, 1 MiB stripe units over three 4 MiB chunks per set: 24 MiB fill
    // six chunks, two on each data server (the chunks of a set get distinct primaries).
    Clients.braid(c, "fs", "--mds", c.mdsAddress(), "mkdir", "-p", "/one");
    Clients.braid(
        c,
        "fs",
        "--mds",
        c.mdsAddress(),
        "layout",
        "set",
        "/one",
        "--replication",
        "1",
        "--stripe-width",
        "3",
        "--chunk-size",
        "4MiB");
    long size = 24L << 20;
    Clients.client(c, "client", "write", "/one/file", "" + size, "7");

    Map<String, String> addresses = Clients.dataServerAddresses(c);
    List<Clients.Chunk> chunks = Clients.locations(c, "client", "/one/file");
    assertThat(chunks).hasSize(6);
    Map<String, Integer> perServer = new HashMap<>();
    for (Clients.Chunk chunk : chunks) {
      assertThat(chunk.replicas()).as("replicas of %s", chunk).hasSize(1);
      String replica = chunk.replicas().get(0);
      String ds =
          addresses.entrySet().stream()
              .filter(e -> e.getValue().equals(replica))
              .map(Map.Entry::getKey)
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          chunk
                              + " names "
                              + replica
                              + ", no data server's address: "
                              + addresses));
      // The replica is where the answer says, and nowhere else.
      for (String other : addresses.keySet()) {
        assertThat(Clients.replicaFiles(c, other, chunk))
            .as("%s's files of %s (the MDS says %s)", other, chunk, ds)
            .hasSize(other.equals(ds) ? 1 : 0);
      }
      perServer.merge(ds, 1, Integer::sum);
    }
    assertThat(perServer)
        .as("chunks per data server")
        .containsOnlyKeys(addresses.keySet())
        .allSatisfy((ds, n) -> assertThat(n).isEqualTo(2));

    Map<String, String> read = Clients.client(c, "client", "read", "/one/file", "" + size, "7");
    assertThat(read).containsEntry("bytes", "" + size).containsEntry("mismatch", "-1");
  }

  @Test
  @Order(3)
  @Timeout(300)
  void shortCircuitReadsOnlyOnTheDataServersOwnHost() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    long size = 96L << 20;
    Clients.client(c, "client", "write", "/sc/file", "" + size, "11");
    Map<String, String> addresses = Clients.dataServerAddresses(c);

    // From the client host: over the network, though the files are on this machine's disk.
    Map<String, String> remote = Clients.client(c, "client", "read", "/sc/file", "" + size, "11");
    assertThat(remote)
        .containsEntry("mismatch", "-1")
        .containsEntry("shortCircuit", "true")
        .containsEntry("localReads", "0")
        .containsEntry("localBytes", "0");
    String clientAddress = c.host("client").address();
    for (Clients.Chunk chunk : Clients.locations(c, "client", "/sc/file")) {
      assertThat(chunk.replicas()).noneMatch(r -> r.startsWith(clientAddress + ":"));
    }

    // On ds2's own host the MDS names ds2 first (nearest to the caller), and every byte is read
    // from ds2's files.
    for (Clients.Chunk chunk : Clients.locations(c, "ds2", "/sc/file")) {
      assertThat(chunk.replicas()).as("replicas of %s for a client on ds2", chunk).hasSize(3);
      assertThat(chunk.replicas().get(0)).isEqualTo(addresses.get("ds2"));
    }
    Map<String, String> local = Clients.client(c, "ds2", "read", "/sc/file", "" + size, "11");
    assertThat(local)
        .containsEntry("bytes", "" + size)
        .containsEntry("mismatch", "-1")
        .containsEntry("localBytes", "" + size);
  }

  @Test
  @Order(4)
  void serversListenOnTheirHostsAddressOnly() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    assertThat(c.listeningSockets("mds")).containsExactly(c.mdsAddress());
    for (Map.Entry<String, String> ds : Clients.dataServerAddresses(c).entrySet()) {
      assertThat(c.listeningSockets(ds.getKey())).as(ds.getKey()).containsExactly(ds.getValue());
    }
    assertThat(c.listeningSockets("client")).isEmpty();
  }

  @Test
  @Order(5)
  @Timeout(300)
  void eachFaultIsOneCall() throws Exception {
    ProcessCluster c = CLUSTER.cluster();
    String ds1 = c.host("ds1").address();

    c.linkDown("ds1");
    assertThat(connect(c, ds1)).startsWith("connect failed=");
    c.linkUp("ds1");
    assertThat(connect(c, ds1)).isEqualTo("connect ok");

    long paused = c.process("ds2").pid();
    c.pause("ds2");
    awaitState(paused, true);
    c.resume("ds2");
    awaitState(paused, false);

    long killed = c.process("ds3").pid();
    int id = c.serverId("ds3");
    c.kill("ds3");
    assertThat(c.process("ds3").isAlive()).isFalse();
    assertThat(c.network().pids(c.host("ds3"))).isEmpty();
    c.restart("ds3");
    assertThat(c.process("ds3").pid()).isNotEqualTo(killed);
    assertThat(c.serverId("ds3")).isEqualTo(id); // the same server, on its own data

    c.restart("mds");
    Map<String, String> read =
        Clients.client(c, "client", "read", "/sc/file", "" + (96L << 20), "11");
    assertThat(read).containsEntry("mismatch", "-1");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private static String connect(ProcessCluster c, String address)
      throws IOException, InterruptedException {
    CommandResult r =
        c.java(
            "client",
            Clients.CLIENT_TIMEOUT,
            ClientMain.class,
            "-",
            "connect",
            address,
            "" + ProcessCluster.DATA_SERVER_PORT,
            "2000");
    assertThat(r.exitCode()).as("connect; stderr:\n%s", r.stderr()).isZero();
    return r.stdout();
  }

  /** Waits until /proc/PID/stat says the process is stopped (state T), or is not. */
  private static void awaitState(long pid, boolean stopped) {
    Path stat = Path.of("/proc/" + pid + "/stat");
    Await.until(
        "pid " + pid + (stopped ? " stopped" : " running"),
        Duration.ofSeconds(10),
        () -> {
          try {
            String s = Files.readString(stat);
            return (s.charAt(s.lastIndexOf(')') + 2) == 'T') == stopped;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}
