package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.rocksdb.ReadOptions;
import org.rocksdb.WriteBatch;

@ExtendWith(NoNativeLeaks.class)
class ManagedNativesTest {
  /** RocksDB constructors and factories that only {@link ManagedNatives} may call. */
  private static final Pattern RAW_CREATION =
      Pattern.compile(
          "new\\s+(Options|DBOptions|ColumnFamilyOptions|WriteOptions|ReadOptions|WriteBatch"
              + "|WriteBatchWithIndex|Slice|DirectSlice|LRUCache|HyperClockCache|BloomFilter"
              + "|Statistics|FlushOptions|CompactRangeOptions|BackupEngineOptions|Env"
              + "|SstFileWriter|EnvOptions)\\s*\\("
              + "|RocksDB\\s*\\.\\s*open(ReadOnly)?\\s*\\(|\\.newIterator\\s*\\(|\\.getSnapshot\\s*\\("
              + "|Checkpoint\\s*\\.\\s*create\\s*\\(|BackupEngine\\s*\\.\\s*open\\s*\\(");

  @Test
  void tracksAnObjectFromCreationToClose() {
    int before = ManagedNatives.openCount();
    ManagedNative<ReadOptions> options = ManagedNatives.readOptions();
    assertThat(ManagedNatives.openCount()).isEqualTo(before + 1);
    // Only this test's object: others in the same JVM may be open meanwhile.
    List<String> leaks =
        ManagedNatives.leaks().stream()
            .filter(l -> l.contains("tracksAnObjectFromCreationToClose"))
            .toList();
    assertThat(leaks).hasSize(1);
    // Surefire enables assertions, so the report shows where the object was created.
    assertThat(leaks.get(0)).contains("ReadOptions opened here");
    options.close();
    options.close();
    assertThat(ManagedNatives.openCount()).isEqualTo(before);
    assertThat(ManagedNatives.leaks()).isEmpty();
  }

  @Test
  void aClosedObjectCannotBeUsed() {
    ManagedNative<WriteBatch> batch = ManagedNatives.writeBatch(new byte[WriteBatchEncoder.HEADER]);
    batch.close();
    assertThatThrownBy(batch::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("WriteBatch used after close");
  }

  @Test
  void tryWithResourcesReleasesEvenOnFailure() {
    assertThatThrownBy(
            () -> {
              try (ManagedNative<WriteBatch> batch =
                      ManagedNatives.writeBatch(new byte[WriteBatchEncoder.HEADER]);
                  ManagedNative<org.rocksdb.Slice> slice = ManagedNatives.slice(new byte[] {1})) {
                batch.get().clear();
                assertThat(slice.get().data()).containsExactly(1);
                throw new IllegalStateException("boom");
              }
            })
        .hasMessage("boom");
    assertThat(ManagedNatives.leaks()).isEmpty();
  }

  @Test
  void onlyManagedNativesCreatesRocksDbObjects() throws IOException {
    Path sources = Path.of("src/main/java/io/braidfs/mds/store");
    assertThat(sources).isDirectory();
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.list(sources)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        if (file.getFileName().toString().equals("ManagedNatives.java")) {
          continue;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        Matcher m = RAW_CREATION.matcher(text);
        while (m.find()) {
          offenders.add(file.getFileName() + ": " + m.group());
        }
      }
    }
    assertThat(offenders).as("RocksDB objects created outside ManagedNatives").isEmpty();
  }
}
