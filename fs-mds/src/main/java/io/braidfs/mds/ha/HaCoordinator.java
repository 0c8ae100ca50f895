package io.braidfs.mds.ha;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.lifecycle.Service;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.bookkeeper.client.BookKeeperAdmin;
import org.apache.bookkeeper.conf.ServerConfiguration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MDS replica's link to ZooKeeper: the leader election (a Curator {@link LeaderLatch} whose
 * participant id is the replica's RPC address, so standbys can hint the leader), the epoch bumped
 * on every takeover, the list of journal ledgers, the cluster id, and the BookKeeper metadata root.
 * Everything lives under {@code braid.mds.ha.zk-root}:
 *
 * <pre>
 *   latch/        the election       epoch       the leader epoch (8 bytes)
 *   ledgers       {@link LedgerList}  cluster-id  the namespace's cluster id
 *   bookkeeper/   BookKeeper's own metadata (ledgers, bookies)
 * </pre>
 *
 * <p>Why a leader's acts are safe: the ledger list changes only in a transaction that also checks
 * that this replica's latch node still exists (so only the latch holder publishes), and a new
 * leader recovery-opens the previous ledger before writing its own, which fences the old leader's
 * appends at the bookies. A SUSPENDED connection counts as lost leadership (Curator's standard
 * policy), so a leader that cannot see ZooKeeper stops before another can take over.
 *
 * <p>Thread-safety: thread-safe; listeners are called on Curator's event thread.
 */
