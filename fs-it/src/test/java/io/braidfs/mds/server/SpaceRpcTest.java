package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.AllocateChunkSetRequest;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ChunkState;
import io.braidfs.proto.CommitRequest;
import io.braidfs.proto.ContentSummaryRequest;
import io.braidfs.proto.ContentSummaryResponse;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.CreateResponse;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.LayoutSpec;
import io.braidfs.proto.OpenRequest;
import io.braidfs.proto.SetAttrRequest;
import io.braidfs.proto.SetLayoutPolicyRequest;
import io.braidfs.proto.StatFsRequest;
import io.braidfs.proto.StatFsResponse;
import io.braidfs.proto.UpdateLengthRequest;
import io.braidfs.testing.MdsFixture;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Space over RPC: StatFs counts a file system that several data servers share once and divides by
 * the replication at the root, and a file's allocated bytes follow its chunks' committed lengths
 * through commit, hflush, finished chunk sets and truncate (a sparse file holds only what was
 * written), survive a restart, and are what ContentSummary's space consumed multiplies.
 */
class SpaceRpcTest {
  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;
  private static final long TIB = 1L << 40;

  @TempDir Path dir;
  private MdsFixture mds;
  private RpcClient root;

  @BeforeEach
  void start() throws IOException {
    mds = MdsFixture.builder(dir).build().start();
    root = mds.superuser();
  }

  @AfterEach
  void stop() {
    mds.close();
  }

  private StatFsResponse statFs() throws IOException {
    return root.callSync(
        mds.address(), RpcMethod.STAT_FS, StatFsRequest.newBuilder().setPath("/").build());
  }

  /** A heartbeat of data server {@code i} with one data dir on {@code fileSystem}. */
  private void heartbeat(int i, String fileSystem, long capacity, long used, long available)
      throws IOException {
    int id = mds.dataServerIds()[i];
    root.callSync(
        mds.address(),
        RpcMethod.HEARTBEAT,
        HeartbeatRequest.newBuilder()
            .setServerId(id)
            .setCapacityBytes(capacity)
            .setUsedBytes(used)
            .setAvailableBytes(available)
            .addDataDirs(
                DataDir.newBuilder()
                    .setPath("/data/" + i)
                    .setStorageId("storage-" + i)
                    .setFileSystemId(fileSystem)
                    .setCapacityBytes(capacity)
                    .setUsedBytes(used)
                    .setAvailableBytes(available))
            .build());
  }

  @Test
  void statFsCountsAFileSystemOnceAndDividesByTheReplication() throws IOException {
    // The fixture's servers name no file system: each counts on its own, as before.
    StatFsResponse separate = statFs();
    assertThat(separate.getRawCapacityBytes()).isEqualTo(3 * TIB);
    assertThat(separate.getReplication()).isEqualTo(3);
    assertThat(separate.getCapacityBytes()).isEqualTo(TIB);
    assertThat(separate.getAvailableBytes()).isEqualTo(TIB);
    assertThat(separate.getLiveDataServers()).isEqualTo(3);

    // Three servers with their directories on one disk of one machine: the disk counts once,
    // its used bytes are everyone's, and its free space is not added up.
    for (int i = 0; i < 3; i++) {
      heartbeat(i, "h1:dev:2049", TIB, 10 * GIB, 500 * GIB);
    }
    StatFsResponse shared = statFs();
    assertThat(shared.getRawCapacityBytes()).isEqualTo(TIB);
    assertThat(shared.getRawUsedBytes()).isEqualTo(30 * GIB);
    assertThat(shared.getRawAvailableBytes()).isEqualTo(500 * GIB);
    assertThat(shared.getCapacityBytes()).isEqualTo(TIB / 3);
    assertThat(shared.getUsedBytes()).isEqualTo(10 * GIB);
    assertThat(shared.getAvailableBytes()).isEqualTo(500 * GIB / 3);
    assertThat(shared.getLiveDataServers()).isEqualTo(3);

    // The same device number on another host is another disk.
    heartbeat(2, "h2:dev:2049", TIB, 10 * GIB, 500 * GIB);
    StatFsResponse twoHosts = statFs();
    assertThat(twoHosts.getRawCapacityBytes()).isEqualTo(2 * TIB);
    assertThat(twoHosts.getRawUsedBytes()).isEqualTo(30 * GIB);
    assertThat(twoHosts.getRawAvailableBytes()).isEqualTo(1000 * GIB);

    // Free space the disk's users have left cannot be more than its capacity less what they use.
    for (int i = 0; i < 3; i++) {
      heartbeat(i, "h1:dev:2049", 100 * GIB, 40 * GIB, 60 * GIB);
    }
    assertThat(statFs().getRawAvailableBytes()).isEqualTo(0);
    assertThat(statFs().getRawUsedBytes()).isEqualTo(120 * GIB);

    // The divisor is the replication new files get at the root.
    heartbeat(0, "h1:dev:2049", TIB, 0, TIB);
    heartbeat(1, "h1:dev:2049", TIB, 0, TIB);
    heartbeat(2, "h1:dev:2049", TIB, 0, TIB);
    root.callSync(
        mds.address(),
        RpcMethod.SET_LAYOUT_POLICY,
        SetLayoutPolicyRequest.newBuilder()
            .setPath("/")
            .setPolicy(LayoutSpec.newBuilder().setReplication(2))
            .build());
    StatFsResponse two = statFs();
    assertThat(two.getReplication()).isEqualTo(2);
    assertThat(two.getCapacityBytes()).isEqualTo(TIB / 2);
    assertThat(two.getAvailableBytes()).isEqualTo(TIB / 2);
  }

