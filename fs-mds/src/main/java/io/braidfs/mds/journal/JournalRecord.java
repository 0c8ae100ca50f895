package io.braidfs.mds.journal;

import io.braidfs.mds.store.StoreBatch;

/**
 * One journal record: a mutation's writes, decided in full by the leader.
 *
 * @param index the record's position in the journal, from 1
 * @param operation the mutation's name for logs and tools
 * @param timeNs the leader's clock when it built the record, nanoseconds since the epoch
 * @param batch the writes, applied atomically
 */
public record JournalRecord(long index, String operation, long timeNs, StoreBatch batch) {}
