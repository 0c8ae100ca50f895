package io.braidfs.bench.ref;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.SafeModeAction;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;

/**
 * HDFS 3.5 as BENCHMARKING.md's reference: one NameNode and {@code n} DataNodes, each a separate
 * JVM started from the Hadoop jars on this JVM's class path (Maven Central's {@code hadoop-hdfs}, a
 * dependency of this module), on loopback, with their directories under one base directory.
 *
 * <p>Settings are matched to the Braid clusters of the benchmarks and stated by {@link #describe}:
 * replication as given (1 by default, as the benchmarks' MiniClusters), 64 MiB blocks (Braid's
 * chunk), {@code dfs.datanode.synconclose=true} so that a closed file is on disk as after Braid's
 * default close, and permissions on. The NameNode syncs its edit log before answering a namespace
 * change (HDFS's default), as Braid's MDS syncs its WAL.
 *
 * <p>{@link #start} formats the NameNode, starts the JVMs and returns when the NameNode is out of
 * safe mode and every DataNode is live; {@link #close} closes the clients it handed out, stops the
 * JVMs (SIGTERM, then SIGKILL after 10 s) and waits for them. Each JVM's output goes to {@code
 * logs/} under the base directory.
 *
 * <p>Thread-safety: {@link #fileSystem} may be called from any thread once started; start and close
 * are for the owner.
 */
