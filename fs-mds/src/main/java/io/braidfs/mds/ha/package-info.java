/**
 * MDS high availability (ARCHITECTURE section 1): ZooKeeper elects the leader and keeps the epoch
 * and the list of journal ledgers ({@link io.braidfs.mds.ha.HaCoordinator}); the leader appends
 * every mutation to a BookKeeper ledger before applying it ({@link
 * io.braidfs.mds.ha.LedgerJournal}); standbys apply the ledgers to their own store ({@link
 * io.braidfs.mds.ha.LedgerTailer}); bookies may run inside the MDS ({@link
 * io.braidfs.mds.ha.EmbeddedBookie}). {@link io.braidfs.mds.ha.Takeover} is what a replica does
 * when it wins the election.
 */
@NullMarked
package io.braidfs.mds.ha;

import org.jspecify.annotations.NullMarked;
