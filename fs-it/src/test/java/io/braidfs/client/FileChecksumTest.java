package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.IsDirectoryException;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.testing.MiniCluster;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link BraidClient#checksum} on a real MiniCluster (MDS and three data servers over loopback):
 * the composed CRC equals {@link CRC32C} of the content for awkward sizes in every width and
 * replication, whatever the layout; holes count as zeros; a dead replica is skipped; and bad paths
 * fail with the client's usual exceptions.
 */
class FileChecksumTest {
  static final int UNIT = 128 << 10;
  static final int CHUNK = 512 << 10;

  @TempDir static Path dir;
  static MiniCluster cluster;
  static BraidClient client;
  static int files;

  @BeforeAll
  static void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
    client = cluster.newBraidClient("root");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static LayoutPolicy layout(int unit, int width, int chunk, int replication) {
    return LayoutPolicy.inherit()
        .withStripeUnit(unit)
        .withStripeWidth(width)
        .withChunkSize(chunk)
        .withReplication(replication);
  }

  static Stream<Arguments> layouts() {
    List<Arguments> out = new ArrayList<>();
    for (int width : new int[] {1, 2, 4}) {
      for (int replication : new int[] {1, 2}) {
        out.add(Arguments.of(width, replication));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "width {0}, replication {1}")
  @MethodSource("layouts")
  void checksumIsCrc32cOfTheContent(int width, int replication) throws IOException {
    LayoutPolicy spec = layout(UNIT, width, CHUNK, replication);
    long set = (long) CHUNK * width;
    long[] sizes = {
      0, 1, (64 << 10) - 1, UNIT - 1, UNIT + 1, CHUNK - 1, CHUNK + 1, set + 1, 3 * set + 17
    };
    for (long size : sizes) {
      byte[] data = random(size * 31 + width * 7 + replication, (int) size);
      String path = write(spec, data);
      assertThat(client.checksum(path))
          .as("%d bytes", size)
          .isEqualTo(new FileChecksum(size, crc(data)));
    }
  }

  /** The point of the composite CRC: DistCp between layouts compares checksums. */
  @Test
  void equalBytesInDifferentLayoutsHaveEqualChecksums() throws IOException {
    byte[] data = random(99, 3 * CHUNK + 4321);
    LayoutPolicy[] specs = {
      layout(UNIT, 1, CHUNK, 1),
      layout(64 << 10, 1, 256 << 10, 2),
      layout(UNIT, 4, CHUNK, 2),
      layout(64 << 10, 3, 1 << 20, 1),
      layout(1 << 20, 2, 4 << 20, 2),
      // Stripe units under 64 KiB: the data servers cut their block CRCs by reading the blocks.
      layout(4 << 10, 2, 20 << 10, 1),
      layout(16 << 10, 3, 48 << 10, 2),
      layout(4 << 10, 1, 12 << 10, 1),
      LayoutPolicy.inherit(),
    };
    FileChecksum expected = new FileChecksum(data.length, crc(data));
    for (LayoutPolicy spec : specs) {
      String path = write(spec, data);
      assertThat(client.checksum(path)).as("%s", spec).isEqualTo(expected);
    }
  }

  @Test
  void emptyFileChecksumsToZero() throws IOException {
    String path = write(LayoutPolicy.inherit(), new byte[0]);
    assertThat(client.checksum(path)).isEqualTo(new FileChecksum(0, 0));
  }

  /**
   * Positional writes leave holes of every kind: inside a chunk, whole chunk sets never written,
   * the rest of a chunk set, and a tail made by extending the length. All read back as zeros and
   * the checksum says so.
   */
  @ParameterizedTest(name = "width {0}, replication {1}")
  @MethodSource("layouts")
  void holesCountAsZeros(int width, int replication) throws IOException {
    String path = write(layout(UNIT, width, CHUNK, replication), new byte[0]);
    long set = (long) CHUNK * width;
    long[] at = {10, UNIT + 5, 3 * set + UNIT / 2, 3 * set + 2 * UNIT + 7};
    byte[] model = new byte[(int) (3 * set + 3 * UNIT)];
    try (BraidOutputStream out = client.openForWrite(path, false)) {
      for (int i = 0; i < at.length; i++) {
        byte[] piece = random(at[i], 1000 + i * 5000);
        out.write(at[i], ByteBuffer.wrap(piece));
        System.arraycopy(piece, 0, model, (int) at[i], piece.length);
      }
    }
    long written = at[3] + 1000 + 3 * 5000;
    model = Arrays.copyOf(model, (int) written);
    // The holes are real: chunk sets 1 and 2 were never allocated.
    assertThat(client.locations(path, 0, 0).chunkSets())
        .extracting(ChunkSetLocation::setIndex)
        .containsExactly(0L, 3L);
    assertThat(readAll(path)).isEqualTo(model);
    assertThat(client.checksum(path)).isEqualTo(new FileChecksum(written, crc(model)));

    client.truncate(path, written + 2 * set + 3); // a tail no chunk holds
    model = Arrays.copyOf(model, (int) (written + 2 * set + 3));
    assertThat(readAll(path)).isEqualTo(model);
    assertThat(client.checksum(path)).isEqualTo(new FileChecksum(model.length, crc(model)));
  }

  /** Over 1024 chunk sets: more than an open answer or one page holds, so many pages are asked. */
  @Test
  void manyChunkSetsAreLocatedPageByPage() throws IOException {
    byte[] data = random(5, 1030 * (4 << 10) + 17);
    String path = write(layout(4 << 10, 1, 4 << 10, 1), data);
    assertThat(client.checksum(path)).isEqualTo(new FileChecksum(data.length, crc(data)));
  }

  /** A file being written is checksummed up to the length its writer committed. */
  @Test
  void aFileBeingWrittenIsChecksummedToItsCommittedLength() throws IOException {
    byte[] data = random(8, 2 * CHUNK + 99);
    try (BraidOutputStream out =
        client.create("/ck/open", CreateOptions.defaults().withLayout(layout(UNIT, 2, CHUNK, 2)))) {
      out.write(data, 0, CHUNK + 5);
      out.hflush();
      out.write(data, CHUNK + 5, data.length - CHUNK - 5); // not flushed: the MDS does not count it
      long committed = client.lstat("/ck/open").size();
      assertThat(committed).isBetween((long) CHUNK + 5, (long) data.length);
      assertThat(client.checksum("/ck/open"))
          .isEqualTo(new FileChecksum(committed, crc(Arrays.copyOf(data, (int) committed))));
    }
    assertThat(client.checksum("/ck/open")).isEqualTo(new FileChecksum(data.length, crc(data)));
  }

  @Test
  void aMissingPathIsNotFound() {
    assertThatThrownBy(() -> client.checksum("/ck/no/such/file"))
        .isInstanceOf(FileNotFoundException.class)
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.NOT_FOUND))
        .hasMessageContaining("/ck/no/such/file");
  }

