package io.braidfs.common.rpc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Whether an address is one of this host's: loopback, or bound to one of its interfaces. Decides
 * which replicas a client may read from their files (short-circuit reads) and which callers a data
 * server tells where its files are.
 *
 * <p>Thread-safety: thread-safe. Answers are cached per host name for the life of the process: an
 * interface added later is not seen, which only sends such reads over the network.
 */
public final class LocalAddresses {
  private static final ConcurrentMap<String, Boolean> BY_HOST = new ConcurrentHashMap<>();

  private LocalAddresses() {}

  /** Whether {@code host} (a name or literal) resolves to an address of this host. */
  public static boolean isLocal(String host) {
    return BY_HOST.computeIfAbsent(host, LocalAddresses::resolveLocal);
  }

  /** Whether {@code address} is an internet socket address of this host. */
  public static boolean isLocal(SocketAddress address) {
    return address instanceof InetSocketAddress a
        && a.getAddress() != null
        && isLocal(a.getAddress());
  }

  /** Whether {@code address} is loopback or bound to one of this host's interfaces. */
  public static boolean isLocal(InetAddress address) {
    if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
      return true;
    }
    try {
      return NetworkInterface.getByInetAddress(address) != null;
    } catch (SocketException e) {
      return false; // cannot tell: treat as remote, which is always correct, only slower
    }
  }

  private static boolean resolveLocal(String host) {
    try {
      return isLocal(InetAddress.getByName(host));
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
