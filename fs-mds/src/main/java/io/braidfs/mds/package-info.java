/**
 * The Braid metadata server: the namespace kept in RocksDB, the journal, leader election and the
 * data-server registry. Clients reach it only through the protocol defined in fs-common.
 */
package io.braidfs.mds;
