package io.braidfs.client;

import java.time.Duration;
import java.util.List;

/**
 * Every data server and the cluster's totals, as the MDS sees them ({@link
 * BraidAdmin#clusterReport}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param servers every data server the MDS knows, in id order; immutable
 * @param capacityBytes the live servers' capacity, each file system counted once
 * @param usedBytes the bytes the live servers' replicas take
 * @param availableBytes the bytes the live servers have available for new replicas
 * @param liveServers data servers heard from within the dead interval
 * @param deadServers data servers known but not heard from
 * @param repairQueue chunks waiting for repair or being repaired
 * @param copiesInFlight repair copies under way
 * @param safeMode whether the MDS is in its start-up safe mode
 * @param safeModeRemaining at most how much longer safe mode lasts; zero when off
 */
public record ClusterReport(
    List<ServerReport> servers,
    long capacityBytes,
    long usedBytes,
    long availableBytes,
    int liveServers,
    int deadServers,
    long repairQueue,
    int copiesInFlight,
    boolean safeMode,
    Duration safeModeRemaining) {

  public ClusterReport {
    servers = List.copyOf(servers);
  }
}
