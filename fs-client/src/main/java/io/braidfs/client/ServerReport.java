package io.braidfs.client;

import java.time.Duration;

/**
 * One data server as the MDS sees it ({@link BraidAdmin#clusterReport}, {@link
 * BraidAdmin#setServerState}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param serverId the server's cluster-wide id
 * @param host the host name or address it advertises
 * @param port its data port
 * @param rack its network topology path ({@code /default-rack} when none is configured)
 * @param live whether the MDS heard from it within the dead interval
 * @param state its state as an operator set it
 * @param capacityBytes the bytes its data directories may hold
 * @param usedBytes the bytes its replicas take
 * @param availableBytes the bytes still available for new replicas
 * @param replicas the replicas it reported holding
 * @param sinceHeartbeat the time since its last heartbeat reached the MDS
 * @param failedDataDirs its data directories taken out of service
 * @param copiesInFlight repair copies to or from it under way
 * @param dataDirs its data directories
 */
public record ServerReport(
    int serverId,
    String host,
    int port,
    String rack,
    boolean live,
    ServerState state,
    long capacityBytes,
    long usedBytes,
    long availableBytes,
    long replicas,
    Duration sinceHeartbeat,
    int failedDataDirs,
    int copiesInFlight,
    int dataDirs) {

  /** {@code host:port}, with an IPv6 host in brackets. */
  public String address() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
