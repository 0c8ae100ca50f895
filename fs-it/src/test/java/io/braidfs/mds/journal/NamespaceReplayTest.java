package io.braidfs.mds.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.RocksMetadataStore;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.ConcatRequest;
import io.braidfs.proto.ConcatResponse;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.DeleteRequest;
import io.braidfs.proto.FileType;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.LinkRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.MknodRequest;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetXattrRequest;
import io.braidfs.proto.SymlinkRequest;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal a real MDS writes, replayed into a fresh store, gives byte-identical contents: every
 * decision (ids, times, placements, retry entries, deletion records) is in the records.
 */
class NamespaceReplayTest {
  @TempDir Path dir;

  @Test
  void replayingAnMdsJournalRebuildsItsStoreExactly() throws Exception {
    Path mdsDir = dir.resolve("mds");
    BraidConfig config =
        BraidConfig.fromMap(
            Map.of(
                "braid.mds.address", "127.0.0.1:0",
                "braid.mds.store.dir", mdsDir.toString(),
                "braid.mds.layout.replication", "2"));
    try (MdsServer mds = new MdsServer(config);
        RpcClient c = RpcClient.builder("replay").user("root").build()) {
      mds.start();
      c.start();
      InetSocketAddress at = mds.address();
      for (int i = 1; i <= 3; i++) {
        int id =
            c.callSync(
                    at,
                    RpcMethod.REGISTER_DATA_SERVER,
                    RegisterDataServerRequest.newBuilder()
                        .setHost("ds" + i + ".test")
                        .setPort(7600 + i)
                        .setCapacityBytes(1L << 40)
                        .build())
                .getServerId();
        c.callSync(
            at,
            RpcMethod.HEARTBEAT,
            HeartbeatRequest.newBuilder()
                .setServerId(id)
                .setCapacityBytes(1L << 40)
                .setAvailableBytes(1L << 40)
                .build());
      }
      for (int i = 0; i < 30; i++) {
        String d = "/d" + (i % 4);
        c.callSync(
            at,
            RpcMethod.MKDIR,
            MkdirRequest.newBuilder().setPath(d + "/sub").setMode(0750).setParents(true).build());
        long inode =
            c.callSync(
                    at,
                    RpcMethod.CREATE,
                    CreateRequest.newBuilder()
                        .setPath(d + "/f" + i)
                        .setMode(0640)
                        .setOverwrite(true)
                        .build())
                .getAttributes()
                .getInodeId();
        c.callSync(
            at,
            RpcMethod.COMMIT,
            CommitRequest.newBuilder().setInodeId(inode).setLength(i * 1000L).build());
        c.callSync(
            at,
            RpcMethod.SET_XATTR,
            SetXattrRequest.newBuilder()
                .setPath(d + "/f" + i)
                .setName("user.n")
                .setValue(ByteString.copyFromUtf8("v" + i))
                .build());
        if (i % 3 == 0) {
          c.callSync(
              at,
              RpcMethod.RENAME,
              RenameRequest.newBuilder()
                  .setSourcePath(d + "/f" + i)
                  .setDestinationPath(d + "/sub/r" + i)
                  .build());
          c.callSync(
              at,
              RpcMethod.LINK,
              LinkRequest.newBuilder()
                  .setExistingPath(d + "/sub/r" + i)
                  .setNewPath(d + "/l" + i)
                  .build());
        }
        if (i % 7 == 0) {
          // Special files: type, mode, owner and device number are all in the record.
          c.callSync(
              at,
              RpcMethod.MKNOD,
              MknodRequest.newBuilder()
                  .setPath(d + "/p" + i)
                  .setType(FileType.FILE_TYPE_FIFO)
                  .setMode(0640)
                  .build());
          c.callSync(
              at,
              RpcMethod.MKNOD,
              MknodRequest.newBuilder()
                  .setPath(d + "/sub/c" + i)
                  .setType(FileType.FILE_TYPE_CHARACTER_DEVICE)
                  .setMode(0600)
                  .setRdev(0x100 + i)
                  .build());
          c.callSync(
              at,
              RpcMethod.LINK,
              LinkRequest.newBuilder()
                  .setExistingPath(d + "/sub/c" + i)
                  .setNewPath(d + "/c" + i)
                  .build());
          c.callSync(
              at,
              RpcMethod.RENAME,
              RenameRequest.newBuilder()
                  .setSourcePath(d + "/p" + i)
                  .setDestinationPath(d + "/sub/p" + i)
                  .build());
        }
        if (i % 5 == 0) {
          c.callSync(
              at,
              RpcMethod.SYMLINK,
              SymlinkRequest.newBuilder().setPath(d + "/s" + i).setTarget("sub").build());
          c.callSync(
              at,
              RpcMethod.SET_ATTR,
              SetAttrRequest.newBuilder().setPath(d + "/sub").setMode(0700).build());
        }
      }
      c.callSync(
          at,
          RpcMethod.DELETE,
          DeleteRequest.newBuilder().setPath("/d1").setRecursive(true).build());
      // Concats: sources across directories, one hard-linked (its inode stays), one whole file
      // released into the deletion queue; the target's commit and the removals in one record.
      String[][] concats = {
        {"/d0/f4", "/d2/f2", "/d3/f7"},
        {"/d0/f8", "/d2/sub/r6", "/d3/f11"},
        {"/d0/f16", "/d2/f10", "/d2/f14", "/d3/f19"}
      };
      for (String[] paths : concats) {
        String target = paths[0];
        ConcatRequest request =
            ConcatRequest.newBuilder()
                .setTargetPath(target)
                .addAllSourcePaths(Arrays.asList(paths).subList(1, paths.length))
                .build();
        ConcatResponse checked =
            c.callSync(at, RpcMethod.CONCAT, request.toBuilder().setCheckOnly(true).build());
        long length = checked.getAttributes().getSize();
        for (var source : checked.getSourcesList()) {
          length += source.getSize();
        }
        long inode =
            c.callSync(
                    at,
                    RpcMethod.OPEN,
                    OpenRequest.newBuilder().setPath(target).setWrite(true).build())
                .getAttributes()
                .getInodeId();
        ConcatResponse joined =
            c.callSync(
                at,
                RpcMethod.CONCAT,
                request.toBuilder()
                    .setCommit(CommitRequest.newBuilder().setInodeId(inode).setLength(length))
                    .addAllCopiedSources(checked.getSourcesList())
                    .build());
        assertThat(joined.getAttributes().getSize()).isEqualTo(length);
      }
    }

    BraidConfig replayConfig = BraidConfig.fromMap(Map.of());
    try (RocksMetadataStore original =
            new RocksMetadataStore("original", WalJournalTest.options(mdsDir));
        RocksMetadataStore fresh =
            new RocksMetadataStore("fresh", WalJournalTest.options(dir.resolve("fresh")))) {
      original.start();
      fresh.start();
      try (WalJournal source = new WalJournal("original", original, replayConfig, Clock.system());
          WalJournal target = new WalJournal("fresh", fresh, replayConfig, Clock.system())) {
        source.start();
        long applied = original.appliedIndex();
        target.start();
        long replayed = JournalReplayer.replay(source, target);
        target.barrier().join();
        assertThat(replayed).isEqualTo(applied).isGreaterThan(100);
        assertThat(fresh.appliedIndex()).isEqualTo(original.appliedIndex());
        assertThat(WalJournalTest.contents(fresh)).isEqualTo(WalJournalTest.contents(original));
      }
    }
  }
}
