/**
 * CRC32C checksums of chunk data, one per 64 KiB block as data servers store them beside each
 * chunk, and CRC combination so that a checksum of a whole file or range can be composed from block
 * checksums independently of block and chunk layout. Everything here is a pure function over
 * borrowed buffers; nothing does I/O or keeps state.
 */
@NullMarked
package io.braidfs.common.checksum;

import org.jspecify.annotations.NullMarked;
