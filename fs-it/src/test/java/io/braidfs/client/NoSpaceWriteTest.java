package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.mds.cluster.MdsClusterConfigKeys;
import io.braidfs.testing.Await;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Full disks on the write path (issue 26), on real data servers whose data directories are capped
 * with {@code braid.dataserver.capacity}: a server in a write chain that refuses with NO_SPACE is
 * replaced as a dead one would be, and the write completes elsewhere; when no server has room the
 * write fails with NO_SPACE and the file keeps exactly what the last successful hflush published.
 *
 * <p>Chunks are 1 MiB in 64 KiB writes, and the MDS keeps no reserve ({@code min-free} 0), so a
 * server capped at exactly 1 MiB is given a chunk (the MDS sees room for one) but refuses the
 * chunk's last write: with the CRCs beside the data, 1 MiB of chunk does not fit in 1 MiB.
 */
class NoSpaceWriteTest {
  private static final int UNIT = 64 << 10;
  private static final int CHUNK = 1 << 20;
  private static final LayoutPolicy LAYOUT = new LayoutPolicy(UNIT, 1, CHUNK, 3);
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  MiniCluster cluster;

  private void start(int servers, IntFunction<String> capacity) throws IOException {
    cluster =
        MiniCluster.builder(dir)
            .dataServers(servers)
            .config(MdsClusterConfigKeys.MIN_FREE.name(), "0")
            .dataServerConfig(i -> Map.of(DataServerConfigKeys.CAPACITY.name(), capacity.apply(i)))
            .build();
    cluster.start();
    awaitSpaceReported(id -> true);
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aFullServerMidWriteIsReplacedAndTheFileIsComplete() throws IOException {
    // Servers 0 and 2 have their file system's room, server 1 exactly one chunk; server 3 is the
    // spare, stopped while the file is created so that the first chain is 0, 1 and 2.
    start(4, i -> i == 1 ? "1MiB" : "0");
    BraidClient client = cluster.newBraidClient("root");
    int full = cluster.dataServer(1).serverId();
    int spare = cluster.dataServer(3).serverId();
    cluster.stopDataServer(3);
    Await.until("data server 3 dead to the MDS", WAIT, () -> !live().contains(spare));

    byte[] data = random(1, 3 * CHUNK + 17);
    try (BraidOutputStream out =
        client.create("/full-midway", CreateOptions.defaults().withLayout(LAYOUT))) {
      cluster.restartDataServer(3);
      awaitSpaceReported(id -> id == spare);
      out.write(data, 0, CHUNK / 2);
      out.hflush(); // server 1 holds acknowledged bytes before it fills up
      out.write(data, CHUNK / 2, data.length - CHUNK / 2);
    }

    assertThat(readAll(client, "/full-midway")).isEqualTo(data);
    List<ChunkLocation> chunks = chunks(client, "/full-midway");
    assertThat(chunks).hasSize(4);
    for (ChunkLocation c : chunks) {
      assertThat(servers(c)).as("chunk %d", c.chunkIndex()).hasSize(3).doesNotContain(full);
    }
    // The chain the file was created with lost server 1 to the spare, the only other server.
    assertThat(servers(chunks.get(0))).contains(spare);
  }

  @Test
  void aWriteFailsWithNoSpaceWhenTheMdsFindsNoRoomAndKeepsWhatWasFlushed() throws IOException {
    // Room for one chunk on each of the three servers, with some to spare but not a second chunk.
    start(3, i -> "2MiB");
    BraidClient client = cluster.newBraidClient("root");
    byte[] data = random(2, 2 * CHUNK);
    BraidOutputStream out =
        client.create("/cluster-full", CreateOptions.defaults().withLayout(LAYOUT));
    out.write(data, 0, CHUNK);
    out.hflush();
    // Once the MDS has heard how full they are, the next chunk has nowhere to go.
    awaitSpaceReported(id -> true, available -> available < CHUNK);

    IOException failure =
        catchThrowableOfType(
            IOException.class,
            () -> {
              out.write(data, CHUNK, CHUNK);
              out.hflush();
            });
    assertNoSpace(failure);
    assertNoSpace(catchThrowableOfType(IOException.class, out::close));

    assertThat(client.stat("/cluster-full").size()).isEqualTo(CHUNK);
    assertThat(readAll(client, "/cluster-full")).isEqualTo(Arrays.copyOf(data, CHUNK));
  }

  @Test
  void aWriteFailsWithNoSpaceWhenEveryServerInTheChainIsFullAndKeepsWhatWasFlushed()
      throws IOException {
    // Each server refuses the chunk's last write; there is no other server to replace them with.
    start(3, i -> "1MiB");
    BraidClient client = cluster.newBraidClient("root");
    byte[] data = random(3, CHUNK);
    BraidOutputStream out =
        client.create("/chain-full", CreateOptions.defaults().withLayout(LAYOUT));
    out.write(data, 0, CHUNK / 2);
    out.hflush();

    IOException failure =
        catchThrowableOfType(
            IOException.class,
            () -> {
              out.write(data, CHUNK / 2, CHUNK / 2);
              out.hflush();
            });
    assertNoSpace(failure);
    assertNoSpace(catchThrowableOfType(IOException.class, out::close));

    assertThat(client.stat("/chain-full").size()).isEqualTo(CHUNK / 2);
    assertThat(readAll(client, "/chain-full")).isEqualTo(Arrays.copyOf(data, CHUNK / 2));
  }

  private static void assertNoSpace(IOException e) {
    assertThat(e).as("the failure").isNotNull();
    assertThat(StatusExceptions.statusOf(e)).as("status of %s", e).isEqualTo(Status.NO_SPACE);
  }

  /** The ids of the data servers the MDS counts as live. */
  private Set<Integer> live() {
    Set<Integer> ids = new HashSet<>();
    for (var s : cluster.mds().namespace().registry().liveServers()) {
      ids.add(s.id());
    }
    return ids;
  }

  /** Waits until the MDS has a heartbeat's report of space from every running server chosen. */
  private void awaitSpaceReported(IntPredicate which) {
    awaitSpaceReported(which, available -> available > 0);
  }

  /**
   * Waits until every running data server chosen by {@code which} is live to the MDS with an
   * available space (as its heartbeat reported it) that {@code ok} accepts.
   */
  private void awaitSpaceReported(IntPredicate which, LongPredicate ok) {
    Await.until(
        "the MDS to have the data servers' space",
        WAIT,
        () -> {
          Set<Integer> expected = new HashSet<>();
          for (var d : cluster.runningDataServers()) {
            if (which.test(d.serverId())) {
              expected.add(d.serverId());
            }
          }
          Set<Integer> reported = new HashSet<>();
          for (var s : cluster.mds().namespace().registry().liveServers()) {
            long available = s.usage().availableBytes();
            if ((available > 0 || s.usage().usedBytes() > 0) && ok.test(available)) {
              reported.add(s.id());
            }
          }
          return reported.containsAll(expected);
        });
  }

  private static List<ChunkLocation> chunks(BraidClient client, String path) throws IOException {
    return client.locations(path, 0, 0).chunkSets().stream()
        .flatMap(s -> s.chunks().stream())
        .toList();
  }

  private static Set<Integer> servers(ChunkLocation c) {
    Set<Integer> ids = new HashSet<>();
    for (ReplicaLocation r : c.replicas()) {
      ids.add(r.serverId());
    }
    return ids;
  }

  private static byte[] readAll(BraidClient client, String path) throws IOException {
    try (InputStream in = client.open(path)) {
      return in.readAllBytes();
    }
  }

  private static byte[] random(long seed, int size) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }
}
