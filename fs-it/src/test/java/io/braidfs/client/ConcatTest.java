package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.testing.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BraidClient#concat} end to end on a real MiniCluster: files of unaligned lengths and of
 * different layouts are joined byte for byte, and every refused concat (checked by the MDS first,
 * or failed midway through the copy) leaves the namespace, the contents and the leases as they
 * were.
 */
class ConcatTest {
  /** 64 KiB stripe units over two chunks of 256 KiB: a chunk set holds 512 KiB. */
  static final int UNIT = 64 << 10;

  static final LayoutPolicy SMALL =
      LayoutPolicy.inherit()
          .withStripeUnit(UNIT)
          .withStripeWidth(2)
          .withChunkSize(256 << 10)
          .withReplication(2);

  static final int SET = 2 * (256 << 10);

  static final LayoutPolicy NARROW =
      LayoutPolicy.inherit()
          .withStripeUnit(32 << 10)
          .withStripeWidth(1)
          .withChunkSize(128 << 10)
          .withReplication(1);

  static final LayoutPolicy WIDE =
      LayoutPolicy.inherit()
          .withStripeUnit(16 << 10)
          .withStripeWidth(3)
          .withChunkSize(64 << 10)
          .withReplication(3);

  @TempDir Path dir;
  MiniCluster cluster;
  BraidClient client;

  @BeforeEach
  void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
    client = cluster.newBraidClient("root", Map.of(ClientConfigKeys.DATA_TIMEOUT.name(), "3s"));
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  byte[] write(String path, LayoutPolicy layout, int length, long seed) throws IOException {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    try (OutputStream out =
        client.create(path, CreateOptions.defaults().withLayout(layout).withOverwrite(true))) {
      out.write(data);
    }
    return data;
  }

  byte[] read(String path) throws IOException {
    try (InputStream in = client.open(path)) {
      return in.readAllBytes();
    }
  }

  static byte[] joined(List<byte[]> parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    parts.forEach(out::writeBytes);
    return out.toByteArray();
  }

  /** Writes the target and sources, concatenates, and checks length, contents and the sources. */
  void concatAndCheck(
      int targetLength, LayoutPolicy targetLayout, int[] lengths, LayoutPolicy[] layouts)
      throws IOException {
    List<byte[]> parts = new ArrayList<>();
    parts.add(write("/t/target", targetLayout, targetLength, 1));
    List<String> sources = new ArrayList<>();
    for (int i = 0; i < lengths.length; i++) {
      String p = "/s/part" + i;
      parts.add(write(p, layouts[i % layouts.length], lengths[i], 100 + i));
      sources.add(p);
    }
    FileAttributes before = client.lstat("/t/target");
    byte[] expected = joined(parts);

    FileAttributes after = client.concat("/t/target", sources);

    assertThat(after.inodeId()).isEqualTo(before.inodeId());
    assertThat(after.size()).isEqualTo(expected.length);
    assertThat(after.mtimeNanos()).isGreaterThanOrEqualTo(before.mtimeNanos());
    assertThat(client.lstat("/t/target").size()).isEqualTo(expected.length);
    assertThat(read("/t/target")).isEqualTo(expected);
    for (String s : sources) {
      assertThat(client.exists(s)).as(s + " removed").isFalse();
    }
    assertThat(client.list("/s")).isEmpty();
    // The lease is released: the target can be appended to, and the bytes land at its new end.
    try (OutputStream out = client.append("/t/target")) {
      out.write(new byte[] {7, 8, 9});
    }
    byte[] all = read("/t/target");
    assertThat(all).hasSize(expected.length + 3);
    assertThat(all[expected.length + 2]).isEqualTo((byte) 9);
  }

  @Test
  void unalignedLengthsJoinByteForByte() throws IOException {
    concatAndCheck(
        1024,
        SMALL,
        new int[] {0, 1, 1024, UNIT - 1, UNIT, UNIT + 1, 2 * SET + 17},
        new LayoutPolicy[] {SMALL});
  }

