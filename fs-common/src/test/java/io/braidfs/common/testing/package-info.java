/**
 * Test support shared through fs-common's test-jar: the Netty leak gate, polling waits instead of
 * sleeps, and raw frames built byte by byte for feeding decoders and sockets bad input.
 */
package io.braidfs.common.testing;
