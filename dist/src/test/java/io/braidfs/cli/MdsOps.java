package io.braidfs.cli;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.CreateRequest;
import io.braidfs.proto.DataDir;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.HeartbeatRequest;
import io.braidfs.proto.MkdirRequest;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.RegisterDataServerRequest;
import io.braidfs.proto.RegisterDataServerResponse;
import io.braidfs.proto.RenameRequest;
import io.braidfs.proto.RenameSemantics;
import io.braidfs.proto.StatFsRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The metadata calls the dist tests make, over the wire protocol with an {@link RpcClient} (no
 * fs-client): register fake data servers, create, mkdir, rename, getattr and a full readdir.
 *
 * <p>Thread-safety: thread-safe (the client is).
 */
final class MdsOps {
  /** Capacity each fake data server reports: 1 TiB. */
  static final long TIB = 1L << 40;

  private final RpcClient client;
  private final InetSocketAddress mds;

  MdsOps(RpcClient client, InetSocketAddress mds) {
    this.client = client;
    this.mds = mds;
  }

  /** The status behind a failed call, or null when the failure carries none. */
  static @Nullable Status status(IOException e) {
    return e instanceof StatusException s ? s.status() : null;
  }

  /**
   * Registers {@code count} data servers on distinct hosts ({@code ds1.test}, ...), one 1 TiB data
   * dir each, and heartbeats each once so that the MDS knows their free space. No data-server
   * process exists: chunk placement only needs the registrations.
   */
  void registerDataServers(int count) throws IOException {
    for (int i = 1; i <= count; i++) {
      RegisterDataServerResponse r =
          client.callSync(
              mds,
              RpcMethod.REGISTER_DATA_SERVER,
              RegisterDataServerRequest.newBuilder()
                  .setHost("ds" + i + ".test")
                  .setPort(7500 + i)
                  .addDataDirs(
                      DataDir.newBuilder()
                          .setPath("/data/ds" + i)
                          .setStorageId("storage-ds" + i)
                          .setCapacityBytes(TIB))
                  .setCapacityBytes(TIB)
                  .setSoftwareVersion("test")
                  .build());
      client.callSync(
          mds,
          RpcMethod.HEARTBEAT,
          HeartbeatRequest.newBuilder()
              .setServerId(r.getServerId())
              .setCapacityBytes(TIB)
              .setAvailableBytes(TIB)
              .build());
    }
  }

  Attributes create(String path) throws IOException {
    return client
        .callSync(
            mds, RpcMethod.CREATE, CreateRequest.newBuilder().setPath(path).setMode(0644).build())
        .getAttributes();
  }

  Attributes mkdir(String path) throws IOException {
    return client
        .callSync(
            mds, RpcMethod.MKDIR, MkdirRequest.newBuilder().setPath(path).setMode(0755).build())
        .getAttributes();
  }

  void rename(String from, String to) throws IOException {
    client.callSync(
        mds,
        RpcMethod.RENAME,
        RenameRequest.newBuilder()
            .setSourcePath(from)
            .setDestinationPath(to)
            .setSemantics(RenameSemantics.RENAME_SEMANTICS_POSIX)
            .setNoReplace(true)
            .build());
  }

  Attributes getAttr(String path) throws IOException {
    return client
        .callSync(mds, RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
        .getAttributes();
  }

  /** The attributes of {@code path}, or empty if it does not exist. */
  Optional<Attributes> getAttrIfExists(String path) throws IOException {
    try {
      return Optional.of(getAttr(path));
    } catch (IOException e) {
      if (status(e) == Status.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** The number of inodes the MDS says the namespace holds (StatFs). */
  long inodeCount() throws IOException {
    return client
        .callSync(mds, RpcMethod.STAT_FS, StatFsRequest.newBuilder().setPath("/").build())
        .getInodeCount();
  }

  /** Every entry of a directory, reading page after page. */
  List<DirEntry> readDir(String path) throws IOException {
    List<DirEntry> all = new ArrayList<>();
    String after = "";
    while (true) {
      ReadDirResponse page =
          client.callSync(
              mds,
              RpcMethod.READ_DIR,
              ReadDirRequest.newBuilder().setPath(path).setStartAfter(after).build());
      all.addAll(page.getEntriesList());
      if (!page.getHasMore() || page.getEntriesCount() == 0) {
        return all;
      }
      after = page.getEntries(page.getEntriesCount() - 1).getName();
    }
  }
}
