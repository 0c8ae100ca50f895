/**
 * The metadata server's storage layer: one RocksDB per MDS replica, holding the namespace in the
 * column families of {@link io.braidfs.mds.store.ColumnFamily} under the big-endian keys of {@link
 * io.braidfs.mds.store.Keys}. {@link io.braidfs.mds.store.MetadataStore} is the contract (point
 * reads, paged prefix scans, atomic batches that also record the applied journal index, WAL syncs,
 * snapshots, checkpoints) and {@link io.braidfs.mds.store.RocksMetadataStore} its RocksDB
 * implementation; the journal ({@code io.braidfs.mds.journal}) is the store's only writer. This is
 * the only package that may import {@code org.rocksdb}; every native object it creates goes through
 * {@link io.braidfs.mds.store.ManagedNatives}, which tracks what is left open. The store treats
 * values as opaque bytes; {@link io.braidfs.mds.store.Records} encodes them ({@code store.proto}),
 * journal records included.
 */
@NullMarked
package io.braidfs.mds.store;

import org.jspecify.annotations.NullMarked;
