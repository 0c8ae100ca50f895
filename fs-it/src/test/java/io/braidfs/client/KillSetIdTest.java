package io.braidfs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.testing.MiniCluster;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SetAttr's kill_setid, the kernel's removal of set-id bits after a write by a non-owner: allowed
 * to whoever may write the file, clearing S_ISUID and, with group execute, S_ISGID, as Linux does;
 * refused to others and together with a mode.
 */
class KillSetIdTest {
  @TempDir static Path dir;
  static MiniCluster cluster;
  static BraidClient root;
  static BraidClient alice;

  @BeforeAll
  static void start() throws IOException {
    cluster = MiniCluster.builder(dir).dataServers(3).build();
    cluster.start();
    root = cluster.newBraidClient("root");
    alice = cluster.newBraidClient("alice");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static FileAttributes kill(BraidClient c, String path) throws IOException {
    return c.setAttr(path, AttrChange.builder().killSetid().build());
  }

  @Test
  void aWriterClearsSetUidAndSetGidWithGroupExecute() throws IOException {
    root.create("/w1").close();
    root.setPermission("/w1", 06777);
    assertThat(kill(alice, "/w1").mode()).isEqualTo(0777);
  }

  @Test
  void setGidWithoutGroupExecuteIsKept() throws IOException {
    root.create("/w2").close();
    root.setPermission("/w2", 06766);
    assertThat(kill(alice, "/w2").mode()).isEqualTo(02766);
  }

  @Test
  void someoneWhoMayNotWriteIsRefused() throws IOException {
    root.create("/w3").close();
    root.setPermission("/w3", 04755);
    assertThatThrownBy(() -> kill(alice, "/w3"))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.PERMISSION_DENIED));
    assertThat(root.stat("/w3").mode()).isEqualTo(04755);
  }

  @Test
  void notTogetherWithAMode() throws IOException {
    root.create("/w4").close();
    assertThatThrownBy(() -> root.setAttr("/w4", AttrChange.builder().killSetid().mode(0).build()))
        .satisfies(
            e -> assertThat(StatusExceptions.statusOf(e)).isEqualTo(Status.INVALID_ARGUMENT));
  }
}
