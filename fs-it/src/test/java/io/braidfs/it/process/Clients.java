package io.braidfs.it.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.testing.process.CommandResult;
import io.braidfs.testing.process.Host;
import io.braidfs.testing.process.ProcessCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What the process-cluster tests run on their hosts: {@link ClientMain} and {@code braid} commands,
 * with their output parsed.
 *
 * <p>Thread-safety: stateless.
 */
final class Clients {
  static final Duration CLIENT_TIMEOUT = Duration.ofMinutes(3);

  private Clients() {}

  /** A chunk and its replicas as {@code HOST:PORT}, in the order the MDS gave them. */
  record Chunk(long inode, int index, List<String> replicas) {}

  /** Data server name to its {@code HOST:PORT}: its own host's address. */
  static Map<String, String> dataServerAddresses(ProcessCluster c) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Host h : c.dataServerHosts()) {
      out.put(h.name(), h.address() + ":" + ProcessCluster.DATA_SERVER_PORT);
    }
    return out;
  }

  /** Runs {@link ClientMain} on {@code host}; returns its result line's pairs. */
  static Map<String, String> client(ProcessCluster c, String host, String... args)
      throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of(c.mdsAddress()));
    all.addAll(List.of(args));
    CommandResult r = c.java(host, CLIENT_TIMEOUT, ClientMain.class, all.toArray(String[]::new));
    assertThat(r.exitCode()).as("ClientMain %s on %s; stderr:\n%s", all, host, r.stderr()).isZero();
    assertThat(r.lines()).as("ClientMain %s on %s", all, host).hasSize(1);
    return pairs(r.lines().get(0));
  }

  static List<Chunk> locations(ProcessCluster c, String host, String path)
      throws IOException, InterruptedException {
    CommandResult r =
        c.java(host, CLIENT_TIMEOUT, ClientMain.class, c.mdsAddress(), "locations", path);
    assertThat(r.exitCode()).as("locations on %s; stderr:\n%s", host, r.stderr()).isZero();
    Map<String, Integer> ids = new HashMap<>();
    for (Host h : c.dataServerHosts()) {
      ids.put(h.address() + ":" + ProcessCluster.DATA_SERVER_PORT, c.serverId(h.name()));
    }
    List<Chunk> chunks = new ArrayList<>();
    for (String line : r.lines()) {
      if (!line.startsWith("chunk ")) {
        continue;
      }
      Map<String, String> p = pairs(line);
      List<String> replicas = new ArrayList<>();
      for (String replica : p.get("replicas").split(",")) {
        String[] hostAndId = replica.split("/");
        // The id the MDS names is the one the server at that address registered as.
        assertThat(ids.get(hostAndId[0]))
            .as("server id of %s in %s", hostAndId[0], line)
            .isEqualTo(Integer.valueOf(hostAndId[1]));
        replicas.add(hostAndId[0]);
      }
      chunks.add(
          new Chunk(Long.parseLong(p.get("inode")), Integer.parseInt(p.get("index")), replicas));
    }
    return chunks;
  }

  /** The files of {@code chunk}'s replica in data server {@code ds}'s directory. */
  static List<Path> replicaFiles(ProcessCluster c, String ds, Chunk chunk) throws IOException {
    String name = chunk.inode() + "_" + chunk.index() + ".data";
    try (Stream<Path> files = Files.walk(c.dataDir(ds))) {
      return files.filter(f -> f.getFileName().toString().equals(name)).toList();
    }
  }

  static void braid(ProcessCluster c, String... args) throws IOException, InterruptedException {
    CommandResult r = c.braid("client", CLIENT_TIMEOUT, args);
    assertThat(r.exitCode()).as("braid %s; stderr:\n%s", List.of(args), r.stderr()).isZero();
  }

  static Map<String, String> pairs(String line) {
    Map<String, String> out = new HashMap<>();
    Set<String> seen = new HashSet<>();
    for (String token : line.split(" ")) {
      int eq = token.indexOf('=');
      if (eq > 0 && seen.add(token.substring(0, eq))) {
        out.put(token.substring(0, eq), token.substring(eq + 1));
      }
    }
    return out;
  }
}
