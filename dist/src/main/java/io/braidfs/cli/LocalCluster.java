package io.braidfs.cli;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.CallObserver;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.mds.server.MdsConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MDS (or, with HA, {@value LocalMdsReplicas#REPLICAS} MDS replicas and a ZooKeeper) and N data
 * servers in this process, on loopback, with everything kept under one directory: what {@code braid
 * local} runs.
 *
 * <p>The layout of that directory is fixed so that a restart finds everything again: the MDS's
 * namespace store in {@code DIR/mds} (with HA, {@link LocalMdsReplicas} says where the replicas and
 * ZooKeeper keep theirs), data server {@code i} (from 1) in {@code DIR/ds<i>}. A data server keeps
 * the id the MDS gave it in its own directory, so it is the same server after a restart even though
 * it listens on a new port (data servers bind {@code 127.0.0.1:0}). A directory holds a cluster of
 * one kind: one with HA is refused without it, and the other way round.
 *
 * <p>{@link #start()} returns once every data server has registered (with HA, with the leader), so
 * the cluster can store files as soon as it returns. With HA a {@link LeaderWatch} then reports
 * each change of leader to the events consumer. {@link #close()} closes the data servers (last
 * first), then the MDS (or the watch, the replicas and ZooKeeper).
 *
 * <p>Thread-safety: thread-safe as a {@link Service}: start once, close from any thread.
 */
final class LocalCluster implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

  /** How long start waits for every data server to register with the MDS. */
  static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(30);

  private final BraidConfig config;
  private final Path dir;
  private final int dataServerCount;
  private final boolean ha;
  private final Consumer<String> events;
  private final LifeCycle lifeCycle = new LifeCycle("braid local");
  private final List<DataServer> dataServers = new ArrayList<>();
  private volatile @Nullable MdsServer mds;
  private volatile CallObserver observer = CallObserver.NONE;
  private volatile @Nullable LocalMdsReplicas replicas;
  private volatile @Nullable LeaderWatch watch;

  /**
   * A cluster of {@code dataServers} data servers keeping its data under {@code dir}, with one MDS
   * or, if {@code ha}, {@value LocalMdsReplicas#REPLICAS} MDS replicas.
   *
   * @param config every server's configuration; the MDS's address is used as given (with HA, its
   *     port is the first replica's, and the others take the next two; 0 picks free ports), its
   *     store directory and each data server's address, directory and MDS list are set here
   * @param events takes, with HA, a line for each change of leader once started; called on the
   *     watch's thread
   * @throws IllegalArgumentException if {@code dataServers < 1}, or with HA if the MDS port leaves
   *     no room for the other two
   */
  LocalCluster(BraidConfig config, Path dir, int dataServers, boolean ha, Consumer<String> events) {
    if (dataServers < 1) {
      throw new IllegalArgumentException("dataServers must be at least 1: " + dataServers);
    }
    this.config = config.toBuilder().set(MdsStoreConfigKeys.DIR, mdsDir(dir).toString()).build();
    this.dir = dir;
    this.dataServerCount = dataServers;
    this.ha = ha;
    this.events = events;
    if (ha) {
      // Validated here, before anything starts.
      replicas = new LocalMdsReplicas(this.config, dir, firstMdsPort());
    }
  }

  private int firstMdsPort() {
    return HostPort.parseSetting(MdsConfigKeys.ADDRESS.name(), config.get(MdsConfigKeys.ADDRESS))
        .getPort();
  }

  /** Where the MDS of a cluster in {@code dir} keeps its namespace. */
  static Path mdsDir(Path dir) {
    return dir.resolve("mds");
  }

  /** Where data server {@code i} (from 1) of a cluster in {@code dir} keeps its replicas. */
  static Path dataServerDir(Path dir, int i) {
    return dir.resolve("ds" + i);
  }

  /** Tells {@code observer} of every call the MDS (without HA) and data servers answer. */
  void observe(CallObserver observer) {
    this.observer = observer;
  }

  /**
   * Starts the MDS (with HA, ZooKeeper and the replicas, until one leads), then the data servers,
   * and waits until each has registered.
   *
   * @throws IOException if the directory holds the other kind of cluster (with or without HA), a
   *     server cannot start (a port in use, a store locked by another process), or a data server
   *     did not register within {@link #REGISTER_TIMEOUT}; whatever had started is closed again
   */
  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    try {
      checkKind();
      Files.createDirectories(dir);
      LocalMdsReplicas r = replicas;
      if (r != null) {
        r.start();
      } else {
        MdsServer m = new MdsServer(config);
        m.observe(observer);
        mds = m;
        m.start();
      }
      List<String> mdsAddresses = new ArrayList<>();
      for (HostPort a : mdsAddresses()) {
        mdsAddresses.add(a.toString());
      }
      for (int i = 1; i <= dataServerCount; i++) {
        DataServer d = new DataServer(dataServerConfig(i, mdsAddresses), "ds" + i);
        d.observe(observer);
        synchronized (dataServers) {
          dataServers.add(d);
        }
        d.start();
      }
      awaitRegistered();
      if (r != null) {
        LeaderWatch w = new LeaderWatch(r, dir, events);
        watch = w;
        w.start();
      }
      lifeCycle.running();
      LOG.info(
          "braid local: MDS on {} and {} data servers in {}",
          String.join(",", mdsAddresses),
          dataServerCount,
          dir);
    } catch (IOException | RuntimeException e) {
      lifeCycle.failed();
      close();
      throw e;
    }
  }

  /** Refuses a directory that holds the other kind of cluster, before anything is written. */
  private void checkKind() throws IOException {
    if (ha && Files.exists(mdsDir(dir))) {
      throw new IOException(
          dir
              + " holds a braid local cluster without HA ("
              + mdsDir(dir)
              + "): start it without --ha, or give --ha a new --data directory");
    }
    if (!ha && LocalMdsReplicas.isHaCluster(dir)) {
      throw new IOException(
          dir
              + " holds a braid local --ha cluster: start it with --ha, or give braid local a"
              + " new --data directory");
    }
  }

  private BraidConfig dataServerConfig(int i, List<String> mdsAddresses) {
    return config.toBuilder()
        .set(DataServerConfigKeys.ADDRESS, "127.0.0.1:0")
        .set(DataServerConfigKeys.DIRS, List.of(dataServerDir(dir, i).toString()))
        .set(DataServerConfigKeys.MDS, mdsAddresses)
        .build();
  }

  private void awaitRegistered() throws IOException {
    long deadline = System.nanoTime() + REGISTER_TIMEOUT.toNanos();
    for (DataServer d : snapshot()) {
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      try {
        if (!d.awaitRegistered(left)) {
          throw new IOException(
              d.id()
                  + " did not register with the MDS within "
                  + REGISTER_TIMEOUT.toSeconds()
                  + " s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + d.id() + " to register", e);
      }
    }
  }

  /**
   * The MDS's address, such as {@code 127.0.0.1:7400}; with HA every replica's, in order.
   *
   * @throws IllegalStateException if the MDS has not started
   */
  List<HostPort> mdsAddresses() {
    LocalMdsReplicas r = replicas;
    if (r != null) {
      return r.addresses();
    }
    MdsServer m = mds;
    if (m == null) {
      throw new IllegalStateException("braid local is not started");
    }
    return List.of(HostPort.of(m.address()));
  }

  /** The MDS replicas and their ZooKeeper with HA; null without. */
  @Nullable LocalMdsReplicas replicas() {
    return replicas;
  }

  /** The watch reporting changes of leader (HA, once started); null before or without HA. */
  @Nullable LeaderWatch watch() {
    return watch;
  }

  /** The data servers' addresses, in order. */
  List<HostPort> dataServerAddresses() {
    List<HostPort> out = new ArrayList<>();
    for (DataServer d : snapshot()) {
      out.add(HostPort.of(d.address()));
    }
    return out;
  }

  /** The MDS that serves the namespace now (with HA, the leading replica); null if none does. */
  @Nullable MdsServer leadingMds() {
    LocalMdsReplicas r = replicas;
    if (r != null) {
      LocalMdsReplicas.Replica leader = r.leader();
      return leader == null ? null : leader.server();
    }
    return mds;
  }

  /** Every MDS made so far (with HA, each replica), in order. */
  List<MdsServer> mdsServers() {
    LocalMdsReplicas r = replicas;
    if (r != null) {
      List<MdsServer> out = new ArrayList<>();
      for (LocalMdsReplicas.Replica replica : r.replicas()) {
        out.add(replica.server());
      }
      return out;
    }
    MdsServer m = mds;
    return m == null ? List.of() : List.of(m);
  }

  /** The data servers made so far, in order. */
  List<DataServer> dataServers() {
    return snapshot();
  }

  /** {@link #mdsAddresses()} as text, or none before the MDS has started. */
  List<String> mdsAddressesIfStarted() {
    try {
      List<String> out = new ArrayList<>();
      for (HostPort a : mdsAddresses()) {
        out.add(a.toString());
      }
      return out;
    } catch (IllegalStateException e) {
      return List.of();
    }
  }

  int dataServerCount() {
    return dataServerCount;
  }

  Path dir() {
    return dir;
  }

  private List<DataServer> snapshot() {
    synchronized (dataServers) {
      return List.copyOf(dataServers);
    }
  }

  @Override
  public void close() {
    if (!lifeCycle.closeTransition()) {
      return;
    }
    List<DataServer> started = snapshot();
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
    LeaderWatch w = watch;
    if (w != null) {
      w.close();
    }
    MdsServer m = mds;
    if (m != null) {
      m.close();
    }
    LocalMdsReplicas r = replicas;
    if (r != null) {
      r.close();
    }
    lifeCycle.closed();
  }

  @Override
  public String toString() {
    return "LocalCluster[" + dir + (ha ? ", HA, " : ", ") + dataServerCount + " data servers]";
  }
}