  @Test
  void anEmptyTargetAndEmptySources() throws IOException {
    concatAndCheck(0, SMALL, new int[] {0, 0}, new LayoutPolicy[] {SMALL});
  }

  @Test
  void aTargetOfSeveralChunkSetsTakesSourcesOfOtherLayouts() throws IOException {
    concatAndCheck(
        SET + UNIT + 3,
        SMALL,
        new int[] {1, 3 * (128 << 10) + 5, UNIT - 1, 200_001, 1024},
        new LayoutPolicy[] {NARROW, WIDE, SMALL});
  }

  @Test
  void aTargetEndingOnAChunkSetBoundary() throws IOException {
    concatAndCheck(SET, SMALL, new int[] {SET, 1}, new LayoutPolicy[] {SMALL, WIDE});
  }

  @Test
  void aHardLinkedSourceKeepsItsOtherName() throws IOException {
    write("/t/target", SMALL, 10, 1);
    byte[] src = write("/s/a", NARROW, 5000, 2);
    client.link("/s/a", "/keep");
    client.concat("/t/target", List.of("/s/a"));
    assertThat(client.exists("/s/a")).isFalse();
    assertThat(client.lstat("/keep").nlink()).isEqualTo(1);
    assertThat(read("/keep")).isEqualTo(src);
    assertThat(client.lstat("/t/target").size()).isEqualTo(5010);
  }

  // ---- refusals -------------------------------------------------------------------------------

  /** Everything a concat may change, atimes aside: entries, attributes and contents. */
  Map<String, String> snapshot() throws IOException {
    Map<String, String> out = new TreeMap<>();
    snapshot("/", out);
    return out;
  }

  private void snapshot(String path, Map<String, String> out) throws IOException {
    for (DirectoryEntry e : client.list(path)) {
      String p = (path.equals("/") ? "" : path) + "/" + e.name();
      FileAttributes a = client.lstat(p);
      String line =
          a.type()
              + " ino="
              + a.inodeId()
              + " size="
              + a.size()
              + " mode="
              + Integer.toOctalString(a.mode())
              + " nlink="
              + a.nlink()
              + " mtime="
              + a.mtimeNanos()
              + " ctime="
              + a.ctimeNanos()
              + " gen="
              + a.generation();
      if (a.isFile()) {
        line += " data=" + java.util.Arrays.hashCode(read(p));
      }
      out.put(p, line);
      if (a.isDirectory()) {
        snapshot(p, out);
      }
    }
  }

  void refused(Status expected, String target, List<String> sources) throws IOException {
    refused(client, expected, target, sources);
  }

