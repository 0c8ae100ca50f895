package io.braidfs.testing.process;

import static java.util.Objects.requireNonNull;

import io.braidfs.common.security.SecurityConfigKeys;
import io.braidfs.testing.TestKdc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A Braid cluster of real processes from the release tarball, one host each in a {@link
 * HostNetwork}: {@code braid mds} on host {@code mds}, {@code braid dataserver} on hosts {@code
 * ds1} to {@code dsN}, and hosts with no server (by default one, {@code client}) on which tests run
 * {@code braid} commands or Java mains of their own. Every server listens on its host's address
 * only, on a fixed port ({@value #MDS_PORT}, {@value #DATA_SERVER_PORT}): each host has the port
 * space to itself, so a server restarts on the address it had.
 *
 * <pre>{@code
 * try (ProcessCluster c = ProcessCluster.builder(install, workDir).dataServers(3).build()) {
 *   c.start(); // returns when every data server is in service
 *   c.braid("client", Duration.ofMinutes(1), "fs", "--mds", c.mdsAddress(), "ls", "/");
 *   c.kill("ds2");
 *   c.restart("ds2");
 * }
 * }</pre>
 *
 * <p>With {@link Builder#kerberos}, host {@code kdc} runs a KDC ({@link KdcMain}) before the
 * servers, and every MDS and data server logs in as {@code braid/ADDRESS} from a keytab of its own.
 *
 * <p>Faults, one call each on a host's name: {@link #kill} (SIGKILL), {@link #pause} and {@link
 * #resume} (SIGSTOP, SIGCONT), {@link #linkDown} and {@link #linkUp} (its cable), {@link #restart}.
 *
 * <p>Under the work directory, {@code run-N/} (N the network's run number) holds {@code logs/}
 * (each server start's stderr, {@code HOST-K.log}) and {@code data/} (the servers' directories);
 * {@link #close()} deletes {@code data/} and keeps the logs.
 *
 * <p>Why it is long: it is the one object a multi-host test drives (hosts, faults, restarts that
 * wait for data servers to register again, client commands, teardown, and its builder), over {@link
 * HostNetwork} and {@link HostProcess}, which hold the namespaces and processes. It could be split
 * cleanly: the client-host commands ({@code braid}, {@code java}, {@code startJava}, {@code
 * listeningSockets} and their helpers, about 100 lines) share only the network, the install, the
 * log directory and the processes to kill at close, and would make a class of their own.
 *
 * <p>Thread-safety: not thread-safe; one test thread drives it.
 */
public final class ProcessCluster implements AutoCloseable {
  public static final int MDS_PORT = 7400;
  public static final int DATA_SERVER_PORT = 7500;
  public static final int ZOOKEEPER_PORT = 2181;
  public static final int BOOKIE_PORT = 7410;
  public static final int KDC_PORT = 88;

  static final Pattern MDS_LISTENING =
      Pattern.compile("braid mds listening on (\\S+):(\\d+) \\(store .*\\)");
  static final Pattern DATA_SERVER_LISTENING =
      Pattern.compile("braid dataserver listening on (\\S+):(\\d+) \\(dirs .*\\)");
  static final Pattern REGISTERED =
      Pattern.compile("registered with the MDS at \\S+ as data server (\\d+) ");
  static final Pattern IN_SERVICE = Pattern.compile(": in service: ");
  static final Pattern ZK_SERVING = Pattern.compile("braid zk: serving (\\S+):(\\d+) \\(.*\\)");
  static final Pattern LEADING = Pattern.compile(": leading with epoch (\\d+) ");
  static final Pattern KDC_SERVING = Pattern.compile("braid kdc: serving (\\S+):(\\d+) \\(.*\\)");

  /** {@code ${HOST.address}} in a setting's value: that host's address. */
  private static final Pattern HOST_ADDRESS = Pattern.compile("\\$\\{([a-z0-9-]+)\\.address}");

  private final Builder config;
  private final Map<String, Server> servers = new LinkedHashMap<>();
  private final List<HostProcess> clients = new ArrayList<>();

  /** Hosts whose cable is pulled ({@link #linkDown}). */
  private final Set<String> unplugged = new HashSet<>();

  private @Nullable HostNetwork network;
  private @Nullable Path runDir;
  private @Nullable Thread shutdownHook;
  private int clientRuns;
  private boolean closed;

  private ProcessCluster(Builder config) {
    this.config = config;
  }

  /**
   * A cluster running {@code install}'s {@code bin/braid}, keeping its files under {@code work}.
   */
  public static Builder builder(BraidInstall install, Path work) {
    return new Builder(install, work);
  }

  /**
   * Makes the network and starts the MDS, then the data servers; returns when every data server is
   * in service (registered and heard from, so the MDS may place chunks on it).
   *
   * @throws IOException if the network cannot be made or a process cannot be started
   * @throws AssertionError if a server does not come up in time, with its output
   */
  public void start() throws IOException, InterruptedException {
    if (network != null || closed) {
      throw new IllegalStateException("start() is called once");
    }
    HostNetwork n = HostNetwork.create();
    network = n;
    // Until close: a test JVM ended by a signal still removes what it made (SIGKILL cannot be
    // caught: the next run removes that).
    Thread hook = new Thread(this::closeFromHook, "process-cluster-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    shutdownHook = hook;

    Path run = config.work.toAbsolutePath().resolve("run-" + n.run());
    deleteTree(run); // a number is reused only after its run ended: these files are stale
    Files.createDirectories(run.resolve("logs"));
    Files.createDirectories(run.resolve("data"));
    runDir = run;

    if (config.mdsReplicas > 1) {
      servers.put("zk", new Server(n.addHost("zk"), Kind.ZK));
      for (int i = 1; i <= config.mdsReplicas; i++) {
        servers.put("mds" + i, new Server(n.addHost("mds" + i), Kind.MDS));
      }
    } else {
      servers.put("mds", new Server(n.addHost("mds"), Kind.MDS));
    }
    for (int i = 1; i <= config.dataServers; i++) {
      String name = "ds" + i;
      servers.put(name, new Server(n.addHost(name), Kind.DATA));
    }
    if (config.kerberos) {
      servers.put("kdc", new Server(n.addHost("kdc"), Kind.KDC));
    }
    for (String c : config.clients) {
      n.addHost(c);
    }
    if (config.kerberos) {
      startServer(server("kdc"));
    }
    if (config.mdsReplicas > 1) {
      Server zk = server("zk");
      launch(zk);
      awaitServing(zk, 0);
      for (Server m : mdsServers()) {
        launch(m);
      }
      for (Server m : mdsServers()) {
        awaitServing(m, 0);
      }
      awaitLeader(0, config.startTimeout);
    } else {
      startServer(server("mds"));
    }
    for (Server s : dataServers()) {
      launch(s);
    }
    for (Server s : dataServers()) {
      awaitServing(s, 1);
    }
  }

  // ---- hosts -----------------------------------------------------------------------------------

  /** The host named {@code name}: {@code mds}, {@code ds1}..., or a client host. */
  public Host host(String name) {
    return network().host(name);
  }

  /** Every host, the MDS's first, then the data servers', then the client hosts. */
  public List<Host> hosts() {
    return network().hosts();
  }

  /** The data servers' hosts, {@code ds1} first. */
  public List<Host> dataServerHosts() {
    return dataServers().stream().map(s -> s.host).toList();
  }

  /**
   * The MDS's {@code HOST:PORT}, as clients and data servers are given it; with several replicas,
   * every replica's, comma-separated.
   */
  public String mdsAddress() {
    return String.join(
        ",", mdsServers().stream().map(m -> m.host.address() + ":" + MDS_PORT).toList());
  }

  /** The MDS hosts: {@code mds}, or {@code mds1} to {@code mdsN} with replicas. */
  public List<String> mdsNames() {
    return mdsServers().stream().map(m -> m.host.name()).toList();
  }

  /**
   * The MDS replica leading now, by its log: the running, unpaused, plugged-in replica that last
   * said it leads, with the highest epoch; null if none does.
   */
  public @Nullable String leader() {
    String best = null;
    long bestEpoch = -1;
    for (Server m : mdsServers()) {
      HostProcess p = m.process;
      if (p == null || !p.isAlive() || m.paused || unplugged.contains(m.host.name())) {
        continue;
      }
      for (String line : p.logLines()) {
        Matcher l = LEADING.matcher(line);
        if (l.find() && Long.parseLong(l.group(1)) > bestEpoch) {
          bestEpoch = Long.parseLong(l.group(1));
          best = m.host.name();
        }
      }
    }
    return best;
  }

  /** The epoch the {@link #leader()} leads with; 0 if none. */
  public long leaderEpoch() {
    String l = leader();
    if (l == null) {
      return 0;
    }
    long epoch = 0;
    for (String line : server(l).running().logLines()) {
      Matcher m = LEADING.matcher(line);
      if (m.find()) {
        epoch = Math.max(epoch, Long.parseLong(m.group(1)));
      }
    }
    return epoch;
  }

  /**
   * Waits until a replica leads with an epoch above {@code afterEpoch}, and returns its host.
   *
   * @throws AssertionError if none does within {@code timeout}
   */
  public String awaitLeader(long afterEpoch, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String l = leader();
      if (l != null && leaderEpoch() > afterEpoch) {
        return l;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no MDS replica leads with an epoch above "
                + afterEpoch
                + " within "
                + timeout
                + "\n"
                + describe());
      }
      Thread.sleep(50);
    }
  }

  /** Whether the server on {@code name} runs now (it may have stopped on its own). */
  public boolean isRunning(String name) {
    HostProcess p = server(name).process;
    return p != null && p.isAlive();
  }

  /**
   * The server id the MDS gave data server {@code name} at its last registration.
   *
   * @throws IllegalStateException if it has not registered
   */
  public int serverId(String name) {
    Server s = server(name);
    if (s.kind != Kind.DATA || s.serverId == 0) {
      throw new IllegalStateException(name + " is not a registered data server");
    }
    return s.serverId;
  }

  /** The data directory of data server {@code name} (its only {@code --dir}). */
  public Path dataDir(String name) {
    Server s = server(name);
    if (s.kind != Kind.DATA) {
      throw new IllegalArgumentException(name + " has a store, not a data directory");
    }
    return s.dir;
  }

  /** The store directory of MDS replica {@code name}. */
  public Path storeDir(String name) {
    Server s = server(name);
    if (s.kind != Kind.MDS) {
      throw new IllegalArgumentException(name + " is not an MDS");
    }
    return s.dir;
  }

  /** The server process running on {@code name} now (it may have been killed). */
  public HostProcess process(String name) {
    HostProcess p = server(name).process;
    if (p == null) {
      throw new IllegalStateException(name + " has not been started");
    }
    return p;
  }

  /** The network, for what this class does not wrap. */
  public HostNetwork network() {
    HostNetwork n = network;
    if (n == null) {
      throw new IllegalStateException("the cluster is not started");
    }
    return n;
  }

  /** Where this run's logs are. */
  public Path logDir() {
    return runDir().resolve("logs");
  }

  // ---- Kerberos --------------------------------------------------------------------------------

  /** The krb5.conf naming the cluster's KDC (host {@code kdc}), for {@link Builder#kerberos}. */
  public Path krb5Conf() {
    return kdcDir().resolve("krb5.conf");
  }

  /** The keytab of {@code principal}, one the builder or a server host's service principal. */
  public Path keytab(String principal) {
    return kdcDir().resolve(principal.replace('/', '_') + ".keytab");
  }

  /** The ticket cache of {@code principal}, one of {@link Builder#kerberosTickets}. */
  public Path ticketCache(String principal) {
    return kdcDir().resolve(principal + ".ccache");
  }

  /** The service principal of the server on host {@code name}: {@code braid/ADDRESS@REALM}. */
  public String servicePrincipal(String name) {
    return "braid/" + host(name).address() + "@" + TestKdc.REALM;
  }

  private Path kdcDir() {
    if (!config.kerberos) {
      throw new IllegalStateException("the cluster has no KDC (Builder.kerberos)");
    }
    return server("kdc").dir;
  }

  // ---- faults ----------------------------------------------------------------------------------

  /** SIGKILL to the server on {@code name}; returns when it is gone. */
  public void kill(String name) throws InterruptedException {
    server(name).running().kill();
  }

  /** SIGSTOP to the server on {@code name}: it freezes, connections open and unanswered. */
  public void pause(String name) throws IOException {
    Server s = server(name);
    s.running().pause();
    s.paused = true;
  }

  /** SIGCONT to the server on {@code name} after {@link #pause}. */
  public void resume(String name) throws IOException {
    Server s = server(name);
    s.running().resume();
    s.paused = false;
  }

  /** Pulls {@code name}'s cable: its packets are dropped, both ways, until {@link #linkUp}. */
  public void linkDown(String name) throws IOException {
    network().linkDown(host(name));
    unplugged.add(name);
  }

  /** Plugs {@code name}'s cable back in. */
  public void linkUp(String name) throws IOException {
    network().linkUp(host(name));
    unplugged.remove(name);
  }

  /**
   * Restarts the server on {@code name} on the same data, address and port: stops it if it runs
   * (SIGTERM, or SIGKILL if it is paused or does not end within 30 s), starts it again and waits
   * until it serves. A data server must also be in service again, unless it cannot reach the MDS
   * (its cable or the MDS's is pulled, the MDS is paused or down); after the MDS, every data server
   * that can reach it must be.
   */
  public void restart(String name) throws IOException, InterruptedException {
    Server s = server(name);
    if (s.kind == Kind.KDC) {
      // A new KDC process makes new keys for every principal: the servers' keytabs would go stale.
      throw new IllegalArgumentException("the KDC is not restarted: its keys would all change");
    }
    HostProcess p = s.process;
    if (p != null && p.isAlive()) {
      if (s.paused) {
        p.kill();
      } else {
        try {
          p.terminate(Duration.ofSeconds(30));
        } catch (AssertionError e) {
          // terminate killed it: a restart after a hang is still a restart
        }
      }
    }
    s.paused = false;
    startServer(s);
  }

  // ---- clients ---------------------------------------------------------------------------------

  /**
   * Runs {@code bin/braid args...} on host {@code name} to its end.
   *
   * @throws AssertionError if it does not end within {@code timeout} (it is then killed)
   */
  public CommandResult braid(String name, Duration timeout, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(config.install.command().toString());
    command.addAll(List.of(args));
    return runToEnd(name, "braid-" + (args.length > 1 ? args[1] : "cmd"), command, timeout);
  }

  /**
   * Runs {@code main} in a new JVM on host {@code name} to its end, with the installation's {@code
   * lib/} and {@code main}'s own classes directory or jar as the classpath: a client program of a
   * test's own over the tarball's jars.
   *
   * @throws AssertionError if it does not end within {@code timeout} (it is then killed)
   */
  public CommandResult java(String name, Duration timeout, Class<?> main, String... args)
      throws IOException, InterruptedException {
    return runToEnd(name, main.getSimpleName(), javaCommand(main, args), timeout);
  }

  /**
   * Starts {@code main} as {@link #java} does but returns at once; the process is killed on {@link
   * #close()} if still running.
   */
  public HostProcess startJava(String name, Class<?> main, String... args) throws IOException {
    HostProcess p =
        HostProcess.start(
            ip(),
            host(name),
            main.getSimpleName(),
            javaCommand(main, args),
            environment(config.clientJvmOptions),
            runDir(),
            logDir().resolve(name + "-" + main.getSimpleName() + "-" + ++clientRuns + ".log"));
    clients.add(p);
    return p;
  }

  /**
   * The TCP sockets listening in {@code name}'s namespace, as {@code ADDRESS:PORT} (IPv6 in
   * brackets), read from its {@code /proc/net/tcp} and {@code tcp6}.
   */
  public List<String> listeningSockets(String name) throws IOException {
    String out =
        Commands.check(
            List.of(
                ip(),
                "netns",
                "exec",
                host(name).namespace(),
                "cat",
                "/proc/net/tcp",
                "/proc/net/tcp6"));
    return ProcNetTcp.listening(out);
  }

  // ---- diagnostics and teardown ----------------------------------------------------------------

  /** Hosts, addresses, processes and logs; with the end of every server's log. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    HostNetwork n = network;
    b.append(n == null ? "process cluster (not started)" : n.toString());
    for (Server s : servers.values()) {
      HostProcess p = s.process;
      b.append("\n\n").append(p == null ? s.host.name() + ": not started" : p.diagnostics());
    }
    return b.toString();
  }

  /**
   * Kills every process (servers, clients, anything else in the hosts' namespaces), deletes the
   * namespaces and the servers' data, keeps the logs. Idempotent.
   *
   * @throws UncheckedIOException if something could not be removed
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    Thread hook = shutdownHook;
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook is what runs this
      }
    }
    teardown();
  }

  private void closeFromHook() {
    if (!closed) {
      try {
        teardown();
      } catch (RuntimeException e) {
        System.err.println("process cluster: teardown at JVM exit failed: " + e);
      }
    }
  }

  private synchronized void teardown() {
    if (closed) {
      return;
    }
    closed = true;
    List<HostProcess> all = new ArrayList<>(clients);
    for (Server s : servers.values()) {
      if (s.process != null) {
        all.add(s.process);
      }
    }
    RuntimeException failure = null;
    for (HostProcess p : all) {
      try {
        p.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (AssertionError e) {
        failure = add(failure, new IllegalStateException(e.getMessage(), e));
      }
    }
    HostNetwork n = network;
    if (n != null) {
      try {
        n.close(); // also whatever those processes started
      } catch (RuntimeException e) {
        failure = add(failure, e);
      }
    }
    Path run = runDir;
    if (run != null) {
      try {
        deleteTree(run.resolve("data"));
      } catch (IOException e) {
        failure = add(failure, new UncheckedIOException(e));
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static RuntimeException add(@Nullable RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  // ---- servers ---------------------------------------------------------------------------------

  private List<Server> dataServers() {
    return servers.values().stream().filter(s -> s.kind == Kind.DATA).toList();
  }

  private List<Server> mdsServers() {
    return servers.values().stream().filter(s -> s.kind == Kind.MDS).toList();
  }

  private Server server(String name) {
    Server s = servers.get(name);
    if (s == null) {
      throw new IllegalArgumentException(
          "no server on '" + name + "' (servers: " + servers.keySet() + ")");
    }
    return s;
  }

  /** Starts {@code s} and waits until it serves; after an MDS start, until every data server is. */
  private void startServer(Server s) throws IOException, InterruptedException {
    if (s.kind == Kind.ZK || s.kind == Kind.KDC || (s.kind == Kind.MDS && config.mdsReplicas > 1)) {
      // An HA replica starts as a standby: data servers stay with the leader.
      launch(s);
      awaitServing(s, 0);
      return;
    }
    if (s.kind == Kind.DATA) {
      launch(s);
      awaitServing(s, reachesMds(s) ? 1 : 0); // each start logs to a file of its own
      return;
    }
    Map<Server, Integer> inService = new LinkedHashMap<>();
    for (Server d : dataServers()) {
      HostProcess p = d.process;
      if (p != null && p.isAlive() && !d.paused && !unplugged.contains(d.host.name())) {
        inService.put(d, p.logCount(IN_SERVICE));
      }
    }
    launch(s);
    awaitServing(s, 1);
    if (unplugged.contains(s.host.name())) {
      return; // nothing can register
    }
    // A new MDS knows no data server until each registers again (at its next heartbeat).
    for (Map.Entry<Server, Integer> e : inService.entrySet()) {
      awaitServing(e.getKey(), e.getValue() + 1);
    }
  }

  /** Whether data server {@code s} can register: the MDS runs, unpaused, both cables in. */
  private boolean reachesMds(Server s) {
    if (config.mdsReplicas > 1) {
      String l = leader();
      return l != null && !unplugged.contains(s.host.name());
    }
    Server mds = server("mds");
    HostProcess p = mds.process;
    return p != null
        && p.isAlive()
        && !mds.paused
        && !unplugged.contains("mds")
        && !unplugged.contains(s.host.name());
  }

  private void launch(Server s) throws IOException {
    s.starts++;
    String address = s.host.address() + ":" + s.kind.port;
    Files.createDirectories(s.dir);
    if (s.kind == Kind.KDC) {
      launchKdc(s);
      return;
    }
    List<String> command = new ArrayList<>();
    command.add(config.install.command().toString());
    if (s.kind == Kind.ZK) {
      command.addAll(List.of("zk", "--address", address, "--dir", s.dir.toString()));
    } else if (s.kind == Kind.MDS) {
      command.addAll(List.of("mds", "--address", address, "--dir", s.dir.toString()));
      if (config.mdsReplicas > 1) {
        String name = s.host.name();
        command.addAll(
            List.of(
                "--zk",
                host("zk").address() + ":" + ZOOKEEPER_PORT,
                "--id",
                name.substring("mds".length()),
                "-D",
                "braid.mds.ha.bookie.address=" + s.host.address() + ":" + BOOKIE_PORT));
      }
    } else {
      command.addAll(
          List.of(
              "dataserver",
              "--address",
              address,
              "--dir",
              s.dir.toString(),
              "--mds",
              mdsAddress(),
              "--id",
              s.host.name()));
    }
    Map<String, String> settings = new LinkedHashMap<>();
    if (config.kerberos && s.kind != Kind.ZK) {
      // Each server its own service principal, named by its address (clients ask for braid/_HOST
      // of the address they connect to).
      settings.put(SecurityConfigKeys.AUTHENTICATION.name(), "KERBEROS");
      settings.put(SecurityConfigKeys.KERBEROS_KRB5_CONF.name(), krb5Conf().toString());
      settings.put(SecurityConfigKeys.KERBEROS_PRINCIPAL.name(), servicePrincipal(s.host.name()));
      settings.put(
          SecurityConfigKeys.KERBEROS_KEYTAB.name(),
          keytab("braid/" + s.host.address()).toString());
    }
    if (s.kind != Kind.ZK) { // ZooKeeper takes none of the cluster's settings
      settings.putAll(config.settings);
    }
    for (Map.Entry<String, String> e : settings.entrySet()) {
      command.add("-D");
      command.add(e.getKey() + "=" + withAddresses(e.getValue()));
    }
    s.serverId = 0;
    startProcess(s, command);
  }

  /**
   * Starts the KDC on {@code s} with a keytab for every MDS and data server host's service
   * principal and the builder's users, over this JVM's classpath (Kerby is not in the tarball).
   */
  private void launchKdc(Server s) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-cp"));
    command.add(System.getProperty("java.class.path"));
    command.add(KdcMain.class.getName());
    command.addAll(List.of(s.dir.toString(), s.host.address(), "" + KDC_PORT));
    for (Server other : servers.values()) {
      if (other.kind == Kind.MDS || other.kind == Kind.DATA) {
        command.add("keytab:braid/" + other.host.address());
      }
    }
    config.keytabUsers.forEach(u -> command.add("keytab:" + u));
    config.ticketUsers.forEach(u -> command.add("ticket:" + u));
    startProcess(s, command);
  }

  /** Runs {@code command} as server {@code s}'s process, its output in a log of this start. */
  private void startProcess(Server s, List<String> command) throws IOException {
    s.process =
        HostProcess.start(
            ip(),
            s.host,
            s.host.name(),
            command,
            environment(config.serverJvmOptions),
            requireNonNull(s.dir.getParent(), "a server's directory has a parent"),
            logDir().resolve(s.host.name() + "-" + s.starts + ".log"));
  }

  /** {@code value} with each {@code ${HOST.address}} replaced by that host's address. */
  private String withAddresses(String value) {
    Matcher m = HOST_ADDRESS.matcher(value);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(b, Matcher.quoteReplacement(host(m.group(1)).address()));
    }
    m.appendTail(b);
    return b.toString();
  }

  /**
   * Waits for the listening line, which must name the host's own address; for a data server also
   * for its {@code inService}-th "in service" log line (none: 0).
   */
  private void awaitServing(Server s, int inService) throws InterruptedException {
    HostProcess p = s.running();
    Duration timeout = config.startTimeout;
    Matcher m =
        p.awaitLine(
            switch (s.kind) {
              case MDS -> MDS_LISTENING;
              case DATA -> DATA_SERVER_LISTENING;
              case ZK -> ZK_SERVING;
              case KDC -> KDC_SERVING;
            },
            timeout);
    String expected = s.host.address() + ":" + s.kind.port;
    if (!(m.group(1) + ":" + m.group(2)).equals(expected)) {
      throw new AssertionError(
          s.host.name() + " listens on " + m.group(1) + ":" + m.group(2) + ", not " + expected);
    }
    if (s.kind == Kind.DATA && inService > 0) {
      p.awaitLog(IN_SERVICE, inService, timeout);
      int id = 0;
      for (String line : p.logLines()) {
        Matcher r = REGISTERED.matcher(line);
        if (r.find()) {
          id = Integer.parseInt(r.group(1));
        }
      }
      s.serverId = id;
    }
  }

  // ---- processes -------------------------------------------------------------------------------

  private CommandResult runToEnd(String name, String what, List<String> command, Duration timeout)
      throws IOException, InterruptedException {
    Path log = logDir().resolve(name + "-" + what + "-" + ++clientRuns + ".log");
    HostProcess p =
        HostProcess.start(
            ip(), host(name), what, command, environment(config.clientJvmOptions), runDir(), log);
    clients.add(p);
    p.process().getOutputStream().close();
    int exit = p.awaitExit(timeout);
    List<String> err = new ArrayList<>(p.logLines());
    err.removeIf(l -> l.startsWith(HostProcess.HEADER));
    return new CommandResult(exit, String.join("\n", p.stdout()).strip(), String.join("\n", err));
  }

  private List<String> javaCommand(Class<?> main, String... args) throws IOException {
    Path own;
    try {
      own = Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | NullPointerException e) {
      throw new IOException("cannot tell where " + main.getName() + " was loaded from", e);
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String option : config.clientJvmOptions.split(" +")) {
      if (!option.isEmpty()) {
        command.add(option);
      }
    }
    // The tarball's logback.xml (in the braid jar), not a logback-test.xml beside the main class:
    // stdout is the program's own.
    command.add("-Dlogback.configurationFile=logback.xml");
    command.add("-cp");
    command.add(config.install.lib() + "/*:" + own);
    command.add(main.getName());
    command.addAll(List.of(args));
    return command;
  }

  private Map<String, String> environment(String jvmOptions) {
    return Map.of("JAVA_HOME", System.getProperty("java.home"), "BRAID_OPTS", jvmOptions);
  }

  private String ip() {
    Path p = Commands.ip();
    if (p == null) {
      throw new IllegalStateException("no ip command (install iproute2)");
    }
    return p.toString();
  }

  private Path runDir() {
    Path r = runDir;
    if (r == null) {
      throw new IllegalStateException("the cluster is not started");
    }
    return r;
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** What a server host runs. */
  private enum Kind {
    MDS(MDS_PORT, "store"),
    DATA(DATA_SERVER_PORT, "data"),
    ZK(ZOOKEEPER_PORT, "zk"),
    KDC(KDC_PORT, "kdc");

    final int port;
    final String dir;

    Kind(int port, String dir) {
      this.port = port;
      this.dir = dir;
    }
  }

  /** One server host and the process on it now. */
  private final class Server {
    final Host host;
    final Kind kind;
    final Path dir;
    @Nullable HostProcess process;
    int starts;
    int serverId;
    boolean paused;

    Server(Host host, Kind kind) {
      this.host = host;
      this.kind = kind;
      this.dir = runDir().resolve("data").resolve(host.name()).resolve(kind.dir);
    }

    HostProcess running() {
      HostProcess p = process;
      if (p == null || !p.isAlive()) {
        throw new IllegalStateException(host.name() + " is not running");
      }
      return p;
    }
  }

  /**
   * What to start.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final BraidInstall install;
    private final Path work;
    private int dataServers = 3;
    private int mdsReplicas = 1;
    private List<String> clients = List.of("client");
    private final Map<String, String> settings = new LinkedHashMap<>();
    private String serverJvmOptions = "-Xmx512m -XX:+UseSerialGC";
    private String clientJvmOptions = "-Xmx512m -XX:+UseSerialGC";
    private Duration startTimeout = Duration.ofSeconds(90);
    private boolean kerberos;
    private List<String> keytabUsers = List.of();
    private List<String> ticketUsers = List.of();

    private Builder(BraidInstall install, Path work) {
      this.install = Objects.requireNonNull(install, "install");
      this.work = Objects.requireNonNull(work, "work");
    }

    /** How many data servers, on hosts {@code ds1} to {@code dsN} (default 3). */
    public Builder dataServers(int n) {
      if (n < 0 || n > 200) {
        throw new IllegalArgumentException("data servers: " + n);
      }
      this.dataServers = n;
      return this;
    }

    /**
     * How many MDS replicas (default 1, on host {@code mds}). With more, they run on {@code mds1}
     * to {@code mdsN} with embedded bookies, elected through {@code braid zk} on host {@code zk};
     * data servers and clients are given every replica's address.
     */
    public Builder mdsReplicas(int n) {
      if (n < 1 || n > 7) {
        throw new IllegalArgumentException("MDS replicas: " + n);
      }
      this.mdsReplicas = n;
      return this;
    }

    /** The hosts without a server (default: one, {@code client}). */
    public Builder clients(String... names) {
      this.clients = List.of(names);
      return this;
    }

    /**
     * Kerberos for every server: a KDC of its own on host {@code kdc} (realm {@value
     * TestKdc#REALM}), a service principal {@code braid/ADDRESS} with a keytab per MDS and data
     * server host, and a keytab for each of {@code users} ({@link ProcessCluster#keytab}).
     */
    public Builder kerberos(String... users) {
      this.kerberos = true;
      this.keytabUsers = List.of(users);
      return this;
    }

    /** Users of {@link #kerberos} logged in as by kinit: {@link ProcessCluster#ticketCache}. */
    public Builder kerberosTickets(String... users) {
      this.ticketUsers = List.of(users);
      return this;
    }

    /**
     * A configuration key every server gets ({@code -D key=value}); {@code ${HOST.address}} in the
     * value stands for that host's address.
     */
    public Builder set(String key, String value) {
      settings.put(key, value);
      return this;
    }

    /** JVM options of the servers ({@code BRAID_OPTS}). */
    public Builder serverJvmOptions(String options) {
      this.serverJvmOptions = options;
      return this;
    }

    /** JVM options of {@code braid} commands and Java mains on the hosts. */
    public Builder clientJvmOptions(String options) {
      this.clientJvmOptions = options;
      return this;
    }

    /** How long a server may take to serve after its start (default 90 s). */
    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    /** The cluster; {@link ProcessCluster#start()} starts it. */
    public ProcessCluster build() {
      if (!ticketUsers.isEmpty() && !kerberos) {
        throw new IllegalStateException("kerberosTickets needs kerberos(...)");
      }
      for (String u : ticketUsers) {
        if (keytabUsers.contains(u)) {
          throw new IllegalArgumentException(u + " has a keytab or a ticket cache, not both");
        }
      }
      return new ProcessCluster(this);
    }
  }
}
