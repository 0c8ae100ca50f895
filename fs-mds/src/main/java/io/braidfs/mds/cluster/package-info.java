/**
 * The MDS's view of the data servers: {@link io.braidfs.mds.cluster.DataServerRegistry} registers
 * them, records their heartbeats and decides who is live, and {@link
 * io.braidfs.mds.cluster.ChunkPlacement} chooses the servers (and the write-chain order) for the
 * replicas of new chunks and of failed ones. Both are pure logic driven by an injected {@link
 * io.braidfs.common.clock.Clock} and {@link java.util.Random}; the RPC handlers and the store wire
 * them in. Their settings are the {@code braid.mds.cluster.*} keys of {@link
 * io.braidfs.mds.cluster.MdsClusterConfigKeys}.
 */
@NullMarked
package io.braidfs.mds.cluster;

import org.jspecify.annotations.NullMarked;