  void refused(BraidClient c, Status expected, String target, List<String> sources)
      throws IOException {
    Map<String, String> before = snapshot();
    assertThatThrownBy(() -> c.concat(target, sources))
        .as("concat %s %s", target, sources)
        .isInstanceOf(IOException.class)
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(expected));
    assertThat(snapshot()).as("namespace after concat %s %s", target, sources).isEqualTo(before);
  }

  @Test
  void refusedConcatsChangeNothing() throws IOException {
    write("/t/target", SMALL, 1500, 1);
    write("/s/a", SMALL, 700, 2);
    write("/s/b", NARROW, 1, 3);
    client.mkdir("/s/dir", 0755);
    client.symlink("/s/a", "/s/link", false);

    refused(Status.NOT_FOUND, "/t/missing", List.of("/s/a"));
    refused(Status.NOT_FOUND, "/t/target", List.of("/s/a", "/s/missing"));
    refused(Status.NOT_FOUND, "/t/target", List.of("/nowhere/a"));
    refused(Status.IS_DIRECTORY, "/t", List.of("/s/a"));
    refused(Status.IS_DIRECTORY, "/t/target", List.of("/s/a", "/s/dir"));
    refused(Status.IS_DIRECTORY, "/t/target", List.of("/"));
    refused(Status.INVALID_ARGUMENT, "/t/target", List.of());
    refused(Status.INVALID_ARGUMENT, "/t/target", List.of("/s/a", "/t/target"));
    refused(Status.INVALID_ARGUMENT, "/t/target", List.of("/s/a", "/s/b", "/s/a"));
    refused(Status.INVALID_ARGUMENT, "/t/target", List.of("/s/link"));
  }

  @Test
  void aFileBeingWrittenIsRefused() throws IOException {
    write("/t/target", SMALL, 1500, 1);
    write("/s/a", SMALL, 700, 2);
    BraidClient other = cluster.newBraidClient("root");
    try (OutputStream open = other.create("/s/open", CreateOptions.defaults().withLayout(SMALL))) {
      open.write(new byte[100]);
      refused(Status.LEASE_CONFLICT, "/t/target", List.of("/s/a", "/s/open"));
    }
    try (OutputStream open = other.append("/t/target")) {
      open.write(new byte[100]);
      refused(Status.LEASE_CONFLICT, "/t/target", List.of("/s/a"));
      // The writer's own client may not concat onto it either: the target must be closed.
      refused(other, Status.LEASE_CONFLICT, "/t/target", List.of("/s/a"));
    }
  }

  @Test
  void permissionsAreThoseOfAppendAndUnlink() throws IOException {
    client.mkdir("/open", 0755);
    client.setPermission("/open", 0777); // mkdir's mode is masked by the umask
    client.mkdir("/locked", 0755);
    write("/open/target", SMALL, 10, 1);
    write("/open/a", SMALL, 10, 2);
    write("/locked/b", SMALL, 10, 3);
    client.setPermission("/open/target", 0666);
    client.setPermission("/open/a", 0666);
    client.setPermission("/locked/b", 0666);
    BraidClient alice = cluster.newBraidClient("alice");
    // /locked is not writable by alice: its file cannot be removed.
    refused(alice, Status.PERMISSION_DENIED, "/open/target", List.of("/open/a", "/locked/b"));
    client.setPermission("/open/target", 0644);
    refused(alice, Status.PERMISSION_DENIED, "/open/target", List.of("/open/a"));
    client.setPermission("/open/target", 0666);
    client.setPermission("/open/a", 0222);
    refused(alice, Status.PERMISSION_DENIED, "/open/target", List.of("/open/a"));
    client.setPermission("/open/a", 0644);
    assertThat(alice.concat("/open/target", List.of("/open/a")).size()).isEqualTo(20);
  }

  @Test
  void aCopyThatFailsMidwayLeavesTheTargetAsItWas() throws IOException {
    byte[] target = write("/t/target", SMALL, 3000, 1);
    byte[] a = write("/s/a", WIDE, 300_000, 2);
    // /s/b lives on one data server only; stopping it fails the copy after /s/a is appended.
    byte[] b = write("/s/b", NARROW, 5000, 3);
    ReplicaLocation holder =
        client.locations("/s/b", 0, 0).chunkSets().get(0).chunks().get(0).replicas().get(0);
    int index = cluster.indexOf(holder.serverId());
    Map<String, String> before = snapshot();
    cluster.stopDataServer(index);

    assertThatThrownBy(() -> client.concat("/t/target", List.of("/s/a", "/s/b")))
        .isInstanceOf(IOException.class);

    cluster.restartDataServer(index);
    assertThat(snapshot()).isEqualTo(before);
    assertThat(read("/t/target")).isEqualTo(target);
    assertThat(read("/s/a")).isEqualTo(a);
    assertThat(read("/s/b")).isEqualTo(b);
    // The target was committed back (lease released): another client can write it at once.
    BraidClient other = cluster.newBraidClient("root");
    try (OutputStream out = other.append("/t/target")) {
      out.write(1);
    }
    assertThat(client.concat("/t/target", List.of("/s/a", "/s/b")).size())
        .isEqualTo(3001 + 300_000 + 5000);
    byte[] all = read("/t/target");
    assertThat(all).hasSize(3001 + 300_000 + 5000);
    assertThat(java.util.Arrays.copyOfRange(all, 3001, 303_001)).isEqualTo(a);
    assertThat(java.util.Arrays.copyOfRange(all, 303_001, all.length)).isEqualTo(b);
  }
}
