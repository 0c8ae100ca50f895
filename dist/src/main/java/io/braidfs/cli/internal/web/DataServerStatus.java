package io.braidfs.cli.internal.web;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.ScrubStats;
import io.braidfs.dataserver.store.ChunkStore;
import io.braidfs.dataserver.store.DataDirStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the status page shows of the data servers in this process, as JSON values: each one's id,
 * MDS list, directories with their space, and replica count, read from the server's own store.
 *
 * <p>Thread-safety: thread-safe (the store's accessors are).
 */
public final class DataServerStatus {
  private final Supplier<List<DataServer>> servers;
  private final Supplier<List<String>> mds;

  /**
   * @param servers the data servers of this process, in order (read on every request)
   * @param mds the MDS addresses they report to
   */
  public DataServerStatus(Supplier<List<DataServer>> servers, Supplier<List<String>> mds) {
    this.servers = servers;
    this.mds = mds;
  }

  /** The ids of the data servers in this process, in order. */
  List<String> ids() {
    List<String> out = new ArrayList<>();
    for (DataServer d : servers.get()) {
      out.add(d.id());
    }
    return out;
  }

  /**
   * Data server {@code id}'s state.
   *
   * @throws IOException NOT_FOUND if no such server runs here, UNAVAILABLE if it is not running
   */
  Map<String, Object> server(String id) throws IOException {
    DataServer d = null;
    for (DataServer s : servers.get()) {
      if (s.id().equals(id)) {
        d = s;
      }
    }
    if (d == null) {
      throw StatusExceptions.toIOException(
          Status.NOT_FOUND, "no data server " + id + " runs in this process");
    }
    ChunkStore store;
    String address;
    try {
      store = d.store();
      address = d.address().getHostString() + ":" + d.address().getPort();
    } catch (IllegalStateException e) {
      throw StatusExceptions.toIOException(Status.UNAVAILABLE, id + " is not running");
    }
    long capacity = 0;
    long used = 0;
    List<Object> dirs = new ArrayList<>();
    for (DataDirStatus s : store.dirs()) {
      Map<String, Object> dir = new LinkedHashMap<>();
      dir.put("path", s.path().toString());
      dir.put("capacityBytes", s.capacityBytes());
      dir.put("usedBytes", s.usedBytes());
      dir.put("availableBytes", s.availableBytes());
      dir.put("failed", s.failed());
      dirs.add(dir);
      if (!s.failed()) {
        capacity += s.capacityBytes();
        used += s.usedBytes();
      }
    }
    ScrubStats scrub = d.scrubStats();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", d.id());
    out.put("serverId", d.serverId());
    out.put("address", address);
    out.put("clusterId", store.clusterId());
    out.put("mds", mds.get());
    out.put("capacityBytes", capacity);
    out.put("usedBytes", used);
    out.put("replicas", store.replicas().size());
    out.put("scrubPasses", scrub.passes());
    out.put("scrubCorruptFound", scrub.corruptFound());
    out.put("dirs", dirs);
    return out;
  }
}
