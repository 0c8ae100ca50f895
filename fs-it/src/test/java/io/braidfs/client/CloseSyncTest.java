package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.ReplicaState;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid.client.close.sync}: a durable close forces every replica; a POSIX close ({@code
 * false}, the FUSE mount's) leaves them in the page cache, finalized, until {@link
 * BraidClient#sync} (fsync(2) of the closed file) forces them, with only a READ token; a replica
 * still being written cannot be forced that way.
 */
class CloseSyncTest {
  @TempDir static Path dir;
  static MiniCluster cluster;
  static BraidClient durable;
  static BraidClient posix;

  /** Four chunks of two replicas: 128 KiB units over 2 chunks of 256 KiB. */
  static final CreateOptions LAYOUT =
      CreateOptions.defaults().withLayout(FileChecksumTest.layout(128 << 10, 2, 256 << 10, 2));

  @BeforeAll
  static void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
    durable = cluster.newBraidClient("root");
    posix = cluster.newBraidClient("root", Map.of(ClientConfigKeys.SYNC_ON_CLOSE.name(), "false"));
  }

  @AfterAll
  static void stop() {
    durable.close();
    posix.close();
    cluster.close();
  }

  @Test
  void aDurableCloseForcesEveryReplica() throws IOException {
    byte[] data = write(durable, "/durable", 900_000);
    List<Replica> replicas = replicas(durable, "/durable");
    assertThat(replicas).hasSize(8);
    for (Replica r : replicas) {
      assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
      assertThat(r.syncedLength()).isEqualTo(r.length());
    }
    assertThat(read(durable, "/durable")).isEqualTo(data);
  }

  @Test
  void aPosixCloseLeavesTheForcingToALaterSync() throws IOException {
    byte[] data = write(posix, "/posix", 900_000);
    List<Replica> replicas = replicas(posix, "/posix");
    assertThat(replicas).hasSize(8);
    for (Replica r : replicas) {
      assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
      assertThat(r.syncedLength()).isLessThan(r.length());
    }
    // complete and readable at once, by another client too
    assertThat(read(durable, "/posix")).isEqualTo(data);
    durable.sync("/posix"); // any client may force a closed file
    for (Replica r : replicas) {
      assertThat(r.syncedLength()).isEqualTo(r.length());
    }
    assertThat(read(posix, "/posix")).isEqualTo(data);
  }

  @Test
  void chunksNeverWrittenAreSkipped() throws IOException {
    byte[] data = write(posix, "/small", 1000); // one chunk of a set of two holds it all
    List<Replica> replicas = replicas(posix, "/small");
    assertThat(replicas).hasSize(2);
    posix.sync("/small");
    for (Replica r : replicas) {
      assertThat(r.syncedLength()).isEqualTo(1000);
    }
    assertThat(read(posix, "/small")).isEqualTo(data);
  }

  @Test
  void aFileBeingWrittenCannotBeForcedByAnotherClient() throws IOException {
    try (OutputStream out = posix.create("/open", LAYOUT)) {
      out.write(new byte[300_000]);
      ((BraidOutputStream) out).hflush();
      assertThatThrownBy(() -> durable.sync("/open"))
          .satisfies(
              e ->
                  assertThat(StatusExceptions.statusOf((IOException) e))
                      .isEqualTo(Status.INVALID_TOKEN));
    }
    assertThat(read(durable, "/open")).hasSize(300_000);
  }

  @Test
  void syncOfAMissingFileSaysSo() {
    assertThatThrownBy(() -> posix.sync("/missing"))
        .isInstanceOf(java.io.FileNotFoundException.class)
        .hasMessageContaining("/missing");
  }

  private static byte[] write(BraidClient client, String path, int size) throws IOException {
    byte[] data = new byte[size];
    new Random(size).nextBytes(data);
    try (OutputStream out = client.create(path, LAYOUT)) {
      out.write(data);
    }
    return data;
  }

  private static byte[] read(BraidClient client, String path) throws IOException {
    try (InputStream in = client.open(path)) {
      return in.readAllBytes();
    }
  }

  private static List<Replica> replicas(BraidClient client, String path) throws IOException {
    return cluster.replicasOf(client, path);
  }
}
