package io.braidfs.client;

/**
 * Counters of one input stream's reads, for tests, benchmarks and tuning.
 *
 * <p>Thread-safety: immutable (a snapshot).
 *
 * @param bytesAsked bytes the application asked for (and got)
 * @param bytesFetched bytes fetched from data servers, on demand and ahead
 * @param bytesWasted bytes fetched ahead and dropped unread (a seek away, or close)
 * @param window the read-ahead window now, in bytes (0 when not reading sequentially)
 * @param stalls reads that had to wait for bytes fetched ahead, or fetch them on demand
 */
public record StreamStats(
    long bytesAsked, long bytesFetched, long bytesWasted, long window, long stalls) {}