public final class HdfsCluster implements AutoCloseable {
  private static final String NAMENODE = "org.apache.hadoop.hdfs.server.namenode.NameNode";
  private static final String DATANODE = "org.apache.hadoop.hdfs.server.datanode.DataNode";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  /** Java 17 module openings Hadoop 3.5 needs (its own hadoop-project test flags). */
  private static final List<String> JVM_FLAGS =
      List.of(
          "-XX:+IgnoreUnrecognizedVMOptions",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.zip=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/sun.security.util=ALL-UNNAMED");

  private final Path dir;
  private final int dataNodes;
  private final int replication;
  private final List<Process> processes = new ArrayList<>();
  private final List<FileSystem> clients = new ArrayList<>();
  private final List<String> remapIds = new ArrayList<>();
  private int port;

  private HdfsCluster(Path dir, int dataNodes, int replication) {
    if (dataNodes < 1 || replication < 1 || replication > dataNodes) {
      throw new IllegalArgumentException(
          "need 1 <= replication (" + replication + ") <= data nodes (" + dataNodes + ")");
    }
    this.dir = dir.toAbsolutePath();
    this.dataNodes = dataNodes;
    this.replication = replication;
  }

  /** A cluster of {@code dataNodes} DataNodes with replication 1, not yet started. */
  public static HdfsCluster create(Path dir, int dataNodes) {
    return new HdfsCluster(dir, dataNodes, 1);
  }

  /** A cluster of {@code dataNodes} DataNodes and the given replication, not yet started. */
  public static HdfsCluster create(Path dir, int dataNodes, int replication) {
    return new HdfsCluster(dir, dataNodes, replication);
  }

  /**
   * Formats the NameNode, starts it and the DataNodes, and waits until all DataNodes are live.
   *
   * @throws IOException if a JVM fails or the cluster is not ready within 2 minutes; what started
   *     is stopped again
   */
  public synchronized void start() throws IOException {
    if (port != 0) {
      throw new IllegalStateException("HDFS at " + dir + " is already started");
    }
    try {
      Files.createDirectories(dir.resolve("logs"));
      port = freePort();
      Path nnConf = writeConf("namenode", Map.of());
      format(nnConf);
      processes.add(launch("namenode", nnConf, NAMENODE));
      for (int i = 0; i < dataNodes; i++) {
        Path data = Files.createDirectories(dir.resolve("data" + i));
        Path conf = writeConf("datanode" + i, Map.of("dfs.datanode.data.dir", uri(data)));
        processes.add(launch("datanode" + i, conf, DATANODE));
      }
      awaitReady();
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The NameNode's RPC address. */
  public InetSocketAddress nameNodeAddress() {
    return new InetSocketAddress("127.0.0.1", port);
  }

  /** {@code hdfs://127.0.0.1:PORT}. */
  public URI uri() {
    return URI.create("hdfs://127.0.0.1:" + port);
  }

  /** A new HDFS client (not Hadoop's cached instance); closed by the cluster. */
  public DistributedFileSystem fileSystem() throws IOException {
    return open(clientConf());
  }

  /**
   * A new HDFS client whose every socket, to the NameNode and to the DataNodes, connects to {@code
   * remap(address)} instead (a proxy in front of that address); closed by the cluster.
   */
  public DistributedFileSystem fileSystem(Function<InetSocketAddress, InetSocketAddress> remap)
      throws IOException {
    String id = RemappingSocketFactory.register(remap);
    synchronized (this) {
      remapIds.add(id);
    }
    Configuration conf = clientConf();
    conf.set("hadoop.rpc.socket.factory.class.default", RemappingSocketFactory.class.getName());
    conf.set(RemappingSocketFactory.ID_KEY, id);
    return open(conf);
  }

  /** The settings, as one sentence for docs/benchmarks.md. */
  public String describe() {
    return describe(dataNodes, replication);
  }

  /** {@link #describe()} for a cluster of these sizes, before it is started. */
  public static String describe(int dataNodes, int replication) {
    return String.format(
        Locale.ROOT,
        "HDFS %s: a NameNode and %d DataNode%s, each its own JVM on loopback, replication %d,"
            + " 64 MiB blocks, `dfs.datanode.synconclose=true` (close is durable, as Braid's),"
            + " permissions on, edit log synced per namespace change (HDFS's default)",
        org.apache.hadoop.util.VersionInfo.getVersion(),
        dataNodes,
        dataNodes == 1 ? "" : "s",
        replication);
  }

  private DistributedFileSystem open(Configuration conf) throws IOException {
    if (port == 0) {
      throw new IllegalStateException("HDFS at " + dir + " is not started");
    }
    FileSystem fs = FileSystem.newInstance(uri(), conf);
    synchronized (this) {
      clients.add(fs);
    }
    return (DistributedFileSystem) fs;
  }

  private Configuration clientConf() {
    Configuration conf = new Configuration(false);
    for (Map.Entry<String, String> e : settings().entrySet()) {
      conf.set(e.getKey(), e.getValue());
    }
    return conf;
  }

  /** The settings every process and client shares. */
  private Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("fs.defaultFS", "hdfs://127.0.0.1:" + port);
    s.put("dfs.namenode.rpc-address", "127.0.0.1:" + port);
    s.put("dfs.replication", Integer.toString(replication));
    s.put("dfs.blocksize", Long.toString(64L << 20));
    s.put("dfs.datanode.synconclose", "true");
    s.put("dfs.permissions.enabled", "true");
    return s;
  }

  /** The server settings: loopback, ephemeral ports, directories here, no waiting in safe mode. */
  private Map<String, String> serverSettings() {
    Map<String, String> s = settings();
    s.put("hadoop.tmp.dir", dir.resolve("tmp").toString());
    s.put("dfs.namenode.name.dir", uri(dir.resolve("name")));
    s.put("dfs.namenode.http-address", "127.0.0.1:0");
    s.put("dfs.namenode.https-address", "127.0.0.1:0");
    s.put("dfs.namenode.secondary.http-address", "127.0.0.1:0");
    s.put("dfs.datanode.address", "127.0.0.1:0");
    s.put("dfs.datanode.http.address", "127.0.0.1:0");
    s.put("dfs.datanode.ipc.address", "127.0.0.1:0");
    s.put("dfs.datanode.hostname", "127.0.0.1");
    s.put("dfs.namenode.datanode.registration.ip-hostname-check", "false");
    // A fresh namespace has no blocks to wait for: leave safe mode at once.
    s.put("dfs.namenode.safemode.extension", "0");
    s.put("dfs.namenode.safemode.min.datanodes", "0");
    return s;
  }

  /** A conf directory for one process: core-site.xml, hdfs-site.xml and log4j.properties. */
  private Path writeConf(String name, Map<String, String> extra) throws IOException {
    Path conf = Files.createDirectories(dir.resolve("conf").resolve(name));
    Map<String, String> s = serverSettings();
    s.putAll(extra);
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    for (Map.Entry<String, String> e : s.entrySet()) {
      xml.append("  <property><name>")
          .append(e.getKey())
          .append("</name><value>")
          .append(e.getValue())
          .append("</value></property>\n");
    }
    xml.append("</configuration>\n");
    Files.writeString(conf.resolve("hdfs-site.xml"), xml, StandardCharsets.UTF_8);
    Files.writeString(
        conf.resolve("core-site.xml"),
        "<?xml version=\"1.0\"?>\n<configuration>\n  <property><name>fs.defaultFS</name><value>"
            + s.get("fs.defaultFS")
            + "</value></property>\n</configuration>\n",
        StandardCharsets.UTF_8);
    // Hadoop's web servers look their web app up on the class path ("webapps/hdfs" and so on),
    // and Maven Central's hadoop-hdfs 3.5.0 jar carries none: empty ones serve (no UI needed).
    for (String app : List.of("hdfs", "datanode", "secondary", "journal", "static")) {
      Files.createDirectories(conf.resolve("webapps").resolve(app));
    }
    Files.writeString(
        conf.resolve("log4j.properties"),
        "log4j.rootLogger=INFO,out\n"
            + "log4j.appender.out=org.apache.log4j.ConsoleAppender\n"
            + "log4j.appender.out.layout=org.apache.log4j.PatternLayout\n"
            + "log4j.appender.out.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n\n",
        StandardCharsets.UTF_8);
    return conf;
  }

  private void format(Path conf) throws IOException {
    ProcessBuilder pb =
        command("format", conf, NAMENODE, "-format", "-force", "-nonInteractive", "-clusterid");
    pb.command().add("braid-bench");
    Process p = pb.start();
    try {
      if (!p.waitFor(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("formatting the HDFS NameNode in " + dir + " took over 2 minutes");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while formatting the HDFS NameNode", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          "formatting the HDFS NameNode failed (exit " + p.exitValue() + "), see " + log("format"));
    }
  }

  private Process launch(String name, Path conf, String mainClass) throws IOException {
    return command(name, conf, mainClass).start();
  }

  private ProcessBuilder command(String name, Path conf, String mainClass, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add(name.startsWith("datanode") ? "-Xmx384m" : "-Xmx768m");
    cmd.add("-XX:+UseSerialGC");
    cmd.addAll(JVM_FLAGS);
    cmd.add("-Dlog4j.configuration=" + conf.resolve("log4j.properties").toUri());
    cmd.add("-Dhadoop.log.dir=" + dir.resolve("logs"));
    cmd.add("-Dproc_" + name);
    // The conf directory first, so that its *-site.xml are Hadoop's site resources.
    cmd.add("-cp");
    cmd.add(conf + File.pathSeparator + System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    pb.redirectOutput(log(name).toFile());
    pb.environment().remove("HADOOP_CONF_DIR");
    return pb;
  }

  private Path log(String name) {
    return dir.resolve("logs").resolve(name + ".log");
  }

  /** Polls the NameNode until it is out of safe mode with every DataNode live. */
  private void awaitReady() throws IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    String state = "no answer from the NameNode";
    try (FileSystem fs = FileSystem.newInstance(uri(), clientConf())) {
      DistributedFileSystem dfs = (DistributedFileSystem) fs;
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < processes.size(); i++) {
          if (!processes.get(i).isAlive()) {
            String name = i == 0 ? "namenode" : "datanode" + (i - 1);
            throw new IOException(
                "HDFS "
                    + name
                    + " exited with "
                    + processes.get(i).exitValue()
                    + " while starting, see "
                    + log(name));
          }
        }
        try {
          int live = dfs.getDataNodeStats(DatanodeReportType.LIVE).length;
          boolean safe = dfs.setSafeMode(SafeModeAction.GET);
          if (live == dataNodes && !safe) {
            return;
          }
          state = live + " of " + dataNodes + " DataNodes live" + (safe ? ", in safe mode" : "");
        } catch (IOException e) {
          state = e.toString();
        }
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for HDFS at " + dir, e);
    }
    throw new IOException(
        "HDFS at " + dir + " not ready after " + START_TIMEOUT.toSeconds() + " s: " + state);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String uri(Path p) {
    return p.toAbsolutePath().toUri().toString();
  }

  /**
   * Closes the clients, stops the DataNodes and the NameNode and waits for their JVMs.
   *
   * @throws IllegalStateException if a JVM outlives SIGKILL (after every other one was stopped)
   */
  @Override
  public synchronized void close() {
    for (FileSystem fs : clients) {
      try {
        fs.close();
      } catch (IOException e) {
        // The servers go next anyway; a client that cannot close cleanly is no reason to stop.
        System.err.println("closing an HDFS client: " + e);
      }
    }
    clients.clear();
    for (String id : remapIds) {
      RemappingSocketFactory.unregister(id);
    }
    remapIds.clear();
    // DataNodes first (last started), then the NameNode.
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).destroy();
    }
    List<Long> survivors = new ArrayList<>();
    for (int i = processes.size() - 1; i >= 0; i--) {
      if (!stop(processes.get(i))) {
        survivors.add(processes.get(i).pid());
      }
    }
    processes.clear();
    port = 0;
    if (!survivors.isEmpty()) {
      throw new IllegalStateException(
          "HDFS processes " + survivors + " of " + dir + " survived SIGKILL for 10 s");
    }
  }

  /** Waits for a process told to stop, killing it after 10 s; false if it outlives that. */
  private static boolean stop(Process p) {
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return p.waitFor(10, TimeUnit.SECONDS);
      }
      return true;
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      return !p.isAlive();
    }
  }
}