  private Attributes getAttr(String path) throws IOException {
    return root.callSync(
            mds.address(), RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  private static ChunkState state(ChunkLocation c, long length) {
    return ChunkState.newBuilder()
        .setId(c.getId())
        .setVersion(c.getVersion())
        .setLength(length)
        .build();
  }

  @Test
  void allocatedBytesFollowTheChunksCommittedLengths() throws IOException {
    // Default layout: 1 MiB stripe units, 4 chunks of 64 MiB per set, so a set spans 256 MiB and
    // byte 1 GiB is the first byte of set 4's first chunk.
    CreateResponse created =
        root.callSync(
            mds.address(),
            RpcMethod.CREATE,
            CreateRequest.newBuilder().setPath("/sparse").setMode(0644).build());
    long inode = created.getAttributes().getInodeId();
    assertThat(created.getAttributes().getAllocatedBytes()).isZero();
    ChunkLocation set4chunk0 =
        root.callSync(
                mds.address(),
                RpcMethod.ALLOCATE_CHUNK_SET,
                AllocateChunkSetRequest.newBuilder()
                    .setPath("/sparse")
                    .setInodeId(inode)
                    .setSetIndex(4)
                    .build())
            .getChunkSet()
            .getChunks(0);
    Attributes committed =
        root.callSync(
                mds.address(),
                RpcMethod.COMMIT,
                CommitRequest.newBuilder()
                    .setPath("/sparse")
                    .setInodeId(inode)
                    .setLength(GIB + 4096)
                    .addChunks(state(set4chunk0, 4096))
                    .build())
            .getAttributes();
    assertThat(committed.getSize()).isEqualTo(GIB + 4096);
    assertThat(committed.getAllocatedBytes()).isEqualTo(4096);
    assertThat(getAttr("/sparse").getAllocatedBytes()).isEqualTo(4096);

    // hflush and a finished chunk set add what they report; a chunk reported again counts once.
    var open =
        root.callSync(
            mds.address(),
            RpcMethod.OPEN,
            OpenRequest.newBuilder().setPath("/sparse").setWrite(true).build());
    ChunkLocation set0chunk0 = open.getChunkSets(0).getChunks(0);
    ChunkLocation set0chunk1 = open.getChunkSets(0).getChunks(1);
    root.callSync(
        mds.address(),
        RpcMethod.UPDATE_LENGTH,
        UpdateLengthRequest.newBuilder()
            .setPath("/sparse")
            .setInodeId(inode)
            .setLength(GIB + 4096)
            .addChunks(state(set0chunk0, MIB))
            .build());
    assertThat(getAttr("/sparse").getAllocatedBytes()).isEqualTo(MIB + 4096);
    root.callSync(
        mds.address(),
        RpcMethod.ALLOCATE_CHUNK_SET,
        AllocateChunkSetRequest.newBuilder()
            .setPath("/sparse")
            .setInodeId(inode)
            .setSetIndex(1)
            .addFinishedChunks(state(set0chunk0, 2 * MIB))
            .addFinishedChunks(state(set0chunk1, MIB))
            .build());
    assertThat(getAttr("/sparse").getAllocatedBytes()).isEqualTo(3 * MIB + 4096);
    root.callSync(
        mds.address(),
        RpcMethod.COMMIT,
        CommitRequest.newBuilder()
            .setPath("/sparse")
            .setInodeId(inode)
            .setLength(GIB + 4096)
            .build());
    assertThat(getAttr("/sparse").getAllocatedBytes()).isEqualTo(3 * MIB + 4096);

    // ContentSummary: the length is the logical size, space consumed what the replicas hold.
    ContentSummaryResponse summary =
        root.callSync(
            mds.address(),
            RpcMethod.CONTENT_SUMMARY,
            ContentSummaryRequest.newBuilder().setPath("/").build());
    assertThat(summary.getLength()).isEqualTo(GIB + 4096);
    assertThat(summary.getSpaceConsumed()).isEqualTo(3 * (3 * MIB + 4096));

    // Truncate: chunks past the end go, a cut chunk keeps its part; growing adds a hole only.
    // Units 0 and 4 of chunk 0 hold file bytes [0, 1 MiB) and [4 MiB, 5 MiB).
    Attributes cut =
        root.callSync(
                mds.address(),
                RpcMethod.SET_ATTR,
                SetAttrRequest.newBuilder().setPath("/sparse").setSize(512 * 1024).build())
            .getAttributes();
    assertThat(cut.getAllocatedBytes()).isEqualTo(512 * 1024);
    Attributes grown =
        root.callSync(
                mds.address(),
                RpcMethod.SET_ATTR,
                SetAttrRequest.newBuilder().setPath("/sparse").setSize(10 * GIB).build())
            .getAttributes();
    assertThat(grown.getSize()).isEqualTo(10 * GIB);
    assertThat(grown.getAllocatedBytes()).isEqualTo(512 * 1024);

    // Kept in the inode record: the same after a restart (journal and store).
    mds.restart();
    root = mds.superuser();
    assertThat(getAttr("/sparse").getAllocatedBytes()).isEqualTo(512 * 1024);

    // Directories and symlinks hold no chunks.
    assertThat(getAttr("/").getAllocatedBytes()).isZero();
  }
}
