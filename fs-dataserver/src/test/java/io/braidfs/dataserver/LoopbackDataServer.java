package io.braidfs.dataserver;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.ChunkStore;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.ReplicaLocation;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A real {@link DataServer} on 127.0.0.1, port 0, over a data directory of the test's own, with no
 * MDS. Nothing listens at the MDS address it is given (port 1 on loopback: refused at once), so it
 * never registers; instead the test installs the signing keys the MDS's registration answer would
 * carry. Everything else is the production server: its RPC server, handlers, token gate, disk
 * threads, chunk store and the client it forwards write chains and copies with.
 *
 * <p>Thread-safety: thread-safe.
 */
final class LoopbackDataServer implements AutoCloseable {
  /** An MDS address no server listens on. */
  private static final String NO_MDS = "127.0.0.1:1";

  private final DataServer server;
  private final int serverId;

  private LoopbackDataServer(DataServer server, int serverId) {
    this.server = server;
    this.serverId = serverId;
  }

  /**
   * Starts server {@code id} on {@code dir} with {@code mint}'s keys installed.
   *
   * @param serverId the id write chains and copies name this server by (the MDS would assign it)
   */
  static LoopbackDataServer start(String id, int serverId, Path dir, TokenMint mint)
      throws IOException {
    LoopbackDataServer s = startWithoutKeys(id, serverId, dir);
    s.server.updateSigningKeys(mint.signingKeys());
    return s;
  }

  /** Starts server {@code id} on {@code dir} as it is before its first registration: no keys. */
  static LoopbackDataServer startWithoutKeys(String id, int serverId, Path dir) throws IOException {
    BraidConfig config =
        BraidConfig.builder()
            .set(DataServerConfigKeys.ADDRESS, "127.0.0.1:0")
            .set(DataServerConfigKeys.DIRS.name(), dir.toString())
            .set(DataServerConfigKeys.MDS.name(), NO_MDS)
            // Registration cannot succeed; one refused attempt a minute keeps the log quiet.
            .set(DataServerConfigKeys.REGISTER_RETRY.name(), "1m")
            .build();
    DataServer server = new DataServer(config, id);
    server.start();
    return new LoopbackDataServer(server, serverId);
  }

  /**
   * Starts server {@code id} on {@code dirs}, registered with {@code mds} (which assigns its id and
   * sends its keys), with {@code settings} on top; returns once the MDS has heard its heartbeat.
   */
  static LoopbackDataServer startRegistered(
      String id, StandInMds mds, List<Path> dirs, Map<String, String> settings) throws IOException {
    BraidConfig.Builder config =
        BraidConfig.builder()
            .set(DataServerConfigKeys.ADDRESS, "127.0.0.1:0")
            .set(
                DataServerConfigKeys.DIRS.name(),
                String.join(",", dirs.stream().map(Path::toString).toList()))
            .set(DataServerConfigKeys.MDS.name(), mds.address())
            .set(DataServerConfigKeys.REGISTER_RETRY.name(), "50ms");
    config.setAll(settings);
    DataServer server = new DataServer(config.build(), id);
    server.start();
    try {
      if (!server.awaitRegistered(Duration.ofSeconds(30))) {
        throw new IOException(id + " did not register with the stand-in MDS");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
      throw new IOException(e);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    return new LoopbackDataServer(server, server.serverId());
  }

  DataServer server() {
    return server;
  }

  InetSocketAddress address() {
    return server.address();
  }

  /** This server as a write chain or a copy names it. */
  ReplicaLocation location() {
    InetSocketAddress a = address();
    return ReplicaLocation.newBuilder()
        .setServerId(serverId)
        .setHost(a.getAddress().getHostAddress())
        .setPort(a.getPort())
        .build();
  }

  String id() {
    return server.id();
  }

  ChunkStore store() {
    return server.store();
  }

  /** The replica of {@code key} here, or null. */
  @Nullable Replica replica(ChunkKey key) {
    return server.store().get(key);
  }

  @Override
  public void close() {
    server.close();
  }
}
