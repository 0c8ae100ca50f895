/**
 * The MDS journal: the ordered, durable log of mutations that the store applies, behind the {@link
 * io.braidfs.mds.journal.Journal} interface so that the single-MDS RocksDB WAL and a replicated
 * journal are interchangeable.
 */
@NullMarked
package io.braidfs.mds.journal;

import org.jspecify.annotations.NullMarked;
