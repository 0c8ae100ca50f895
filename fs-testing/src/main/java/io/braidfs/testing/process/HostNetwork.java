package io.braidfs.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One run's simulated network: hosts, each a Linux network namespace with its own IPv4 address,
 * cabled by veth pairs to one bridge that lives in a namespace of its own (the switch). Nothing is
 * added to the machine's own namespace, so the run's traffic never meets the machine's firewall
 * (Docker's FORWARD DROP with {@code br_netfilter}) or its addresses, and {@code 0.0.0.0} inside a
 * host means that host's addresses only.
 *
 * <p>Names and addresses are unique per run on a machine: a run claims a number N (0 to 16383) by
 * creating {@code /run/braid-process-cluster/N} (exclusive create), names its namespaces {@code
 * braid-N-HOST} ({@code braid-N-net} for the switch) and uses the /24 {@code 10.(64 + N / 256).(N %
 * 256).0}, hosts from {@code .2} on. Interface names live inside the run's namespaces, so they
 * cannot collide with another run's. The claim file names the owning process; a run whose owner has
 * died (a test JVM killed with SIGKILL) is cleaned up by the next run that starts: the processes in
 * its namespaces are killed and the namespaces deleted.
 *
 * <p>Link faults act on the switch's end of a host's cable: {@link #linkDown} is a pulled cable
 * (the host keeps its address and routes, its packets are dropped silently, so TCP retransmits
 * until {@link #linkUp}).
 *
 * <p>Needs root and iproute2; {@link #unavailableReason()} says why a machine cannot run it.
 *
 * <p>Thread-safety: not thread-safe; one thread sets it up, injects faults and closes it.
 */
public final class HostNetwork implements AutoCloseable {
  /** Where runs claim their numbers; /run is a tmpfs, emptied at boot as /run/netns is. */
  private static final Path CLAIMS = Path.of("/run/braid-process-cluster");

  private static final int RUNS = 16384;
  private static final Pattern HOST_NAME = Pattern.compile("[a-z][a-z0-9]{0,9}");
  private static final String SWITCH = "net";
  private static final String BRIDGE = "br0";
  private static final Duration PROCESSES_GONE = Duration.ofSeconds(15);

  /** Names of the namespaces {@link #unavailableReason()} makes: this prefix, pid, number. */
  private static final String PROBE = "braid-probe-";

  private static final AtomicInteger PROBES = new AtomicInteger();

  private final String ip;
  private final int run;
  private final Path claim;
  private final String subnet;
  private final Map<String, Host> hosts = new LinkedHashMap<>();

  /** Namespaces made so far, in order; close deletes them in reverse. */
  private final List<String> namespaces = new ArrayList<>();

  private boolean closed;

  private HostNetwork(String ip, int run, Path claim) {
    this.ip = ip;
    this.run = run;
    this.claim = claim;
    this.subnet = "10." + (64 + run / 256) + "." + (run % 256) + ".";
  }

  /**
   * Why this machine cannot make the network, or empty if it can: not Linux, no {@code ip}, not
   * root, or a network namespace cannot be made and entered (a container without the privilege).
   */
  public static Optional<String> unavailableReason() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return Optional.of("network namespaces need Linux, this is " + System.getProperty("os.name"));
    }
    Path ipPath = Commands.ip();
    if (ipPath == null) {
      return Optional.of("no ip command (install iproute2)");
    }
    if (!isRoot()) {
      return Optional.of("making network namespaces needs root");
    }
    String probe = PROBE + ProcessHandle.current().pid() + "-" + PROBES.incrementAndGet();
    String ip = ipPath.toString();
    try {
      Commands.check(List.of(ip, "netns", "add", probe));
      try {
        Commands.check(List.of(ip, "netns", "exec", probe, "true"));
        Commands.check(List.of(ip, "-n", probe, "link", "add", "p0", "type", "veth"));
      } finally {
        Commands.check(List.of(ip, "netns", "del", probe));
      }
    } catch (IOException e) {
      return Optional.of("cannot make and enter a network namespace: " + e.getMessage());
    }
    return Optional.empty();
  }

  private static boolean isRoot() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          String[] f = line.split("\\s+");
          return f.length > 2 && f[2].equals("0"); // effective uid
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  /**
   * Claims a run number and makes the switch: a namespace holding the bridge. Cleans up first after
   * runs whose owner has died.
   *
   * @throws IOException if {@code ip} fails (see {@link #unavailableReason()})
   */
  public static HostNetwork create() throws IOException {
    Path ipPath = Commands.ip();
    if (ipPath == null) {
      throw new IOException("no ip command (install iproute2)");
    }
    String ip = ipPath.toString();
    Files.createDirectories(CLAIMS);
    removeAbandoned(ip);
    SecureRandom random = new SecureRandom();
    for (int attempt = 0; attempt < 100; attempt++) {
      int run = random.nextInt(RUNS);
      Path claim = CLAIMS.resolve(Integer.toString(run));
      try {
        Files.writeString(claim, owner(), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
      } catch (FileAlreadyExistsException e) {
        continue; // another live run has it
      }
      HostNetwork n = new HostNetwork(ip, run, claim);
      try {
        // Left by a run that died after its claim was removed by hand: the number is ours now.
        removeNamespaces(ip, runNamespaces(ip, run));
        n.makeSwitch();
        return n;
      } catch (IOException | RuntimeException e) {
        try {
          n.close();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }
    throw new IOException("no free run number in " + CLAIMS + " after 100 tries");
  }

  /** This run's number, which its namespace names carry ({@code braid-N-...}). */
  public int run() {
    return run;
  }

  /** The run's /24, such as {@code 10.71.4.0/24}. */
  public String subnet() {
    return subnet + "0/24";
  }

  /** The namespace holding the bridge. */
  public String switchNamespace() {
    return namespace(SWITCH);
  }

  /**
   * Adds a host: a namespace with loopback up and {@code eth0} at the next address, cabled to the
   * bridge.
   *
   * @param name 1 to 10 of {@code [a-z0-9]}, starting with a letter; unique in the run
   * @throws IOException if {@code ip} fails
   */
  public Host addHost(String name) throws IOException {
    checkOpen();
    if (!HOST_NAME.matcher(name).matches() || name.equals(SWITCH) || hosts.containsKey(name)) {
      throw new IllegalArgumentException(
          "host name '" + name + "': taken, or not 1 to 10 of [a-z0-9] starting with a letter");
    }
    if (hosts.size() >= 250) {
      throw new IllegalStateException("a /24 has room for 250 hosts");
    }
    String ns = namespace(name);
    Host h = new Host(name, ns, subnet + (hosts.size() + 2), "to-" + name);
    String sw = switchNamespace();
    ip("netns", "add", ns);
    namespaces.add(ns);
    hosts.put(name, h);
    // Made in place: a veth made in the machine's namespace and moved could clash by name there.
    ip(
        "-n",
        sw,
        "link",
        "add",
        h.switchPort(),
        "type",
        "veth",
        "peer",
        "name",
        "eth0",
        "netns",
        ns);
    ip("-n", sw, "link", "set", h.switchPort(), "master", BRIDGE);
    ip("-n", sw, "link", "set", h.switchPort(), "up");
    ip("-n", ns, "addr", "add", h.address() + "/24", "dev", "eth0");
    ip("-n", ns, "link", "set", "eth0", "up");
    ip("-n", ns, "link", "set", "lo", "up");
    return h;
  }

  /** The host named {@code name}. */
  public Host host(String name) {
    Host h = hosts.get(name);
    if (h == null) {
      throw new IllegalArgumentException("no host '" + name + "' (hosts: " + hosts.keySet() + ")");
    }
    return h;
  }

  /** Every host, in the order they were added. */
  public List<Host> hosts() {
    return List.copyOf(hosts.values());
  }

  /**
   * Pulls {@code host}'s cable: the switch's end goes down, so the host's packets are dropped and
   * none reach it, while its own interface, address and routes stay as they are.
   */
  public void linkDown(Host host) throws IOException {
    checkOpen();
    ip("-n", switchNamespace(), "link", "set", host(host.name()).switchPort(), "down");
  }

  /** Plugs {@code host}'s cable back in. */
  public void linkUp(Host host) throws IOException {
    checkOpen();
    ip("-n", switchNamespace(), "link", "set", host(host.name()).switchPort(), "up");
  }

  /** The processes in {@code host}'s namespace (as {@code ip netns pids}), whoever started them. */
  public List<Long> pids(Host host) throws IOException {
    return pids(ip, host(host.name()).namespace());
  }

  /**
   * Kills (SIGKILL) every process in the run's namespaces, waits until they are gone, deletes the
   * namespaces and gives up the run number. Idempotent; tries everything even when a step fails.
   *
   * @throws UncheckedIOException if a namespace could not be removed
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<String> reversed = new ArrayList<>(namespaces);
    Collections.reverse(reversed);
    IOException failure = null;
    try {
      removeNamespaces(ip, reversed);
    } catch (IOException e) {
      failure = e;
    }
    if (failure == null) {
      try {
        Files.deleteIfExists(claim);
      } catch (IOException e) {
        failure = e;
      }
    } // else the claim stays: the next run sees its owner dead and tries again
    if (failure != null) {
      throw new UncheckedIOException("tearing down network run " + run, failure);
    }
  }

  private void makeSwitch() throws IOException {
    String sw = switchNamespace();
    ip("netns", "add", sw);
    namespaces.add(sw);
    // Without STP (the default) a port forwards as soon as it is up.
    ip("-n", sw, "link", "add", BRIDGE, "type", "bridge");
    ip("-n", sw, "link", "set", BRIDGE, "up");
  }

  private String namespace(String host) {
    return "braid-" + run + "-" + host;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("network run " + run + " is closed");
    }
  }

  private void ip(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ip);
    command.addAll(List.of(args));
    Commands.check(command);
  }

  /** The owner of a claim: this process's pid and start time, which a reused pid will not have. */
  private static String owner() {
    ProcessHandle self = ProcessHandle.current();
    return self.pid() + " " + self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
  }

  /** Whether the process {@code owner} names still runs. */
  private static boolean alive(String owner) {
    String[] f = owner.strip().split(" ");
    if (f.length != 2) {
      return false;
    }
    try {
      long pid = Long.parseLong(f[0]);
      long started = Long.parseLong(f[1]);
      Optional<ProcessHandle> h = ProcessHandle.of(pid);
      if (h.isEmpty()) {
        return false;
      }
      Optional<Instant> s = h.get().info().startInstant();
      // Unknown start time: count it alive, the safe side.
      return s.isEmpty() || started == 0 || s.get().toEpochMilli() == started;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** Removes the namespaces and claims of runs whose owner has died, and such probes. */
  private static void removeAbandoned(String ip) throws IOException {
    List<String> probes = new ArrayList<>();
    for (String ns : namespaces(ip)) {
      if (ns.startsWith(PROBE)) {
        String pid = ns.substring(PROBE.length()).split("-")[0];
        if (pid.chars().allMatch(Character::isDigit)
            && !pid.isEmpty()
            && ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
          probes.add(ns);
        }
      }
    }
    removeNamespaces(ip, probes);
    List<Path> claims;
    try (Stream<Path> s = Files.list(CLAIMS)) {
      claims = s.toList();
    }
    for (Path c : claims) {
      int run;
      String owner;
      try {
        run = Integer.parseInt(c.getFileName().toString());
        owner = Files.readString(c, StandardCharsets.UTF_8);
      } catch (NumberFormatException | NoSuchFileException e) {
        continue; // not a claim, or its run just ended
      }
      if (!owner.isBlank() && alive(owner)) {
        continue;
      }
      if (owner.isBlank()) {
        // Written in one go right after the create: a blank claim is being written now, or was
        // left by a crash at that instant. Only an old one is abandoned.
        try {
          if (Files.getLastModifiedTime(c).toInstant().isAfter(Instant.now().minusSeconds(60))) {
            continue;
          }
        } catch (NoSuchFileException e) {
          continue;
        }
      }
      removeNamespaces(ip, runNamespaces(ip, run));
      Files.deleteIfExists(c);
    }
  }

  /** Every namespace named after run {@code run}. */
  private static List<String> runNamespaces(String ip, int run) throws IOException {
    String prefix = "braid-" + run + "-";
    return namespaces(ip).stream().filter(n -> n.startsWith(prefix)).toList();
  }

  /** Every named network namespace on the machine ({@code ip netns list}). */
  private static List<String> namespaces(String ip) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Commands.check(List.of(ip, "netns", "list")).lines().toList()) {
      if (!line.isBlank()) {
        out.add(line.strip().split(" ")[0]); // "NAME" or "NAME (id: N)"
      }
    }
    return out;
  }

  /** Kills the processes in each namespace, waits until they are gone, and deletes it. */
  private static void removeNamespaces(String ip, List<String> names) throws IOException {
    IOException failure = null;
    for (String ns : names) {
      try {
        killAll(ip, ns);
        Commands.check(List.of(ip, "netns", "del", ns));
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void killAll(String ip, String ns) throws IOException {
    List<Long> pids = pids(ip, ns);
    for (long pid : pids) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    if (pids.isEmpty()) {
      return;
    }
    try {
      boolean gone =
          Commands.await(
              PROCESSES_GONE,
              () -> {
                try {
                  return pids(ip, ns).isEmpty();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      if (!gone) {
        throw new IOException(
            "processes " + pids(ip, ns) + " in " + ns + " outlived SIGKILL by " + PROCESSES_GONE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted waiting for the processes in " + ns + " to end", e);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static List<Long> pids(String ip, String ns) throws IOException {
    CommandResult r = Commands.run(List.of(ip, "netns", "pids", ns), Commands.SHORT);
    if (r.exitCode() != 0) {
      throw new IOException("ip netns pids " + ns + " failed: " + r.stdout());
    }
    return r.lines().stream()
        .map(String::strip)
        .filter(l -> !l.isEmpty())
        .map(Long::valueOf)
        .toList();
  }

  /** For failure messages: the run, its subnet and its hosts. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("network run " + run + " (" + subnet() + ")");
    for (Host h : hosts.values()) {
      b.append("\n  ")
          .append(h.name())
          .append(' ')
          .append(h.address())
          .append(" netns ")
          .append(h.namespace());
    }
    return b.toString();
  }
}
