/**
 * The metadata server's storage layer: one RocksDB per MDS replica, holding the namespace in the
 * column families of {@link io.braidfs.mds.store.ColumnFamily} under the big-endian keys of {@link
 * io.braidfs.mds.store.Keys}. {@link io.braidfs.mds.store.MetadataStore} is the contract (point
 * reads, paged prefix scans, atomic batches that also record the applied journal index, snapshots,
 * checkpoints), {@link io.braidfs.mds.store.RocksMetadataStore} its RocksDB implementation, and
 * {@link io.braidfs.mds.store.GroupCommitter} shares one WAL sync among concurrent mutations. This
 * is the only package that may import {@code org.rocksdb}; every native object it creates goes
 * through {@link io.braidfs.mds.store.ManagedNatives}, which tracks what is left open. Values are
 * opaque bytes here; the namespace layer defines their encodings.
 */
@NullMarked
package io.braidfs.mds.store;

import org.jspecify.annotations.NullMarked;
