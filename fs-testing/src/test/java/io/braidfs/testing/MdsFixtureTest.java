package io.braidfs.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.FileType;
import io.braidfs.proto.GetAttrRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one MDS fixture's abilities, merged from the three it replaces: a restart keeps the store and
 * the data servers' ids, the namespace calls and bulk creates work, a fixture in a directory of its
 * own removes it at close, and an attached fixture makes the same calls against an MDS it does not
 * run.
 */
class MdsFixtureTest {
  @TempDir Path dir;

  @Test
  void aRestartKeepsTheNamespaceAndTheDataServersIds() throws Exception {
    try (MdsFixture mds = MdsFixture.builder(dir).dataServers(2).build().start()) {
      int[] ids = mds.dataServerIds();
      assertThat(ids).hasSize(2).doesNotContain(0);
      long inode = mds.mkdir("/kept").getInodeId();

      mds.restart();

      assertThat(mds.dataServerIds()).isEqualTo(ids);
      assertThat(mds.getAttr("/kept").getInodeId()).isEqualTo(inode);
      assertThat(mds.create("/kept/f").getType()).isEqualTo(FileType.FILE_TYPE_REGULAR);
    }
  }

  @Test
  void namespaceCallsAndBulkCreatesAsTheSuperuser() throws Exception {
    try (MdsFixture mds = MdsFixture.builder(dir).build().start()) {
      mds.mkdir("/d");
      List<String> paths = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        paths.add("/d/f" + i);
      }
      mds.createAll(paths, 8);
      mds.rename("/d/f0", "/d/renamed");

      List<DirEntry> listed = mds.readDir("/d");
      assertThat(listed).hasSize(100).extracting(DirEntry::getName).contains("renamed");
      assertThat(mds.getAttrIfExists("/d/f0")).isEmpty();
      assertThat(mds.inodeCount()).isEqualTo(102); // the root, /d and its files

      MdsFixture.Window window = new MdsFixture.Window();
      RpcClient root = mds.superuser();
      for (int i = 1; i < 50; i++) {
        GetAttrRequest stat = GetAttrRequest.newBuilder().setPath("/d/f" + i).build();
        window.issue(() -> root.call(mds.address(), RpcMethod.GET_ATTR, stat));
      }
      window.drain();

      IOException exists = null;
      try {
        mds.create("/d/f1");
      } catch (IOException e) {
        exists = e;
      }
      assertThat(exists).isNotNull();
      assertThat(MdsFixture.status(exists)).isEqualTo(Status.ALREADY_EXISTS);
    }
  }

  @Test
  void aFixtureInANewDirectoryRemovesItAtClose() throws Exception {
    Path store;
    try (MdsFixture mds =
        MdsFixture.inNewDirectory(dir.resolve("base"))
            .config(MdsStoreConfigKeys.SYNC.name(), "true")
            .build()
            .start()) {
      mds.create("/durable");
      store = Path.of(mds.config().get(MdsStoreConfigKeys.DIR));
      assertThat(store).startsWith(dir.resolve("base")).isDirectory();
      assertThat(mds.syncStats().syncs()).isPositive();
    }
    assertThat(store.getParent()).doesNotExist();
    assertThat(dir.resolve("base")).isEmptyDirectory();
  }

  @Test
  void anAttachedFixtureCallsAnMdsItDoesNotRun() throws Exception {
    try (MdsFixture running = MdsFixture.builder(dir).dataServers(0).build().start()) {
      RpcClient client = running.client(MdsFixture.SUPERUSER);
      MdsFixture attached = MdsFixture.attach(running.address(), client);
      attached.registerDataServers(3);
      attached.mkdir("/a");
      long inode = attached.create("/a/f").getInodeId();
      assertThat(running.getAttr("/a/f").getInodeId()).isEqualTo(inode);
      assertThatThrownBy(attached::start).isInstanceOf(IllegalStateException.class);
      attached.close(); // closes nothing of the caller's
      assertThat(attached.getAttr("/a").getType()).isEqualTo(FileType.FILE_TYPE_DIRECTORY);
    }
    assertThat(Files.exists(dir.resolve("mds-store"))).isTrue();
  }
}
