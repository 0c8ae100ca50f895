/**
 * The Braid data server: chunk replicas on local disks with CRC32C checksums, served to clients
 * directly and replicated along write chains. It trusts only capability tokens signed by the MDS.
 * {@link io.braidfs.dataserver.DataServer} wires the store, the DataService handlers (the write
 * chain, reads and copies) and the link to the MDS.
 */
@NullMarked
package io.braidfs.dataserver;

import org.jspecify.annotations.NullMarked;
