/**
 * Write leases of the metadata server: one writer per file, renewed per client, recovered by the
 * MDS when the writer goes silent. {@link io.braidfs.mds.lease.LeaseManager} holds them in memory
 * and reads time from an injected {@link io.braidfs.common.clock.Clock}; it is soft state, rebuilt
 * from the files open for writing when an MDS starts or takes over. The namespace operations
 * (create, open for writing, commit, RenewLease, RecoverLease) and the lease monitor call it.
 */
@NullMarked
package io.braidfs.mds.lease;

import org.jspecify.annotations.NullMarked;
