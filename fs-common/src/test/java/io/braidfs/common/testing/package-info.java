/**
 * Test support shared through fs-common's test-jar: the Netty leak gate, and raw frames built byte
 * by byte for feeding decoders and sockets bad input. The test bench (MiniCluster, Await,
 * ManualClock) is the fs-testing module.
 */
package io.braidfs.common.testing;
