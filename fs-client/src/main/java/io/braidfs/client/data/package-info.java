/**
 * The client's data path: file ranges mapped onto chunk replicas with {@code Layout}, written
 * through replica chains with many transfers in flight ({@link
 * io.braidfs.client.data.StripedWriter}, which also replaces replicas that fail mid-write) and read
 * from the nearest healthy replica with every byte's checksum verified ({@link
 * io.braidfs.client.data.StripedReader}). {@link io.braidfs.client.data.FileChecksummer} composes a
 * whole file's CRC32C from the replicas' stored CRCs. What it needs from the MDS is {@link
 * io.braidfs.client.data.ChunkService}.
 */
@NullMarked
package io.braidfs.client.data;

import org.jspecify.annotations.NullMarked;
