package io.braidfs.cli;

import java.net.InetSocketAddress;

/**
 * A {@code HOST:PORT} as the command line takes and prints it: a host name, an IPv4 address or a
 * bracketed IPv6 address ({@code [::1]:7400}), then a port from 0 to 65535 (0 picks a free port).
 *
 * <p>Thread-safety: immutable.
 *
 * @param host the host name or address, without brackets
 * @param port the port
 */
record HostPort(String host, int port) {
  /**
   * Parses {@code HOST:PORT}.
   *
   * @throws IllegalArgumentException if it is not of that form; the message quotes the text
   */
  static HostPort parse(String text) {
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
  static HostPort of(InetSocketAddress address) {
    return new HostPort(
        address.getAddress() != null
            ? address.getAddress().getHostAddress()
            : address.getHostString(),
        address.getPort());
  }

  /** {@code host:port}, with brackets around an IPv6 address. */
  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
