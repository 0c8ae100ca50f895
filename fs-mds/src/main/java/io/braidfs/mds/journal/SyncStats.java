package io.braidfs.mds.journal;

/**
 * What a journal's group commit did since it started: how many syncs, how many records they made
 * durable, and how long they took in total. The figures HDFS's NameNode reports as {@code Syncs}
 * and {@code TransactionsBatchedInSync}: the mean sync time is the disk's cost of durability, and
 * records per sync show how well concurrent mutations share it. Two snapshots give an interval
 * ({@link #minus}).
 *
 * <p>Thread-safety: immutable.
 *
 * @param syncs completed syncs (not one that completed after the journal had failed)
 * @param records records made durable by them (barriers and empty syncs add none)
 * @param nanos total time spent in them
 */
public record SyncStats(long syncs, long records, long nanos) {
  /** Nothing synced yet. */
  public static final SyncStats NONE = new SyncStats(0, 0, 0);

  /** These figures with one more sync of {@code synced} records that took {@code tookNanos}. */
  SyncStats plus(long synced, long tookNanos) {
    return new SyncStats(syncs + 1, records + synced, nanos + tookNanos);
  }

  /** What happened between {@code earlier} and these figures. */
  public SyncStats minus(SyncStats earlier) {
    return new SyncStats(syncs - earlier.syncs, records - earlier.records, nanos - earlier.nanos);
  }

  /** The mean time of one sync in microseconds, 0 without syncs. */
  public double meanSyncMicros() {
    return syncs == 0 ? 0 : nanos / 1e3 / syncs;
  }

  /** The mean number of records one sync made durable, 0 without syncs. */
  public double recordsPerSync() {
    return syncs == 0 ? 0 : (double) records / syncs;
  }
}