  @Test
  void aDirectoryIsRefused() throws IOException {
    client.mkdirs("/ck/dir", 0755);
    assertThatThrownBy(() -> client.checksum("/ck/dir"))
        .isInstanceOf(IsDirectoryException.class)
        .satisfies(e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.IS_DIRECTORY));
  }

  @Test
  void aSymlinkIsFollowed() throws IOException {
    byte[] data = random(3, 1000);
    String path = write(LayoutPolicy.inherit(), data);
    client.symlink(path, "/ck/link", true);
    assertThat(client.checksum("/ck/link")).isEqualTo(new FileChecksum(1000, crc(data)));
  }

  /**
   * With replication 2 a stopped data server leaves one replica of each chunk: the checksum is
   * still right. On a cluster of its own, as a server stays stopped.
   */
  @Test
  void aDeadReplicaIsSkipped(@TempDir Path own) throws IOException {
    try (MiniCluster c = MiniCluster.builder(own).dataServers(3).build()) {
      c.start();
      BraidClient b = c.newBraidClient("root");
      byte[] data = random(11, 5 * CHUNK + 3);
      try (OutputStream out =
          b.create("/dead", CreateOptions.defaults().withLayout(layout(UNIT, 2, CHUNK, 2)))) {
        out.write(data);
      }
      // The server holding the first replica of the first chunk: the one every request tries first.
      ChunkSetLocation first = b.locations("/dead", 0, 0).chunkSets().get(0);
      ChunkLocation chunk = first.chunks().get(0);
      ReplicaLocation nearest = chunk.replicas().get(0);
      c.stopDataServer(c.indexOf(nearest.serverId()));
      assertThat(b.checksum("/dead")).isEqualTo(new FileChecksum(data.length, crc(data)));
      // Again, now that the client knows the server failed and tries the other replica first.
      assertThat(b.checksum("/dead")).isEqualTo(new FileChecksum(data.length, crc(data)));
    }
  }

  static String write(LayoutPolicy spec, byte[] data) throws IOException {
    String path = "/ck/f" + (files++);
    try (OutputStream out = client.create(path, CreateOptions.defaults().withLayout(spec))) {
      // Odd write sizes, so that nothing lines up with units or blocks by accident.
      for (int at = 0; at < data.length; ) {
        int n = Math.min(data.length - at, 77_777);
        out.write(data, at, n);
        at += n;
      }
    }
    return path;
  }

  static byte[] readAll(String path) throws IOException {
    try (InputStream in = client.open(path)) {
      return in.readAllBytes();
    }
  }

  static byte[] random(long seed, int n) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static int crc(byte[] data) {
    CRC32C c = new CRC32C();
    c.update(data);
    return (int) c.getValue();
  }
}
