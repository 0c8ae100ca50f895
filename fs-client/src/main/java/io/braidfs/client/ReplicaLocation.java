package io.braidfs.client;

/**
 * Where one replica of a chunk lives: a data server and how to reach it.
 *
 * <p>Thread-safety: immutable.
 *
 * @param serverId the data server's cluster-wide id (never 0)
 * @param host the host name or IP address the data server listens on
 * @param port the data server's TCP port
 * @param rack the data server's network topology path ({@code /dc1/rack7}); empty when unknown
 */
public record ReplicaLocation(int serverId, String host, int port, String rack) {}
