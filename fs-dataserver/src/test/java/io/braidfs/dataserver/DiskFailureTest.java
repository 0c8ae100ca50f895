package io.braidfs.dataserver;

import static io.braidfs.dataserver.DataClient.assertFails;
import static io.braidfs.dataserver.DataClient.randomBytes;
import static io.braidfs.dataserver.DataClient.readRequest;
import static io.braidfs.dataserver.DataClient.writeRequest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.token.ClientId;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.DataDirStatus;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.FinalizeChunkRequest;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.ReplicaReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory whose disk fails: emulated with a small tmpfs of the test's own that is
 * remounted read-only under a running server, as the kernel does to a file system after I/O errors
 * (ext4's {@code errors=remount-ro}). The next write there fails with EROFS, the directory's check
 * fails too, and it is taken out of service: its replicas are reported removed and refused with
 * NOT_FOUND (readers go to another replica), heartbeats report it failed with nothing available,
 * new replicas go to the other directory, and the server stops only when its last directory fails.
 * Mounting needs root (CAP_SYS_ADMIN, as in CI); without it the tests are skipped and say so.
 */
class DiskFailureTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final long VERSION = 2;
  private static final long GENERATION = 1;

  @TempDir Path tmp;
  Path mount;
  TokenMint mint = new TokenMint(TokenMint.KEY_ID, 28);
  StandInMds mds;
  DataClient client;

  @BeforeEach
  void mountSmallFileSystem() throws Exception {
    mount = Files.createDirectories(tmp.resolve("disk"));
    Run m = run("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mount.toString());
    Assumptions.assumeTrue(m.code == 0, "cannot mount a tmpfs to fail (needs root): " + m.out);
    mds = StandInMds.start(mint, Duration.ofMillis(50));
    client = new DataClient("test-client", new ClientId(28, 1));
  }

  @AfterEach
  void unmount() throws Exception {
    if (client != null) {
      client.close();
    }
    if (mds != null) {
      mds.close();
    }
    Run u = run("umount", mount.toString());
    assertThat(u.code).as("umount: " + u.out).isZero();
  }

  private record Run(int code, String out) {}

  private static Run run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return new Run(p.waitFor(), out);
  }

  /** What the kernel does to a file system after I/O errors: it becomes read-only. */
  private void remountReadOnly() throws Exception {
    Run r = run("mount", "-o", "remount,ro", mount.toString());
    assertThat(r.code).as("remount read-only: " + r.out).isZero();
  }

  private LoopbackDataServer server(String name, List<Path> dirs) throws IOException {
    return LoopbackDataServer.startRegistered(
        name, mds, dirs, Map.of(DataServerConfigKeys.SCRUB_BANDWIDTH.name(), "0"));
  }

  private ByteString token(long file) {
    return mint.sign(mint.token(client.id(), file, GENERATION));
  }

  private void writeAndFinalize(LoopbackDataServer s, ChunkKey key, byte[] data)
      throws IOException {
    client.write(
        s.address(), writeRequest(key, VERSION, 0, data, token(key.inodeId())).build(), data);
    client.call(
        s.address(),
        RpcMethod.FINALIZE_CHUNK,
        FinalizeChunkRequest.newBuilder()
            .setChunk(key.toProto())
            .setVersion(VERSION)
            .setLength(data.length)
            .setToken(token(key.inodeId()))
            .build());
  }

  @Test
  void aDirectoryTurnedReadOnlyIsTakenOutOfServiceAndTheServerGoesOn() throws Exception {
    Path failing = mount.resolve("a");
    Path healthy = tmp.resolve("b");
    ChunkKey lost = new ChunkKey(2801, 0);
    ChunkKey open = new ChunkKey(2804, 0); // being written when the disk fails
    byte[] data = randomBytes(1, 300_000);
    // First on the failing disk alone, so that the replicas are there.
    try (LoopbackDataServer s = server("ds-disk", List.of(failing))) {
      writeAndFinalize(s, lost, data);
      client.write(s.address(), writeRequest(open, VERSION, 0, data, token(2804)).build(), data);
    }
    try (LoopbackDataServer s = server("ds-disk", List.of(failing, healthy))) {
      int serverId = s.server().serverId();
      remountReadOnly();

      // Appending reopens the finalized replica: its header write meets the read-only disk.
      byte[] more = randomBytes(2, 1000);
      assertThatThrownBy(
              () ->
                  client.write(
                      s.address(),
                      writeRequest(lost, VERSION, data.length, more, token(2801)).build(),
                      more))
          .satisfies(
              e ->
                  assertThat(RemoteErrorInfo.of(e).orElseThrow().getFailedServerId())
                      .isEqualTo(serverId));

      DataDirStatus a = s.store().dirs().get(0);
      assertThat(a.path()).isEqualTo(failing);
      assertThat(a.failed()).isTrue();
      assertThat(a.availableBytes()).isZero();
      assertThat(s.store().dirs().get(1).failed()).isFalse();
      assertThat(s.replica(lost)).isNull();
      assertFails(
          Status.NOT_FOUND,
          () -> client.read(s.address(), readRequest(lost, VERSION, 0, 100, token(2801)).build()));
      StandInMds.await(
          "the lost replica reported removed",
          WAIT,
          () -> mds.removed().stream().map(ReplicaReport::getId).anyMatch(lost.toProto()::equals));
      StandInMds.await(
          "a heartbeat that reports the failed directory",
          WAIT,
          () -> mds.heartbeats.stream().anyMatch(h -> reportsFailed(h, failing)));

      // The writer of the open replica goes on: its next write must not make a new replica with a
      // hole where the lost bytes were.
      assertFails(
          Status.NOT_FOUND,
          () ->
              client.write(
                  s.address(),
                  writeRequest(open, VERSION, data.length, more, token(2804)).build(),
                  more));
      assertThat(s.replica(open)).isNull();

      // The server goes on: a new replica goes to the healthy directory.
      ChunkKey fresh = new ChunkKey(2802, 0);
      writeAndFinalize(s, fresh, data);
      assertThat(s.replica(fresh).dataFile()).startsWith(healthy);
      assertThat(
              client
                  .read(
                      s.address(), readRequest(fresh, VERSION, 0, data.length, token(2802)).build())
                  .bytes())
          .isEqualTo(data);
      assertThat(s.server().whenStopped()).isNotDone();
    }
  }

  private static boolean reportsFailed(HeartbeatRequest h, Path dir) {
    if (h.getFailedDataDirs() != 1) {
      return false;
    }
    for (DataDir d : h.getDataDirsList()) {
      if (d.getPath().equals(dir.toString())) {
        return d.getAvailableBytes() == 0;
      }
    }
    return false;
  }

  @Test
  void theServerStopsWhenItsLastDirectoryFails() throws Exception {
    ChunkKey key = new ChunkKey(2803, 0);
    try (LoopbackDataServer s = server("ds-last", List.of(mount.resolve("only")))) {
      writeAndFinalize(s, key, randomBytes(3, 1000));
      remountReadOnly();
      byte[] more = randomBytes(4, 10);
      assertThatThrownBy(
          () ->
              client.write(
                  s.address(), writeRequest(key, VERSION, 1000, more, token(2803)).build(), more));
      s.server().whenStopped().get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      assertThat(mds.removed().stream().map(ReplicaReport::getId)).contains(key.toProto());
    }
  }
}