public final class HaCoordinator implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(HaCoordinator.class);

  private final String id;
  private final String connect;
  private final String root;
  private final Duration sessionTimeout;
  private final Duration connectTimeout;
  private final String participantId;
  private @Nullable CuratorFramework zk;
  private @Nullable LeaderLatch latch;

  /**
   * @param participantId what standbys hint as the leader's address (host:port of the RPC server)
   */
  public HaCoordinator(String id, BraidConfig config, String participantId) {
    this.id = id;
    this.connect = config.get(MdsHaConfigKeys.ZK);
    String r = config.get(MdsHaConfigKeys.ZK_ROOT);
    this.root = r.endsWith("/") ? r.substring(0, r.length() - 1) : r;
    if (!root.startsWith("/") || root.length() < 2) {
      throw new IllegalArgumentException(
          MdsHaConfigKeys.ZK_ROOT.name() + " must be an absolute ZooKeeper path, not '" + r + "'");
    }
    this.sessionTimeout = config.get(MdsHaConfigKeys.SESSION_TIMEOUT);
    this.connectTimeout = config.get(MdsHaConfigKeys.CONNECT_TIMEOUT);
    this.participantId = participantId;
  }

  /**
   * Connects, waiting up to {@code braid.mds.ha.connect-timeout} and logging progress every few
   * seconds, then makes sure the cluster's znodes and BookKeeper's metadata exist.
   *
   * @throws IOException with {@code UNAVAILABLE} naming the ensemble if ZooKeeper cannot be reached
   */
  @Override
  public void start() throws IOException {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(connect)
            .sessionTimeoutMs((int) sessionTimeout.toMillis())
            .connectionTimeoutMs((int) Math.min(sessionTimeout.toMillis(), 15_000))
            .retryPolicy(new ExponentialBackoffRetry(100, 10, 1000))
            .build();
    zk = c;
    c.start();
    long deadline = System.nanoTime() + connectTimeout.toNanos();
    try {
      while (!c.blockUntilConnected(5, TimeUnit.SECONDS)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw StatusExceptions.toIOException(
              Status.UNAVAILABLE,
              id
                  + ": ZooKeeper at "
                  + connect
                  + " did not answer within "
                  + connectTimeout.toSeconds()
                  + " s ("
                  + MdsHaConfigKeys.CONNECT_TIMEOUT.name()
                  + "); is the ensemble running?");
        }
        LOG.warn(
            "{}: waiting for ZooKeeper at {} ({} s left)",
            id,
            connect,
            TimeUnit.NANOSECONDS.toSeconds(left));
      }
      for (String p : new String[] {root + "/latch", root + "/bookkeeper"}) {
        c.createContainers(p);
      }
      initBookKeeper(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(id + ": interrupted connecting to ZooKeeper");
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw StatusExceptions.toIOException(
          Status.UNAVAILABLE, id + ": ZooKeeper at " + connect + ": " + e);
    }
    LOG.info("{}: connected to ZooKeeper {} (root {})", id, connect, root);
  }

  /** Creates BookKeeper's metadata once per cluster, under a lock so replicas do not race. */
  private void initBookKeeper(CuratorFramework c) throws Exception {
    if (c.checkExists().forPath(root + "/bookkeeper/ledgers/INSTANCEID") != null) {
      return;
    }
    InterProcessMutex lock = new InterProcessMutex(c, root + "/init-lock");
    if (!lock.acquire(connectTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IOException(id + ": timed out waiting for another MDS to initialize BookKeeper");
    }
    try {
      if (c.checkExists().forPath(root + "/bookkeeper/ledgers/INSTANCEID") == null) {
        ServerConfiguration conf = new ServerConfiguration();
        conf.setMetadataServiceUri(metadataServiceUri());
        BookKeeperAdmin.initNewCluster(conf);
        LOG.info("{}: initialized BookKeeper metadata under {}/bookkeeper", id, root);
      }
    } finally {
      lock.release();
    }
  }

  /** BookKeeper's metadata service URI for this cluster (hosts separated by ';'). */
  public String metadataServiceUri() {
    return "zk+hierarchical://" + connect.replace(',', ';') + root + "/bookkeeper/ledgers";
  }

  /** The ZooKeeper session timeout in use. */
  public Duration sessionTimeout() {
    return sessionTimeout;
  }

  /**
   * Joins the election. {@code listener} hears isLeader / notLeader; losing the connection
   * (SUSPENDED or LOST) is notLeader too.
   */
  public void elect(LeaderLatchListener listener) throws IOException {
    LeaderLatch l = new LeaderLatch(client(), root + "/latch", participantId);
    l.addListener(listener);
    latch = l;
    try {
      l.start();
    } catch (Exception e) {
      throw StatusExceptions.toIOException(Status.UNAVAILABLE, id + ": cannot join election: " + e);
    }
  }

  /** Whether this replica holds the latch now. */
  public boolean hasLeadership() {
    LeaderLatch l = latch;
    return l != null && l.hasLeadership();
  }

  /** The leader's participant id (RPC address), or empty if none is known. */
  public String leaderHint() {
    LeaderLatch l = latch;
    if (l == null) {
      return "";
    }
    try {
      Participant p = l.getLeader();
      return p.isLeader() ? p.getId() : "";
    } catch (Exception e) {
      return "";
    }
  }

  /** Every replica in the election, leader first (for {@code braid admin ha}). */
  public java.util.List<Participant> participants() throws IOException {
    LeaderLatch l = latch;
    if (l == null) {
      return java.util.List.of();
    }
    try {
      return new java.util.ArrayList<>(l.getParticipants());
    } catch (Exception e) {
      throw StatusExceptions.toIOException(Status.UNAVAILABLE, id + ": " + e);
    }
  }

  /**
   * The RPC addresses of the replicas in the election now, in the latch's order (the leader first),
   * read from its znodes, so a replica that has not joined (one bootstrapping its store) sees them
   * too.
   */
  public java.util.List<String> peers() throws IOException {
    java.util.List<String> out = new java.util.ArrayList<>();
    try {
      java.util.List<String> children =
          new java.util.ArrayList<>(client().getChildren().forPath(root + "/latch"));
      // Sequential znodes end in a 10-digit sequence number: the lowest holds the latch.
      children.sort(
          java.util.Comparator.comparing(
              (String c) -> c.length() >= 10 ? c.substring(c.length() - 10) : c));
      for (String child : children) {
        try {
          byte[] data = client().getData().forPath(root + "/latch/" + child);
          String peer = new String(data, StandardCharsets.UTF_8);
          if (!peer.isEmpty() && !out.contains(peer)) {
            out.add(peer);
          }
        } catch (KeeperException.NoNodeException gone) {
          // left the election meanwhile
        }
      }
      return out;
    } catch (Exception e) {
      throw zkFailure("list the replicas in the election", e);
    }
  }

  /** Adds a listener for connection changes (SUSPENDED, LOST, RECONNECTED). */
  public void onConnectionChange(java.util.function.Consumer<ConnectionState> listener) {
    client().getConnectionStateListenable().addListener((c, s) -> listener.accept(s));
  }

  /**
   * Raises the epoch by one with compare-and-set and returns the new value; called by a replica
   * that just won the election, so every leader has a higher epoch than every earlier one.
   */
  public long bumpEpoch() throws IOException {
    String path = root + "/epoch";
    try {
      while (true) {
        Stat stat = new Stat();
        byte[] data;
        try {
          data = client().getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
          try {
            client().create().forPath(path, longBytes(1));
            return 1;
          } catch (KeeperException.NodeExistsException raced) {
            continue;
          }
        }
        long next = ByteBuffer.wrap(data).getLong() + 1;
        try {
          client().setData().withVersion(stat.getVersion()).forPath(path, longBytes(next));
          return next;
        } catch (KeeperException.BadVersionException raced) {
          // another replica bumped it meanwhile; read again
        }
      }
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw zkFailure("raise the epoch", e);
    }
  }

  /** The journal's ledger list with its znode version (-1 if the znode does not exist yet). */
  public record Versioned(LedgerList list, int version) {}

  public Versioned ledgers() throws IOException {
    try {
      Stat stat = new Stat();
      byte[] data = client().getData().storingStatIn(stat).forPath(root + "/ledgers");
      return new Versioned(LedgerList.decode(data), stat.getVersion());
    } catch (KeeperException.NoNodeException e) {
      return new Versioned(LedgerList.EMPTY, -1);
    } catch (Exception e) {
      throw zkFailure("read the journal's ledger list", e);
    }
  }

  /**
   * Replaces the ledger list, only if it is still at {@code expectedVersion} and this replica still
   * holds the latch (one ZooKeeper transaction).
   *
   * @throws IOException with {@code NOT_LEADER} if either check failed
   */
  public void publishLedgers(LedgerList list, int expectedVersion) throws IOException {
    LeaderLatch l = latch;
    String ours = l == null ? null : l.getOurPath();
    if (ours == null) {
      throw StatusExceptions.toIOException(Status.NOT_LEADER, id + ": not in the election");
    }
    String path = root + "/ledgers";
    try {
      if (expectedVersion < 0) {
        client()
            .transaction()
            .forOperations(
                client().transactionOp().check().forPath(ours),
                client().transactionOp().create().forPath(path, list.encode()));
      } else {
        client()
            .transaction()
            .forOperations(
                client().transactionOp().check().forPath(ours),
                client()
                    .transactionOp()
                    .setData()
                    .withVersion(expectedVersion)
                    .forPath(path, list.encode()));
      }
    } catch (KeeperException.NoNodeException
        | KeeperException.BadVersionException
        | KeeperException.NodeExistsException e) {
      throw StatusExceptions.toIOException(
          Status.NOT_LEADER, id + ": lost leadership while publishing the journal's new ledger");
    } catch (Exception e) {
      throw zkFailure("publish the journal's ledger list", e);
    }
  }

  /**
   * The cluster id recorded in ZooKeeper, recording {@code ours} if none is yet; so a replica can
   * refuse to serve a store of another cluster.
   */
  public String clusterId(String ours) throws IOException {
    String path = root + "/cluster-id";
    try {
      try {
        return new String(client().getData().forPath(path), StandardCharsets.UTF_8);
      } catch (KeeperException.NoNodeException e) {
        if (ours.isEmpty()) {
          return "";
        }
        try {
          client().create().forPath(path, ours.getBytes(StandardCharsets.UTF_8));
          return ours;
        } catch (KeeperException.NodeExistsException raced) {
          return new String(client().getData().forPath(path), StandardCharsets.UTF_8);
        }
      }
    } catch (Exception e) {
      throw zkFailure("read the cluster id", e);
    }
  }

  private IOException zkFailure(String what, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    return StatusExceptions.toIOException(
        Status.UNAVAILABLE, id + ": cannot " + what + " in ZooKeeper " + connect + ": " + e);
  }

  private CuratorFramework client() {
    CuratorFramework c = zk;
    if (c == null) {
      throw new IllegalStateException(id + ": not started");
    }
    return c;
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  /** Leaves the election (another replica takes over at once) and closes the session. */
  @Override
  public void close() {
    LeaderLatch l = latch;
    latch = null;
    if (l != null) {
      try {
        l.close(LeaderLatch.CloseMode.SILENT);
      } catch (IOException | RuntimeException e) {
        LOG.debug("{}: leaving the election: {}", id, e.toString());
      }
    }
    CuratorFramework c = zk;
    zk = null;
    if (c != null) {
      c.close();
    }
  }

  @Override
  public String toString() {
    return "HaCoordinator{" + id + " at " + connect + root + "}";
  }
}
