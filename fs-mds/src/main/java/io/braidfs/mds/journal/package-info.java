/**
 * The MDS journal: the ordered, durable log of mutations that the store applies, behind the {@link
 * io.braidfs.mds.journal.Journal} interface so that the single-MDS RocksDB WAL and a replicated
 * journal are interchangeable. {@link io.braidfs.mds.journal.WalJournal} is the single-MDS journal
 * (the store's own RocksDB WAL, with group commit), and {@link
 * io.braidfs.mds.journal.JournalReplayer} rebuilds a store from a journal.
 */
@NullMarked
package io.braidfs.mds.journal;

import org.jspecify.annotations.NullMarked;
