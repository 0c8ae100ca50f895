package io.braidfs.client;

/**
 * Counters of a client's short-circuit reads: replicas on this host read from their files instead
 * of over the network ({@link BraidClient#shortCircuitStats()}).
 *
 * <p>Thread-safety: immutable (a snapshot).
 *
 * @param enabled whether reads may be served from local files at all ({@code
 *     braid.client.read.short-circuit})
 * @param localReads reads served from local files so far
 * @param localBytes bytes served from local files so far
 * @param fallbacks reads tried locally that went over the network after all
 */
public record ShortCircuitStats(
    boolean enabled, long localReads, long localBytes, long fallbacks) {}
