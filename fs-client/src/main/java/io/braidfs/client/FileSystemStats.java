package io.braidfs.client;

/**
 * Capacity and usage of the whole file system ({@link BraidClient#statFs()}): what users can store
 * (the raw figures divided by the replication at the root: statfs(2), df) and the raw figures with
 * every replica counted (Hadoop's getStatus). A disk several data servers share counts once.
 *
 * <p>Thread-safety: immutable.
 *
 * @param capacityBytes capacity for file data in bytes: {@code rawCapacityBytes / replication}
 * @param usedBytes file data stored in bytes: {@code rawUsedBytes / replication}
 * @param availableBytes file data that can still be stored in bytes: {@code rawAvailableBytes /
 *     replication}
 * @param inodeCount the number of inodes in the namespace
 * @param maxInodes the most inodes the namespace may hold; 0 means no fixed limit
 * @param maxNameBytes the longest allowed name component in bytes (255)
 * @param liveDataServers the number of data servers live now
 * @param rawCapacityBytes the bytes the live data servers' file systems give Braid
 * @param rawUsedBytes the bytes of chunk replicas (data and checksums) on the live data servers
 * @param rawAvailableBytes the bytes still available for new replicas on the live data servers
 * @param replication the divisor of the first three figures: the replication new files get at the
 *     root
 */
public record FileSystemStats(
    long capacityBytes,
    long usedBytes,
    long availableBytes,
    long inodeCount,
    long maxInodes,
    int maxNameBytes,
    int liveDataServers,
    long rawCapacityBytes,
    long rawUsedBytes,
    long rawAvailableBytes,
    int replication) {}
