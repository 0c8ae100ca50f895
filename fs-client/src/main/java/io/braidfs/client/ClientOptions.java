package io.braidfs.client;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.HostPort;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's settings, read once from a {@link BraidConfig} ({@link ClientConfigKeys}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param mds the address of every MDS, in the order they are tried
 * @param failoverTimeout how long a metadata call retries while no MDS answers as leader
 * @param clusterId the cluster every server must belong to; empty: the first one a server names
 * @param attrTtl how long cached attributes are reused; zero turns the cache off
 * @param cacheEntries the most paths whose attributes are cached
 * @param writeBehind per output stream, the most bytes in flight to data servers
 * @param prefetch whether sequential readers read ahead
 * @param fixedWindow a fixed read-ahead window in bytes, or 0 for the automatic one
 * @param maxWindow the largest automatic window in bytes
 * @param prefetchBlock bytes per read-ahead request
 * @param prefetchBudget bytes all streams of the client may hold in read-ahead
 * @param umask permission bits removed from new files and directories
 * @param creatorGroup whether new inodes take the client's first group (else their directory's)
 * @param shortCircuit whether replicas on this host are read from their files (short-circuit)
 * @param data the data path's tunables (in-flight limit derived from {@code writeBehind})
 */
public record ClientOptions(
    List<InetSocketAddress> mds,
    Duration failoverTimeout,
    String clusterId,
    Duration attrTtl,
    int cacheEntries,
    long writeBehind,
    boolean prefetch,
    long fixedWindow,
    long maxWindow,
    int prefetchBlock,
    long prefetchBudget,
    int umask,
    boolean creatorGroup,
    boolean shortCircuit,
    DataPathOptions data) {

  /**
   * Reads the options.
   *
   * @throws IllegalArgumentException naming the key whose value is invalid
   */
  public static ClientOptions from(BraidConfig config) {
    List<InetSocketAddress> mds = new ArrayList<>();
    for (String a : config.get(ClientConfigKeys.MDS)) {
      mds.add(HostPort.parseSetting(ClientConfigKeys.MDS.name(), a));
    }
    long writeBehind = config.get(ClientConfigKeys.WRITE_BEHIND).toBytes();
    int maxTransfer =
        bytes(
            ClientConfigKeys.MAX_TRANSFER.name(),
            config.get(ClientConfigKeys.MAX_TRANSFER).toBytes());
    if (maxTransfer % (64 << 10) != 0) {
      throw new IllegalArgumentException(
          ClientConfigKeys.MAX_TRANSFER.name() + " must be a multiple of 64 KiB: " + maxTransfer);
    }
    if (writeBehind < maxTransfer) {
      throw new IllegalArgumentException(
          ClientConfigKeys.WRITE_BEHIND.name()
              + " ("
              + writeBehind
              + " bytes) must hold at least one transfer of "
              + ClientConfigKeys.MAX_TRANSFER.name()
              + " ("
              + maxTransfer
              + " bytes)");
    }
    int block =
        bytes(
            ClientConfigKeys.PREFETCH_BLOCK.name(),
            config.get(ClientConfigKeys.PREFETCH_BLOCK).toBytes());
    if (block < (64 << 10) || block % (64 << 10) != 0) {
      throw new IllegalArgumentException(
          ClientConfigKeys.PREFETCH_BLOCK.name()
              + " must be a positive multiple of 64 KiB: "
              + block);
    }
    String umaskText = config.get(ClientConfigKeys.UMASK).strip();
    int umask;
    try {
      umask = Integer.parseInt(umaskText, 8);
    } catch (NumberFormatException e) {
      umask = -1;
    }
    if (umask < 0 || umask > 0777) {
      throw new IllegalArgumentException(
          ClientConfigKeys.UMASK.name() + " must be octal 000 to 777: \"" + umaskText + "\"");
    }
    // In flight per stream: what the write-behind buffer holds, in transfers of the largest size.
    int inFlight = (int) Math.max(1, Math.min(1024, writeBehind / maxTransfer));
    return new ClientOptions(
        mds,
        config.get(ClientConfigKeys.FAILOVER_TIMEOUT),
        config.get(ClientConfigKeys.CLUSTER_ID).strip(),
        config.get(ClientConfigKeys.ATTR_TTL),
        config.get(ClientConfigKeys.CACHE_ENTRIES),
        writeBehind,
        config.get(ClientConfigKeys.PREFETCH),
        config.get(ClientConfigKeys.PREFETCH_WINDOW).toBytes(),
        Math.max(block, config.get(ClientConfigKeys.PREFETCH_MAX_WINDOW).toBytes()),
        block,
        config.get(ClientConfigKeys.PREFETCH_BUDGET).toBytes(),
        umask,
        config.get(ClientConfigKeys.CREATOR_GROUP),
        config.get(ClientConfigKeys.SHORT_CIRCUIT),
        new DataPathOptions(
            maxTransfer,
            inFlight,
            config.get(ClientConfigKeys.DATA_TIMEOUT),
            config.get(ClientConfigKeys.MAX_REPLACEMENTS),
            config.get(ClientConfigKeys.SYNC_ON_CLOSE)));
  }

  private static int bytes(String key, long value) {
    if (value <= 0 || value > (1 << 30)) {
      throw new IllegalArgumentException(key + " must be between 1 byte and 1 GiB: " + value);
    }
    return (int) value;
  }

  public ClientOptions {
    mds = List.copyOf(mds);
    if (mds.isEmpty()) {
      throw new IllegalArgumentException(ClientConfigKeys.MDS.name() + " names no MDS");
    }
  }
}
