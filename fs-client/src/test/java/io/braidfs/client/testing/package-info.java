/**
 * Test tools beyond the MiniCluster, shared through fs-client's test-jar: a user-space WAN link
 * emulator (delay and rate on loopback TCP) for benchmarks and tests that need distance between the
 * client and the servers.
 */
package io.braidfs.client.testing;
