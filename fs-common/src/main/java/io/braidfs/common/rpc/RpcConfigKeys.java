package io.braidfs.common.rpc;

import io.braidfs.common.config.ConfigKey;
import io.braidfs.common.config.ConfigKeySet;
import io.braidfs.common.config.DataSize;
import java.time.Duration;
import java.util.List;

/**
 * The configuration keys of the RPC runtime (component {@code rpc}), shared by every client and
 * server: the transport, frame limits, client call limits and server connection limits. Each
 * constant holds its name, default and description side by side; {@link RpcOptions#from} reads
 * them. Registered for {@link java.util.ServiceLoader} in {@code META-INF/services}, and listed in
 * {@code docs/configuration.md}.
 *
 * <p>Thread-safety: immutable.
 */
public final class RpcConfigKeys implements ConfigKeySet {
  public static final ConfigKey<Transport.Choice> TRANSPORT =
      ConfigKey.enumKey(
          "braid.rpc.transport",
          Transport.Choice.AUTO,
          "Netty transport: AUTO uses epoll when the native library loads, else NIO.");

  public static final ConfigKey<DataSize> FRAME_MAX_MESSAGE =
      ConfigKey.dataSize(
          "braid.rpc.frame.max-message",
          DataSize.ofMiB(4),
          DataSize.ofKiB(1),
          DataSize.ofMiB(256),
          "Largest protobuf message accepted in one frame; a larger frame closes the connection.");

  public static final ConfigKey<DataSize> FRAME_MAX_PAYLOAD =
      ConfigKey.dataSize(
          "braid.rpc.frame.max-payload",
          DataSize.ofMiB(16),
          DataSize.ofKiB(4),
          DataSize.ofGiB(1),
          "Largest raw data payload accepted in one frame; a larger frame closes the connection.");

  public static final ConfigKey<Duration> CLIENT_CALL_TIMEOUT =
      ConfigKey.duration(
          "braid.rpc.client.call-timeout",
          Duration.ofSeconds(30),
          Duration.ofMillis(1),
          Duration.ofDays(1),
          "Deadline of one call, retries included; the call may have been applied when it fails.");

  public static final ConfigKey<Duration> CLIENT_CONNECT_TIMEOUT =
      ConfigKey.duration(
          "braid.rpc.client.connect-timeout",
          Duration.ofSeconds(10),
          Duration.ofMillis(1),
          Duration.ofHours(1),
          "Time allowed to open a TCP connection and complete the hello.");

  public static final ConfigKey<Duration> CLIENT_SPIN_WAIT =
      ConfigKey.duration(
          "braid.rpc.client.spin-wait",
          Duration.ofNanos(100_000),
          Duration.ZERO,
          Duration.ofMillis(10),
          "How long a caller blocked on an answer spins before it parks; waking a parked thread"
              + " costs ~25 us on a virtual machine (docs/benchmarks.md), 0 disables spinning."
              + " Only while at most half as many callers as cores (at least one) wait in one"
              + " client do they spin; more park at once.");

  public static final ConfigKey<Integer> CLIENT_MAX_OUTSTANDING =
      ConfigKey.integer(
          "braid.rpc.client.max-outstanding",
          1024,
          1,
          65536,
          "Calls in flight per connection before further callers wait.");

  public static final ConfigKey<Integer> CLIENT_IO_THREADS =
      ConfigKey.integer(
          "braid.rpc.client.io-threads",
          0,
          0,
          1024,
          "Client event-loop threads; 0 means min(available processors, 4).");

  public static final ConfigKey<Integer> SERVER_IO_THREADS =
      ConfigKey.integer(
          "braid.rpc.server.io-threads",
          0,
          0,
          1024,
          "Server event-loop threads; 0 means the number of available processors.");

  public static final ConfigKey<Integer> SERVER_MAX_INFLIGHT =
      ConfigKey.integer(
          "braid.rpc.server.max-inflight",
          256,
          1,
          65536,
          "Requests being handled per connection before the server stops reading from it.");

  public static final ConfigKey<Duration> SERVER_SHUTDOWN_GRACE =
      ConfigKey.duration(
          "braid.rpc.server.shutdown-grace",
          Duration.ofSeconds(2),
          Duration.ZERO,
          Duration.ofMinutes(10),
          "Time a closing server waits for in-flight requests before closing connections.");

  public static final ConfigKey<Duration> CLIENT_IDLE_TIMEOUT =
      ConfigKey.duration(
          "braid.rpc.client.idle-timeout",
          Duration.ofMinutes(1),
          Duration.ZERO,
          Duration.ofDays(1),
          "A client closes a connection on which nothing was sent or received for this long and "
              + "no call is in flight; the next call opens a new one. Keep it below the servers' "
              + "braid.rpc.server.idle-timeout, so the client, not the server, ends an idle "
              + "connection. 0 keeps connections open.");

  public static final ConfigKey<Duration> SERVER_HANDSHAKE_TIMEOUT =
      ConfigKey.duration(
          "braid.rpc.server.handshake-timeout",
          Duration.ofSeconds(10),
          Duration.ofMillis(100),
          Duration.ofHours(1),
          "A connection whose Hello is not accepted within this time after it was opened is "
              + "closed.");

  public static final ConfigKey<Duration> SERVER_IDLE_TIMEOUT =
      ConfigKey.duration(
          "braid.rpc.server.idle-timeout",
          Duration.ofMinutes(5),
          Duration.ZERO,
          Duration.ofDays(1),
          "A server closes a connection on which nothing was sent or received for this long and "
              + "no request is being handled, including one that stopped in the middle of a "
              + "frame. 0 keeps connections open.");

  public static final ConfigKey<Integer> SERVER_MAX_CONNECTIONS_PER_HOST =
      ConfigKey.integer(
          "braid.rpc.server.max-connections-per-host",
          512,
          0,
          1_000_000,
          "Open connections one address may hold to a server; a connection beyond it is closed "
              + "at once. 0 means no limit.");

  private static final List<ConfigKey<?>> KEYS =
      List.of(
          TRANSPORT,
          FRAME_MAX_MESSAGE,
          FRAME_MAX_PAYLOAD,
          CLIENT_CALL_TIMEOUT,
          CLIENT_CONNECT_TIMEOUT,
          CLIENT_SPIN_WAIT,
          CLIENT_MAX_OUTSTANDING,
          CLIENT_IO_THREADS,
          SERVER_IO_THREADS,
          SERVER_MAX_INFLIGHT,
          SERVER_SHUTDOWN_GRACE,
          CLIENT_IDLE_TIMEOUT,
          SERVER_HANDSHAKE_TIMEOUT,
          SERVER_IDLE_TIMEOUT,
          SERVER_MAX_CONNECTIONS_PER_HOST);

  /** For {@link java.util.ServiceLoader}; the keys themselves are static. */
  public RpcConfigKeys() {}

  /** Always {@code rpc}. */
  @Override
  public String component() {
    return "rpc";
  }

  @Override
  public List<ConfigKey<?>> keys() {
    return KEYS;
  }
}
