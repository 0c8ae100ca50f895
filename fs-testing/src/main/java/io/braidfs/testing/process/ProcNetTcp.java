package io.braidfs.testing.process;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Listening sockets from the text of {@code /proc/net/tcp} and {@code /proc/net/tcp6}: rows whose
 * state is {@code 0A} (LISTEN), their local address decoded. The kernel prints each 32-bit word of
 * an address as a number in the machine's byte order.
 *
 * <p>Thread-safety: stateless.
 */
final class ProcNetTcp {
  private static final String LISTEN = "0A";

  private ProcNetTcp() {}

  /** {@code ADDRESS:PORT} of every listening socket in {@code text} (IPv6 in brackets). */
  static List<String> listening(String text) {
    List<String> out = new ArrayList<>();
    for (String line : text.lines().toList()) {
      String[] f = line.strip().split("\\s+");
      // sl local_address rem_address st ...; the header row has "local_address" there.
      if (f.length < 4 || !f[0].endsWith(":") || !f[3].equals(LISTEN)) {
        continue;
      }
      String[] local = f[1].split(":");
      String address = address(local[0]);
      int port = Integer.parseInt(local[1], 16);
      out.add((address.contains(":") ? "[" + address + "]" : address) + ":" + port);
    }
    return out;
  }

  private static String address(String hex) {
    byte[] raw = HexFormat.of().parseHex(hex);
    if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
      for (int w = 0; w < raw.length; w += 4) {
        byte t = raw[w];
        raw[w] = raw[w + 3];
        raw[w + 3] = t;
        t = raw[w + 1];
        raw[w + 1] = raw[w + 2];
        raw[w + 2] = t;
      }
    }
    try {
      return InetAddress.getByAddress(raw).getHostAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an address: " + hex, e);
    }
  }
}
