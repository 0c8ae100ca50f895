/**
 * The data server's chunk store: each replica is a data file holding the chunk's bytes and a meta
 * file beside it holding the replica's version, generation, state and one CRC32C per 64 KiB block.
 * {@link io.braidfs.dataserver.store.ChunkStore} spreads replicas over one or more data directories
 * (one per disk), persists the server's identity and highest MDS epoch in each, and finds every
 * replica again at start-up. Nothing here knows about RPC or tokens.
 */
@NullMarked
package io.braidfs.dataserver.store;

import org.jspecify.annotations.NullMarked;
