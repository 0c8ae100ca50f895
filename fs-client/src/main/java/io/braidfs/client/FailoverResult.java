package io.braidfs.client;

/**
 * The leader that handed leadership over ({@link BraidAdmin#failover}); the next leader serves
 * under an epoch above {@link #epoch()}.
 *
 * <p>Thread-safety: immutable.
 *
 * @param replicaId its {@code braid.mds.id}
 * @param address its RPC address as the election names it ({@link MdsStatus#address()})
 * @param epoch the epoch it led under
 */
public record FailoverResult(String replicaId, String address, long epoch) {}
