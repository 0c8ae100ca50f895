package io.braidfs.common.rpc;

import java.net.InetSocketAddress;

/**
 * A {@code HOST:PORT} as configuration and the command line take and print it: a host name, an IPv4
 * address or a bracketed IPv6 address ({@code [::1]:7400}), then a port from 0 to 65535 (0 picks a
 * free port).
 *
 * <p>Thread-safety: immutable.
 *
 * @param host the host name or address, without brackets
 * @param port the port
 */
public record HostPort(String host, int port) {
  /**
   * Parses {@code HOST:PORT}.
   *
   * @throws IllegalArgumentException if it is not of that form; the message quotes the text
   */
  public static HostPort parse(String text) {
    String s = text.strip();
    int colon = s.lastIndexOf(':');
    String host = colon > 0 ? s.substring(0, colon) : "";
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.contains(":")) {
      host = ""; // an IPv6 address needs brackets, or the port cannot be told apart
    }
    int port = -1;
    if (colon > 0 && s.substring(colon + 1).matches("\\d{1,5}")) {
      port = Integer.parseInt(s.substring(colon + 1));
    }
    if (host.isEmpty() || port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          "invalid address '" + text + "': expected HOST:PORT with a port from 0 to 65535");
    }
    return new HostPort(host, port);
  }

  /** The host and port of a bound socket address, by literal address. */
  public static HostPort of(InetSocketAddress address) {
    return new HostPort(
        address.getAddress() != null
            ? address.getAddress().getHostAddress()
            : address.getHostString(),
        address.getPort());
  }

  /**
   * Parses a comma-separated list of {@code HOST:PORT}s.
   *
   * @throws IllegalArgumentException if the list is empty or an element is not of that form
   */
  public static java.util.List<HostPort> parseList(String text) {
    java.util.List<HostPort> out = new java.util.ArrayList<>();
    for (String part : text.split(",", -1)) {
      out.add(parse(part));
    }
    return java.util.List.copyOf(out);
  }

  /**
   * Parses the value of configuration key {@code key} into a socket address.
   *
   * @throws IllegalArgumentException naming the key if the value is not {@code HOST:PORT}
   */
  public static InetSocketAddress parseSetting(String key, String text) {
    try {
      return parse(text).toSocketAddress();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
    }
  }

  /** Where a data server's replica is served: its DataService address. */
  public static InetSocketAddress of(io.braidfs.proto.ReplicaLocation replica) {
    return new InetSocketAddress(replica.getHost(), replica.getPort());
  }

  /** The socket address, with the host name resolved now (unresolved if that fails). */
  public InetSocketAddress toSocketAddress() {
    return new InetSocketAddress(host, port);
  }

  /** {@code host:port}, with brackets around an IPv6 address. */
  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
