/**
 * Internal: the client's data path, not API (OkHttp's convention: a public type here may change or
 * go in any release; only {@code io.braidfs.client} is API). File ranges are mapped onto chunk
 * replicas with {@code Layout}, written through replica chains with many transfers in flight
 * ({@link io.braidfs.client.internal.data.StripedWriter}, which also replaces replicas that fail
 * mid-write) and read from the nearest healthy replica with every byte's checksum verified ({@link
 * io.braidfs.client.internal.data.StripedReader}), sequential readers through a read-ahead window
 * ({@link io.braidfs.client.internal.data.ReadAhead}) whose memory a client's streams share ({@link
 * io.braidfs.client.internal.data.PrefetchBudget}). {@link
 * io.braidfs.client.internal.data.FileChecksummer} composes a whole file's CRC32C from the
 * replicas' stored CRCs. What the data path needs from the MDS is {@link
 * io.braidfs.client.internal.data.ChunkService}. Members are public where the API package or tests
 * in other packages use them.
 */
@NullMarked
package io.braidfs.client.internal.data;

import org.jspecify.annotations.NullMarked;
