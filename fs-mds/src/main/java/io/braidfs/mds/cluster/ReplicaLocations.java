package io.braidfs.mds.cluster;

import io.braidfs.proto.ReplicaLocation;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link ReplicaLocation} message per data server, shared by every answer that names it. Every
 * create and open answers with the replicas of several chunks; a shared message is built once, and
 * protobuf keeps its serialized size and its strings' UTF-8 bytes, so answers stop rebuilding and
 * re-encoding the same host names (docs/benchmarks.md).
 *
 * <p>A server that re-registers at another address gets a new message: each lookup checks the
 * cached one against the server's current host, port and rack.
 *
 * <p>Thread-safety: thread-safe. Racing lookups of a changed server may build it twice; either
 * result is correct.
 */
public final class ReplicaLocations {
  /** A built message and what it was built from (reading its strings back would undo the bytes). */
  private record Built(String host, int port, String rack, ReplicaLocation location) {}

  private final ConcurrentHashMap<Integer, Built> byId = new ConcurrentHashMap<>();

  /** Where replicas on {@code server} live, as the wire protocol names it. */
  public ReplicaLocation of(DataServer server) {
    Built b = byId.get(server.id());
    if (b == null
        || b.port() != server.port()
        || !b.host().equals(server.host())
        || !b.rack().equals(server.rack())) {
      ReplicaLocation location = server.toReplicaLocation();
      // Converts the strings to UTF-8 once; the message keeps the bytes for every later write.
      location.getHostBytes();
      location.getRackBytes();
      location.getSerializedSize();
      b = new Built(server.host(), server.port(), server.rack(), location);
      byId.put(server.id(), b);
    }
    return b.location();
  }
}
