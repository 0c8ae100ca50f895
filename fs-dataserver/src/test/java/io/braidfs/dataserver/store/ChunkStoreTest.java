package io.braidfs.dataserver.store;

import static io.braidfs.dataserver.store.StoreFixtures.BLOCK;
import static io.braidfs.dataserver.store.StoreFixtures.assertConsistent;
import static io.braidfs.dataserver.store.StoreFixtures.randomBytes;
import static io.braidfs.dataserver.store.StoreFixtures.readAll;
import static io.braidfs.dataserver.store.StoreFixtures.settings;
import static io.braidfs.dataserver.store.StoreFixtures.statusOf;
import static io.braidfs.dataserver.store.StoreFixtures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkStoreTest {
  @TempDir Path root;
  private final Random random = new Random(99);

  @Test
  void formatsAnEmptyDirectory() throws IOException {
    Path dir = root.resolve("missing/d0");
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      assertThat(dir.resolve("braid-storage.properties")).exists();
      assertThat(dir.resolve("chunks")).isDirectory();
      assertThat(store.serverId()).isZero();
      assertThat(store.clusterId()).isEmpty();
      assertThat(store.maxEpochSeen()).isZero();
      assertThat(store.replicas()).isEmpty();
      DataDirStatus status = store.dirs().get(0);
      assertThat(status.path()).isEqualTo(dir);
      assertThat(status.storageId()).isNotEmpty();
      assertThat(status.failed()).isFalse();
      assertThat(status.capacityBytes()).isPositive();
      assertThat(status.usedBytes()).isZero();
      assertThat(status.availableBytes()).isPositive();
      Properties p = properties(dir);
      assertThat(p.getProperty("layout-version")).isEqualTo("1");
      assertThat(p.getProperty("storage-id")).isEqualTo(status.storageId());
    }
  }

  @Test
  void refusesANonEmptyDirectoryThatIsNotADataDir() throws IOException {
    Files.writeString(root.resolve("something"), "x");
    assertThatThrownBy(() -> ChunkStore.open(settings(root)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not a data dir");
  }

  @Test
  void restartFindsEveryReplicaAsItWas() throws IOException {
    Path dir = root.resolve("d");
    Map<ChunkKey, byte[]> contents = new HashMap<>();
    String storageId;
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      storageId = store.dirs().get(0).storageId();
      for (int i = 0; i < 6; i++) {
        ChunkKey key = new ChunkKey(1000 + i * 77L, i == 5 ? -1 : i);
        Replica r = store.create(key, 10 + i, 20 + i);
        byte[] bytes = randomBytes(random, i * 40_000 + 1);
        write(r, 0, bytes);
        contents.put(key, bytes);
        r.raiseGeneration(30 + i);
        if (i % 3 == 1) {
          r.finalizeAt(11 + i, bytes.length);
        } else if (i % 3 == 2) {
          r.markCorrupt();
          r.sync();
        } else {
          r.sync();
        }
      }
    }
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      assertThat(store.dirs().get(0).storageId()).isEqualTo(storageId);
      assertThat(store.replicas()).hasSize(6);
      long used = 0;
      for (int i = 0; i < 6; i++) {
        ChunkKey key = new ChunkKey(1000 + i * 77L, i == 5 ? -1 : i);
        Replica r = Objects.requireNonNull(store.get(key));
        byte[] bytes = contents.get(key);
        assertThat(r.length()).isEqualTo(bytes.length);
        assertThat(r.syncedLength()).isEqualTo(bytes.length);
        assertThat(r.generation()).isEqualTo(30 + i);
        used += bytes.length + 32 + 4 * ((bytes.length + BLOCK - 1) / BLOCK);
        if (i % 3 == 1) {
          assertThat(r.state()).isEqualTo(ReplicaState.REPLICA_STATE_FINALIZED);
          assertThat(r.version()).isEqualTo(11 + i);
        } else {
          assertThat(r.version()).isEqualTo(10 + i);
          assertThat(r.state())
              .isEqualTo(
                  i % 3 == 2
                      ? ReplicaState.REPLICA_STATE_CORRUPT
                      : ReplicaState.REPLICA_STATE_WRITING);
        }
        if (r.state() != ReplicaState.REPLICA_STATE_CORRUPT) {
          assertThat(readAll(r)).isEqualTo(bytes);
        }
        assertConsistent(r, dir);
      }
      assertThat(store.dirs().get(0).usedBytes()).isEqualTo(used);
    }
  }

  @Test
  void restartRecomputesCrcsTheMetaFileMissed() throws IOException {
    Path dir = root.resolve("d");
    ChunkKey key = new ChunkKey(5, 0);
    byte[] bytes = randomBytes(random, 3 * BLOCK + 10);
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      Replica r = store.create(key, 1, 1);
      write(r, 0, bytes);
      r.finalizeAt(1, bytes.length);
    }
    // As if the process died between the data and the meta write of the last two blocks.
    Path meta = StoreFixtures.metaFile(dir, key);
    byte[] metaBytes = Files.readAllBytes(meta);
    Files.write(meta, Arrays.copyOf(metaBytes, 32 + 4 * 2));
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      Replica r = Objects.requireNonNull(store.get(key));
      assertConsistent(r, dir);
    }
  }

  @Test
  void tornCreationsAndTemporaryFilesAreCleanedUpAtOpen() throws IOException {
    Path dir = root.resolve("d");
    ChunkKey kept = new ChunkKey(1, 0);
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      write(store.create(kept, 1, 1), 0, new byte[10]);
    }
    ChunkKey dataOnly = new ChunkKey(2, 0);
    ChunkKey metaOnly = new ChunkKey(3, 0);
    ChunkKey badMagic = new ChunkKey(4, 0);
    Path sub = StoreFixtures.dataFile(dir, dataOnly).getParent();
    Files.createDirectories(sub);
    Files.write(StoreFixtures.dataFile(dir, dataOnly), new byte[100]);
    Files.createDirectories(StoreFixtures.metaFile(dir, metaOnly).getParent());
    Files.write(StoreFixtures.metaFile(dir, metaOnly), header());
    Files.createDirectories(StoreFixtures.dataFile(dir, badMagic).getParent());
    Files.write(StoreFixtures.dataFile(dir, badMagic), new byte[5]);
    Files.write(StoreFixtures.metaFile(dir, badMagic), new byte[7]);
    Path tmp = StoreFixtures.dataFile(dir, kept).resolveSibling("x.data.tmp");
    Files.write(tmp, new byte[1]);
    Files.write(dir.resolve("braid-storage.properties.tmp"), new byte[1]);
    Path stranger = sub.resolve("README");
    Files.writeString(stranger, "not ours");
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      assertThat(store.replicas()).extracting(Replica::key).containsExactly(kept);
      for (ChunkKey key : List.of(dataOnly, metaOnly, badMagic)) {
        assertThat(StoreFixtures.dataFile(dir, key)).doesNotExist();
        assertThat(StoreFixtures.metaFile(dir, key)).doesNotExist();
      }
      assertThat(tmp).doesNotExist();
      assertThat(dir.resolve("braid-storage.properties.tmp")).doesNotExist();
      assertThat(stranger).exists();
    }
  }

  @Test
  void identityIsSavedAndLoaded() throws IOException {
    Path d0 = root.resolve("d0");
    Path d1 = root.resolve("d1");
    try (ChunkStore store = ChunkStore.open(settings(d0, d1))) {
      store.saveIdentity(17, "cluster-a");
      assertThat(store.serverId()).isEqualTo(17);
      assertThat(store.clusterId()).isEqualTo("cluster-a");
      store.saveIdentity(17, "cluster-a"); // the same again is fine
      assertThatThrownBy(() -> store.saveIdentity(18, "cluster-a"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("17");
      assertThatThrownBy(() -> store.saveIdentity(17, "cluster-b"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("cluster-a");
    }
    assertThat(properties(d1).getProperty("server-id")).isEqualTo("17");
    // A new, empty directory added later takes the identity of the others.
    Path d2 = root.resolve("d2");
    try (ChunkStore store = ChunkStore.open(settings(d0, d1, d2))) {
      assertThat(store.serverId()).isEqualTo(17);
      assertThat(store.clusterId()).isEqualTo("cluster-a");
    }
    assertThat(properties(d2).getProperty("cluster-id")).isEqualTo("cluster-a");
    assertThat(properties(d2).getProperty("storage-id"))
        .isNotEqualTo(properties(d0).getProperty("storage-id"));
  }

  @Test
  void directoriesOfDifferentServersAreRefused() throws IOException {
    Path d0 = root.resolve("d0");
    Path d1 = root.resolve("d1");
    try (ChunkStore store = ChunkStore.open(settings(d0))) {
      store.saveIdentity(1, "c");
    }
    try (ChunkStore store = ChunkStore.open(settings(d1))) {
      store.saveIdentity(2, "c");
    }
    assertThatThrownBy(() -> ChunkStore.open(settings(d0, d1)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(d0.toString())
        .hasMessageContaining(d1.toString());
    Path d2 = root.resolve("d2");
    try (ChunkStore store = ChunkStore.open(settings(d2))) {
      store.saveIdentity(1, "other");
    }
    assertThatThrownBy(() -> ChunkStore.open(settings(d0, d2)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cluster id");
  }

  @Test
  void raiseEpochPersistsOnlyHigherValues() throws IOException {
    Path d0 = root.resolve("d0");
    Path d1 = root.resolve("d1");
    try (ChunkStore store = ChunkStore.open(settings(d0, d1))) {
      store.raiseEpoch(5);
      assertThat(store.maxEpochSeen()).isEqualTo(5);
      store.raiseEpoch(3);
      assertThat(store.maxEpochSeen()).isEqualTo(5);
      assertThat(properties(d1).getProperty("max-epoch")).isEqualTo("5");
    }
    try (ChunkStore store = ChunkStore.open(settings(d0, d1))) {
      assertThat(store.maxEpochSeen()).isEqualTo(5);
      store.raiseEpoch(8);
    }
    try (ChunkStore store = ChunkStore.open(settings(d1))) {
      assertThat(store.maxEpochSeen()).isEqualTo(8);
    }
  }

  @Test
  void newReplicasGoToTheDirectoryWithMoreSpace() throws IOException {
    Path d0 = root.resolve("d0");
    Path d1 = root.resolve("d1");
    StoreSettings settings = new StoreSettings(List.of(d0, d1), 0, 10L * 1024 * 1024);
    try (ChunkStore store = ChunkStore.open(settings)) {
      Replica a = store.create(new ChunkKey(1, 0), 1, 1);
      write(a, 0, new byte[1024 * 1024]);
      Replica b = store.create(new ChunkKey(2, 0), 1, 1);
      assertThat(a.dir().path()).isNotEqualTo(b.dir().path());
      write(b, 0, new byte[2 * 1024 * 1024]);
      Replica c = store.create(new ChunkKey(3, 0), 1, 1);
      assertThat(c.dir().path()).isEqualTo(a.dir().path());
      List<DataDirStatus> dirs = store.dirs();
      long total = dirs.get(0).usedBytes() + dirs.get(1).usedBytes();
      assertThat(total).isEqualTo(3 * 1024 * 1024 + 3 * 32 + 4 * (16 + 32));
      for (DataDirStatus s : dirs) {
        assertThat(s.capacityBytes()).isEqualTo(10L * 1024 * 1024);
        assertThat(s.availableBytes()).isEqualTo(s.capacityBytes() - s.usedBytes());
      }
    }
  }

  @Test
  void writesBeyondTheCapacityFailWithNoSpaceAndWriteNothing() throws IOException {
    Path dir = root.resolve("d");
    StoreSettings settings = new StoreSettings(List.of(dir), 1000, 1024 * 1024 + 1000);
    try (ChunkStore store = ChunkStore.open(settings)) {
      assertThat(store.dirs().get(0).capacityBytes()).isEqualTo(1024 * 1024);
      Replica r = store.create(new ChunkKey(1, 0), 1, 1);
      byte[] first = randomBytes(random, 512 * 1024);
      write(r, 0, first);
      assertThat(statusOf(() -> write(r, first.length, new byte[600 * 1024])))
          .isEqualTo(Status.NO_SPACE);
      assertThat(statusOf(() -> write(r, 10L * 1024 * 1024, new byte[1])))
          .isEqualTo(Status.NO_SPACE);
      assertThat(r.length()).isEqualTo(first.length);
      assertThat(Files.size(StoreFixtures.dataFile(dir, r.key()))).isEqualTo(first.length);
      assertThat(readAll(r)).isEqualTo(first);
      assertConsistent(r, dir);
      // Overwrites need no new space.
      write(r, 0, new byte[1000]);
      // Used space returns with a delete, and the room with it.
      assertThat(store.delete(r.key(), 1)).isTrue();
      assertThat(store.dirs().get(0).usedBytes()).isZero();
      Replica s = store.create(new ChunkKey(2, 0), 1, 1);
      write(s, 0, new byte[1000 * 1024]);
    }
  }

  @Test
  void createFailsWithNoSpaceWhenNoDirectoryHasRoom() throws IOException {
    Path dir = root.resolve("d");
    try (ChunkStore store = ChunkStore.open(new StoreSettings(List.of(dir), 0, 100))) {
      Replica r = store.create(new ChunkKey(1, 0), 1, 1);
      write(r, 0, new byte[68]);
      assertThat(store.dirs().get(0).availableBytes()).isZero();
      assertThat(statusOf(() -> store.create(new ChunkKey(2, 0), 1, 1))).isEqualTo(Status.NO_SPACE);
    }
  }

  @Test
  void createOfAnExistingChunkFails() throws IOException {
    try (ChunkStore store = ChunkStore.open(settings(root.resolve("d")))) {
      store.create(new ChunkKey(1, 0), 1, 1);
      assertThat(statusOf(() -> store.create(new ChunkKey(1, 0), 2, 2)))
          .isEqualTo(Status.ALREADY_EXISTS);
    }
  }

  @Test
  void deleteKeepsReplicasNewerThanMaxVersion() throws IOException {
    Path dir = root.resolve("d");
    ChunkKey key = new ChunkKey(9, 3);
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      Replica r = store.create(key, 5, 1);
      write(r, 0, new byte[100]);
      assertThat(store.delete(key, 4)).isFalse();
      assertThat(store.get(key)).isSameAs(r);
      assertThat(StoreFixtures.dataFile(dir, key)).exists();
      assertThat(store.delete(key, 5)).isTrue();
      assertThat(store.get(key)).isNull();
      assertThat(StoreFixtures.dataFile(dir, key)).doesNotExist();
      assertThat(StoreFixtures.metaFile(dir, key)).doesNotExist();
      assertThat(store.delete(key, 5)).isFalse();
      // The chunk can be created again.
      Replica again = store.create(key, 6, 1);
      assertThat(again.length()).isZero();
    }
    try (ChunkStore store = ChunkStore.open(settings(dir))) {
      assertThat(store.get(key)).isNotNull();
    }
  }

  @Test
  void theSameChunkInTwoDirectoriesKeepsTheHigherVersion() throws IOException {
    Path d0 = root.resolve("d0");
    Path d1 = root.resolve("d1");
    ChunkKey key = new ChunkKey(12, 0);
    try (ChunkStore store = ChunkStore.open(settings(d0))) {
      write(store.create(key, 3, 1), 0, new byte[10]);
    }
    try (ChunkStore store = ChunkStore.open(settings(d1))) {
      write(store.create(key, 4, 1), 0, new byte[20]);
    }
    try (ChunkStore store = ChunkStore.open(settings(d0, d1))) {
      Replica r = Objects.requireNonNull(store.get(key));
      assertThat(r.version()).isEqualTo(4);
      assertThat(StoreFixtures.dataFile(d0, key)).doesNotExist();
      assertThat(store.dirs().get(0).usedBytes()).isZero();
    }
  }

  @Test
  void aDirectoryListedTwiceIsRefused() {
    Path d = root.resolve("d");
    assertThatThrownBy(() -> ChunkStore.open(settings(d, d.resolve("../d"))))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("twice");
  }

  private static Properties properties(Path dir) throws IOException {
    Properties p = new Properties();
    p.load(
        new StringReader(
            Files.readString(dir.resolve("braid-storage.properties"), StandardCharsets.UTF_8)));
    return p;
  }

  /** A valid meta header of a WRITING replica, version 1, generation 1. */
  private static byte[] header() {
    ByteBuffer b = ByteBuffer.allocate(32);
    b.putInt(0x4252444D).putShort((short) 1).putShort((short) 1).putLong(1).putLong(1);
    return b.array();
  }
}
