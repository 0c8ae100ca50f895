package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.LayoutSpec;
import io.braidfs.proto.SetLayoutPolicyRequest;
import io.braidfs.proto.StatFsRequest;
import io.braidfs.proto.StatFsResponse;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Space over RPC: StatFs counts a file system that several data servers share once and divides by
 * the replication at the root.
 */
class SpaceRpcTest {
  private static final long GIB = 1L << 30;
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
}
