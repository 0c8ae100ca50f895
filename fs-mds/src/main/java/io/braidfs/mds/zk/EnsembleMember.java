package io.braidfs.mds.zk;

import io.braidfs.common.rpc.HostPort;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One member of a ZooKeeper ensemble as {@link ZooKeeperConfigKeys#SERVERS} lists it: {@code
 * N=host:peerPort:electionPort}, the right-hand side of zoo.cfg's {@code server.N=} line. Followers
 * talk to the leader on the peer port; members vote on the election port.
 *
 * <p>Thread-safety: immutable.
 *
 * @param id the member's N, from 1 to 255 (ZooKeeper's myid)
 * @param host the host the other members reach it at, and where it binds both ports
 * @param peerPort the quorum port
 * @param electionPort the leader-election port
 */
public record EnsembleMember(int id, String host, int peerPort, int electionPort) {
  /**
   * A member.
   *
   * @throws IllegalArgumentException if the id is not from 1 to 255, the host is empty, a port is
   *     not from 1 to 65535, or both ports are the same
   */
  public EnsembleMember {
    if (id < 1 || id > 255) {
      throw new IllegalArgumentException("member id " + id + " is not from 1 to 255");
    }
    if (host.isEmpty()) {
      throw new IllegalArgumentException("member " + id + " has no host");
    }
    checkPort(id, peerPort);
    checkPort(id, electionPort);
    if (peerPort == electionPort) {
      throw new IllegalArgumentException(
          "member " + id + " has the same peer and election port " + peerPort);
    }
  }

  private static void checkPort(int id, int port) {
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException(
          "member " + id + " has port " + port + ", not from 1 to 65535");
    }
  }

  /**
   * Parses {@code N=host:peerPort:electionPort}, with or without zoo.cfg's {@code server.} before
   * the N; an IPv6 host goes in brackets.
   *
   * @throws IllegalArgumentException quoting {@code text} if it is not of that form
   */
  public static EnsembleMember parse(String text) {
    String s = text.strip();
    if (s.startsWith("server.")) {
      s = s.substring("server.".length());
    }
    int equals = s.indexOf('=');
    int lastColon = s.lastIndexOf(':');
    if (equals <= 0 || lastColon < equals || !s.substring(0, equals).matches("\\d{1,3}")) {
      throw malformed(text, null);
    }
    try {
      HostPort hostAndPeer = HostPort.parse(s.substring(equals + 1, lastColon));
      String election = s.substring(lastColon + 1);
      if (!election.matches("\\d{1,5}")) {
        throw malformed(text, null);
      }
      return new EnsembleMember(
          Integer.parseInt(s.substring(0, equals)),
          hostAndPeer.host(),
          hostAndPeer.port(),
          Integer.parseInt(election));
    } catch (IllegalArgumentException e) {
      throw malformed(text, e);
    }
  }

  /**
   * Parses every entry of a {@link ZooKeeperConfigKeys#SERVERS} list.
   *
   * @throws IllegalArgumentException if an entry is malformed or two share an id
   */
  public static List<EnsembleMember> parseAll(List<String> entries) {
    List<EnsembleMember> members = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (String entry : entries) {
      EnsembleMember m = parse(entry);
      if (!ids.add(m.id())) {
        throw new IllegalArgumentException("member id " + m.id() + " is listed twice");
      }
      members.add(m);
    }
    return List.copyOf(members);
  }

  private static IllegalArgumentException malformed(
      String text, @Nullable IllegalArgumentException cause) {
    String why = cause == null ? "" : " (" + cause.getMessage() + ")";
    return new IllegalArgumentException(
        "invalid ensemble member '" + text + "': expected N=host:peerPort:electionPort" + why,
        cause);
  }

  /** The value of zoo.cfg's {@code server.N} line for this member. */
  String zooCfgValue() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return h + ":" + peerPort + ":" + electionPort;
  }

  @Override
  public String toString() {
    return id + "=" + zooCfgValue();
  }
}
