package io.braidfs.dataserver.store;

import static io.braidfs.dataserver.store.StoreFixtures.assertConsistent;
import static io.braidfs.dataserver.store.StoreFixtures.randomBytes;
import static io.braidfs.dataserver.store.StoreFixtures.readAll;
import static io.braidfs.dataserver.store.StoreFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write the OS refuses with ENOSPC although the store's cached free space let it through. Needs a
 * small file system of its own: the test mounts a 2 MiB tmpfs (root with CAP_SYS_ADMIN, as in CI)
 * or uses the directory {@code -Dbraid.store.smallfs} names; without either it is skipped and says
 * why.
 */
class DiskFullTest {
  @TempDir Path tmp;

  @Test
  void aWriteTheDiskRefusesIsUndone() throws Exception {
    String given = System.getProperty("braid.store.smallfs");
    if (given != null && !given.isBlank()) {
      run(Path.of(given));
      return;
    }
    Path mount = Files.createDirectories(tmp.resolve("smallfs"));
    Process p =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    Assumptions.assumeTrue(
        p.waitFor() == 0, "cannot mount a small tmpfs to fill (needs root): " + out);
    try {
      run(mount);
    } finally {
      new ProcessBuilder("umount", mount.toString()).inheritIO().start().waitFor();
    }
  }

  private void run(Path fs) throws IOException {
    Path dir = Files.createTempDirectory(fs, "store");
    Random random = new Random(3);
    byte[] head = randomBytes(random, 1000);
    try (ChunkStore store = ChunkStore.open(new StoreSettings(List.of(dir), 0, 0))) {
      Replica r = store.create(new ChunkKey(1, 0), 1, 1);
      write(r, 0, head);
      r.finalizeAt(1, head.length);
      // Fill the file system behind the store's back, within the second it caches free space.
      long free = Files.getFileStore(fs).getUsableSpace();
      Path filler = fs.resolve("filler");
      Files.write(filler, new byte[(int) Math.max(0, free - 300 * 1024)]);
      try {
        byte[] big = randomBytes(random, 1024 * 1024);
        Throwable refused = catchThrowable(() -> write(r, 500, big));
        assertThat(StatusExceptions.statusOf(refused)).isEqualTo(Status.NO_SPACE);
        assertThat(refused.getCause()).as("the OS refused, not the store's check").isNotNull();
        assertThat(r.length()).isEqualTo(head.length);
        assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
        assertConsistent(r, dir);
        byte[] now = readAll(r);
        // The overwritten part may have landed; the bytes before the write have not changed.
        assertThat(Arrays.copyOf(now, 500)).isEqualTo(Arrays.copyOf(head, 500));
        // The refusal refreshed the free space: the next write is refused before any I/O.
        assertThat(store.dirs().get(0).availableBytes()).isLessThan(big.length);
      } finally {
        Files.delete(filler);
      }
    } finally {
      deleteTree(dir);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(p);
      }
    }
  }
}
