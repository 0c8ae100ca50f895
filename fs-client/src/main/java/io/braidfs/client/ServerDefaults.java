package io.braidfs.client;

import java.time.Duration;

/**
 * The cluster's defaults and limits, as the MDS answered them when the client connected ({@link
 * BraidClient#serverDefaults()}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param defaultLayout the layout new files get where no directory policy applies (every field set)
 * @param checksumBlockSize the bytes one CRC32C checksum covers (65536)
 * @param serverTimeNanos the MDS's clock when it answered, nanoseconds since the epoch
 * @param tokenLifetime how long capability tokens stay valid after they are issued
 * @param leaseTtl how long a write lease lasts without renewal
 * @param maxMessageBytes the largest protocol message a frame may carry, in bytes
 * @param maxPayloadBytes the largest raw payload a frame may carry, in bytes
 * @param clusterId the cluster's id, fixed when the namespace was formatted
 */
public record ServerDefaults(
    LayoutPolicy defaultLayout,
    int checksumBlockSize,
    long serverTimeNanos,
    Duration tokenLifetime,
    Duration leaseTtl,
    int maxMessageBytes,
    int maxPayloadBytes,
    String clusterId) {}
