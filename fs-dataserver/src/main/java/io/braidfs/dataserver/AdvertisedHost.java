package io.braidfs.dataserver;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * Chooses the host a data server registers with the MDS, which clients and other data servers then
 * dial, and checks it before the server starts: a configured {@code
 * braid.dataserver.advertised-host} must resolve; a specific listening address is used as it is;
 * with a wildcard listening address, this machine's name is used only if every address it resolves
 * to is not loopback. Many machines map their own name to 127.0.1.1 (Debian's {@code /etc/hosts}),
 * and a server that advertised such a name would be reachable from its own host only, so the server
 * refuses to start instead and the message names the setting to set.
 *
 * <p>Thread-safety: stateless.
 */
final class AdvertisedHost {
  private AdvertisedHost() {}

  /** Name resolution, as {@link InetAddress#getAllByName} does it. */
  @FunctionalInterface
  interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /** This machine's name, as {@link InetAddress#getLocalHost()} gives it. */
  @FunctionalInterface
  interface LocalName {
    String get() throws UnknownHostException;
  }

  /** The host to advertise, resolved with the system's resolver. */
  static String choose(String configured, InetSocketAddress bound) {
    return choose(
        configured,
        bound,
        InetAddress::getAllByName,
        () -> InetAddress.getLocalHost().getHostName());
  }

  /**
   * The host to advertise for a server listening on {@code bound}.
   *
   * @param configured the value of {@code braid.dataserver.advertised-host} (blank if unset)
   * @throws IllegalArgumentException naming {@code braid.dataserver.advertised-host} if the
   *     configured host does not resolve, or the listening address is a wildcard and this machine's
   *     name does not resolve or resolves to a loopback address
   */
  static String choose(
      String configured, InetSocketAddress bound, Resolver resolver, LocalName localName) {
    String key = DataServerConfigKeys.ADVERTISED_HOST.name();
    String host = configured.strip();
    if (!host.isEmpty()) {
      try {
        resolver.resolve(host);
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException(
            key + " '" + host + "' does not resolve: " + e.getMessage(), e);
      }
      return host;
    }
    InetAddress address = bound.getAddress();
    if (address != null && !address.isAnyLocalAddress()) {
      return address.getHostAddress();
    }
    String name;
    InetAddress[] resolved;
    try {
      name = localName.get();
      resolved = resolver.resolve(name);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "listening on a wildcard address with "
              + key
              + " unset, and this machine's name does not resolve ("
              + e.getMessage()
              + "): set "
              + key
              + " to a name or address other hosts reach this server by",
          e);
    }
    if (resolved.length == 0
        || Arrays.stream(resolved).anyMatch(a -> a.isLoopbackAddress() || a.isAnyLocalAddress())) {
      throw new IllegalArgumentException(
          "listening on a wildcard address with "
              + key
              + " unset, and this machine's name '"
              + name
              + "' resolves to "
              + Arrays.toString(resolved)
              + ", which other hosts cannot reach: set "
              + key
              + " to a name or address other hosts reach this server by");
    }
    return name;
  }
}
