package io.braidfs.common.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Who may act for whom (Hadoop's proxy users): a service such as a gateway, authenticated as
 * itself, may name another user in its Hello if a rule of {@code braid.security.proxy-users} allows
 * it: the connection comes from one of the rule's hosts, and the user is one of its users or in one
 * of its groups. With no rule for the service, it may act for nobody but itself.
 *
 * <p>Syntax: rules separated by ';', each the service's user name followed by {@code hosts=...},
 * {@code users=...} and {@code groups=...}, each a comma-separated list or {@code *}; hosts are
 * addresses, CIDR blocks or names (looked up when the rules are read). Example: {@code gateway
 * hosts=10.1.0.0/16 groups=staff; oozie hosts=oozie1.example.com users=*}.
 *
 * <p>Thread-safety: immutable.
 */
final class ProxyUsers {
  private record Block(byte[] network, int bits) {
    boolean contains(InetAddress a) {
      byte[] b = a.getAddress();
      if (b.length != network.length) {
        return false;
      }
      for (int i = 0; i < bits; i++) {
        int mask = 0x80 >>> (i % 8);
        if ((b[i / 8] & mask) != (network[i / 8] & mask)) {
          return false;
        }
      }
      return true;
    }
  }

  private record Rule(
      boolean anyHost,
      List<Block> hosts,
      boolean anyUser,
      Set<String> users,
      boolean anyGroup,
      Set<String> groups) {}

  private final Map<String, Rule> rules;

  private ProxyUsers(Map<String, Rule> rules) {
    this.rules = Map.copyOf(rules);
  }

  /**
   * Parses the rules.
   *
   * @throws IllegalArgumentException naming the rule or host that does not parse
   */
  static ProxyUsers parse(String spec) {
    Map<String, Rule> rules = new HashMap<>();
    for (String text : spec.split(";")) {
      String[] words = text.trim().split("\\s+");
      if (words.length == 0 || words[0].isEmpty()) {
        continue;
      }
      boolean anyHost = false;
      List<Block> hosts = new ArrayList<>();
      boolean anyUser = false;
      Set<String> users = new HashSet<>();
      boolean anyGroup = false;
      Set<String> groups = new HashSet<>();
      for (int i = 1; i < words.length; i++) {
        int eq = words[i].indexOf('=');
        String key = eq < 0 ? words[i] : words[i].substring(0, eq);
        List<String> values = eq < 0 ? List.of() : list(words[i].substring(eq + 1));
        switch (key) {
          case "hosts" -> {
            anyHost |= values.contains("*");
            for (String v : values) {
              if (!v.equals("*")) {
                hosts.addAll(blocks(v, text));
              }
            }
          }
          case "users" -> {
            anyUser |= values.contains("*");
            users.addAll(values);
          }
          case "groups" -> {
            anyGroup |= values.contains("*");
            groups.addAll(values);
          }
          default ->
              throw new IllegalArgumentException(
                  "braid.security.proxy-users: '"
                      + words[i]
                      + "' in '"
                      + text.trim()
                      + "' is not hosts=, users= or groups=");
        }
      }
      if (rules.put(words[0], new Rule(anyHost, hosts, anyUser, users, anyGroup, groups)) != null) {
        throw new IllegalArgumentException(
            "braid.security.proxy-users: two rules for " + words[0] + "; put them in one");
      }
    }
    return new ProxyUsers(rules);
  }

  private static List<String> list(String csv) {
    List<String> out = new ArrayList<>();
    for (String v : csv.split(",")) {
      if (!v.isBlank()) {
        out.add(v.trim());
      }
    }
    return out;
  }

  private static List<Block> blocks(String host, String rule) {
    try {
      int slash = host.indexOf('/');
      if (slash >= 0) {
        byte[] network = InetAddress.getByName(host.substring(0, slash)).getAddress();
        int bits = Integer.parseInt(host.substring(slash + 1));
        if (bits < 0 || bits > network.length * 8) {
          throw new NumberFormatException("prefix length " + bits);
        }
        return List.of(new Block(network, bits));
      }
      List<Block> out = new ArrayList<>();
      for (InetAddress a : InetAddress.getAllByName(host)) {
        out.add(new Block(a.getAddress(), a.getAddress().length * 8));
      }
      return out;
    } catch (UnknownHostException | NumberFormatException e) {
      throw new IllegalArgumentException(
          "braid.security.proxy-users: host '" + host + "' in '" + rule.trim() + "': " + e, e);
    }
  }

  /**
   * Why {@code service} may not act for {@code user} (whose groups are {@code userGroups}) on a
   * connection from {@code from}; null if it may.
   */
  @Nullable String refusal(
      String service, String user, Supplier<List<String>> userGroups, InetAddress from) {
    Rule r = rules.get(service);
    if (r == null) {
      return service + " is not a proxy user (braid.security.proxy-users)";
    }
    if (!r.anyHost() && r.hosts().stream().noneMatch(b -> b.contains(from))) {
      return service + " may act for others only from its hosts, not from " + from.getHostAddress();
    }
    boolean byUser = r.anyUser() || r.users().contains(user);
    // Groups are looked up only when the user and the host did not settle it.
    boolean byGroup =
        !byUser
            && (r.anyGroup()
                || (!r.groups().isEmpty()
                    && userGroups.get().stream().anyMatch(r.groups()::contains)));
    if (!byUser && !byGroup) {
      return service + " may not act for " + user + " (neither among its users nor in its groups)";
    }
    return null;
  }
}
