package io.braidfs.client;

/**
 * One MDS as it sees itself ({@link MdsProbe#status}, {@code braid admin ha}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param replicaId its {@code braid.mds.id}
 * @param address its RPC address ({@code host:port}) as HA replicas name each other in the
 *     election; empty if it does not listen yet
 * @param role what it is doing
 * @param epoch the leader epoch it serves under; 0 unless its role {@link MdsRole#serves() serves}
 * @param journalIndex the index of the last journal record in its store (a leader: the last it sent
 *     to its journal); a standby's is behind the leader's by the records it has yet to apply
 * @param leaderHint {@code host:port} of the leader as the election names it; empty when none is
 *     known, and for a lone MDS
 * @param clusterId the cluster its store belongs to; empty before it has the namespace's first
 *     record
 */
public record MdsStatus(
    String replicaId,
    String address,
    MdsRole role,
    long epoch,
    long journalIndex,
    String leaderHint,
    String clusterId) {}
