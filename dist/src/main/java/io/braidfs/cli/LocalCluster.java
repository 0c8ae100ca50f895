package io.braidfs.cli;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.lifecycle.LifeCycle;
import io.braidfs.common.lifecycle.Service;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.dataserver.DataServer;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.mds.server.MdsServer;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MDS and N data servers in this process, on loopback, with everything kept under one
 * directory: what {@code braid local} runs.
 *
 * <p>The layout of that directory is fixed so that a restart finds everything again: the MDS's
 * namespace store in {@code DIR/mds}, data server {@code i} (from 1) in {@code DIR/ds<i>}. A data
 * server keeps the id the MDS gave it in its own directory, so it is the same server after a
 * restart even though it listens on a new port (data servers bind {@code 127.0.0.1:0}).
 *
 * <p>{@link #start()} returns once every data server has registered, so the cluster can store files
 * as soon as it returns. {@link #close()} closes the data servers (last first), then the MDS.
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
  private final LifeCycle lifeCycle = new LifeCycle("braid local");
  private final List<DataServer> dataServers = new ArrayList<>();
  private volatile @Nullable MdsServer mds;

  /**
   * A cluster of {@code dataServers} data servers keeping its data under {@code dir}.
   *
   * @param config every server's configuration; the MDS's address is used as given, its store
   *     directory and each data server's address, directory and MDS list are set here
   * @throws IllegalArgumentException if {@code dataServers < 1}
   */
  LocalCluster(BraidConfig config, Path dir, int dataServers) {
    if (dataServers < 1) {
      throw new IllegalArgumentException("dataServers must be at least 1: " + dataServers);
    }
    this.config = config.toBuilder().set(MdsStoreConfigKeys.DIR, mdsDir(dir).toString()).build();
    this.dir = dir;
    this.dataServerCount = dataServers;
  }

  /** Where the MDS of a cluster in {@code dir} keeps its namespace. */
  static Path mdsDir(Path dir) {
    return dir.resolve("mds");
  }

  /** Where data server {@code i} (from 1) of a cluster in {@code dir} keeps its replicas. */
  static Path dataServerDir(Path dir, int i) {
    return dir.resolve("ds" + i);
  }

  /**
   * Starts the MDS, then the data servers, and waits until each has registered.
   *
   * @throws IOException if a server cannot start (a port in use, a store locked by another process)
   *     or a data server did not register within {@link #REGISTER_TIMEOUT}; whatever had started is
   *     closed again
   */
  @Override
  public void start() throws IOException {
    lifeCycle.startTransition();
    try {
      Files.createDirectories(dir);
      MdsServer m = new MdsServer(config);
      mds = m;
      m.start();
      String mdsAddress = HostPort.of(m.address()).toString();
      for (int i = 1; i <= dataServerCount; i++) {
        DataServer d = new DataServer(dataServerConfig(i, mdsAddress), "ds" + i);
        synchronized (dataServers) {
          dataServers.add(d);
        }
        d.start();
      }
      awaitRegistered();
      lifeCycle.running();
      LOG.info(
          "braid local: MDS on {} and {} data servers in {}", mdsAddress, dataServerCount, dir);
    } catch (IOException | RuntimeException e) {
      lifeCycle.failed();
      close();
      throw e;
    }
  }

  private BraidConfig dataServerConfig(int i, String mdsAddress) {
    return config.toBuilder()
        .set(DataServerConfigKeys.ADDRESS, "127.0.0.1:0")
        .set(DataServerConfigKeys.DIRS, List.of(dataServerDir(dir, i).toString()))
        .set(DataServerConfigKeys.MDS, List.of(mdsAddress))
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

  /** The MDS's address, such as {@code 127.0.0.1:7400}. */
  HostPort mdsAddress() {
    MdsServer m = mds;
    if (m == null) {
      throw new IllegalStateException("braid local is not started");
    }
    return HostPort.of(m.address());
  }

  /** The data servers' addresses, in order. */
  List<HostPort> dataServerAddresses() {
    List<HostPort> out = new ArrayList<>();
    for (DataServer d : snapshot()) {
      out.add(HostPort.of(d.address()));
    }
    return out;
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
    MdsServer m = mds;
    if (m != null) {
      m.close();
    }
    lifeCycle.closed();
  }

  @Override
  public String toString() {
    return "LocalCluster[" + dir + ", " + dataServerCount + " data servers]";
  }
}
