package io.braidfs.mds.server;

import com.google.protobuf.Message;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.lifecycle.DaemonThreads;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.common.security.Security;
import io.braidfs.common.security.Tls;
import io.braidfs.mds.ha.EmbeddedBookie;
import io.braidfs.mds.ha.HaCoordinator;
import io.braidfs.mds.ha.LedgerJournal;
import io.braidfs.mds.ha.LedgerList;
import io.braidfs.mds.ha.LedgerTailer;
import io.braidfs.mds.ha.Ledgers;
import io.braidfs.mds.ha.MdsHaConfigKeys;
import io.braidfs.mds.ha.StoreTooOldException;
import io.braidfs.mds.journal.WalJournal;
import io.braidfs.mds.namespace.DelegationTokens;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.mds.store.CachedMetadataStore;
import io.braidfs.mds.store.MdsStoreConfigKeys;
import io.braidfs.mds.store.StoreOptions;
import io.braidfs.proto.ErrorInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.bookkeeper.client.api.WriteHandle;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.state.ConnectionState;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MDS's part in high availability: it follows the journal as a standby, answering every
 * namespace call NOT_LEADER with the leader's address, and takes over when ZooKeeper elects it.
 *
 * <p>Takeover, in order: stop following; raise the epoch (compare-and-set); recovery-open the
 * journal's last ledger, which fences the old leader's appends, and apply its tail; create this
 * term's ledger and publish it in a ZooKeeper transaction that also checks this replica still holds
 * the latch; then serve on the same address. Losing leadership (the latch, a SUSPENDED or LOST
 * ZooKeeper connection, a refused ledger append) makes the MDS start its services again as a
 * standby ({@link MdsServer#stepDown}): its in-memory state (leases, caches, the view of records
 * not acknowledged) belongs to a term that is over, so it is dropped rather than unwound.
 *
 * <p>Thread-safety: election callbacks and takeovers run on {@code braid-<id>-ha}.
 */
final class HaReplica implements LeaderLatchListener, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HaReplica.class);

  private final MdsServer mds;
  private final BraidConfig config;
  private final CachedMetadataStore store;
  private final String id;
  private final ExecutorService ha;
  private @Nullable HaCoordinator coordinator;
  private @Nullable Ledgers ledgers;
  private @Nullable LedgerTailer tailer;
  private @Nullable WalJournal local;
  private @Nullable RpcServer standby;
  private volatile boolean leading;

  /** The journal's ledger list as this leader last published it, and its znode version. */
  private volatile LedgerList published = LedgerList.EMPTY;

  private volatile int publishedVersion = -1;

  /** Which start of the MDS's services this is: its step-downs name it. */
  private final int generation;

  HaReplica(
      MdsServer mds, BraidConfig config, Clock clock, CachedMetadataStore store, int generation) {
    this.generation = generation;
    this.mds = mds;
    // The ledger is the durable copy of every record; the local store need not sync, and a
    // replica that crashes catches up from the ledger.
    this.config = config.toBuilder().set(MdsStoreConfigKeys.SYNC, false).build();
    this.store = store;
    this.id = config.get(MdsConfigKeys.ID);
    this.clock = clock;
    this.ha = Executors.newSingleThreadExecutor(DaemonThreads.named("braid-" + id + "-ha"));
  }

  private final Clock clock;

  void start(InetSocketAddress bind) throws IOException {
    WalJournal j = new WalJournal(id, store, config, clock);
    local = j;
    mds.local(j);
    j.start();
    RpcServer s = standbyServer(bind);
    standby = s;
    s.start();
    mds.rpc(s);
    InetSocketAddress bound = s.boundAddress();
    HaCoordinator c = new HaCoordinator(id, config, advertised(bound));
    coordinator = c;
    c.start();
    String ours = Namespace.storedClusterId(store);
    String theirs = c.clusterId(ours);
    if (!ours.isEmpty() && !theirs.isEmpty() && !ours.equals(theirs)) {
      throw StatusExceptions.toIOException(
          Status.INVALID_ARGUMENT,
          id
              + ": this replica's store ("
              + StoreOptions.from(config).dir()
              + ") belongs to cluster "
              + ours
              + ", but ZooKeeper "
              + config.get(MdsHaConfigKeys.ZK)
              + config.get(MdsHaConfigKeys.ZK_ROOT)
              + " coordinates cluster "
              + theirs
              + "; point it at its own cluster's root or give it an empty store");
    }
    if (config.get(MdsHaConfigKeys.EMBEDDED_BOOKIE) && !mds.hasBookie()) {
      String dir = config.get(MdsHaConfigKeys.BOOKIE_DIR);
      EmbeddedBookie b =
          new EmbeddedBookie(
              id,
              c.metadataServiceUri(),
              io.braidfs.common.rpc.HostPort.parseSetting(
                  MdsHaConfigKeys.BOOKIE_ADDRESS.name(),
                  config.get(MdsHaConfigKeys.BOOKIE_ADDRESS)),
              dir.isEmpty() ? StoreOptions.from(config).dir().resolve("bookie") : Path.of(dir),
              c.sessionTimeout());
      // Owned by the MDS: the bookie keeps serving while this replica rejoins as a standby.
      mds.bookie(b);
      b.start();
    }
    // A store that ends before the journal's first retained record cannot catch up from the
    // ledgers: the MDS copies a peer's store first (a new or wiped replica, or one down too long).
    long journalFirst = c.ledgers().list().firstIndex();
    if (store.appliedIndex() + 1 < journalFirst) {
      throw new StoreTooOldException(id, store.appliedIndex(), journalFirst);
    }
    Ledgers l =
        new Ledgers(
            id,
            c.metadataServiceUri(),
            config.get(MdsHaConfigKeys.ENSEMBLE),
            config.get(MdsHaConfigKeys.ACK_QUORUM),
            c.sessionTimeout());
    ledgers = l;
    l.start();
    LedgerTailer t =
        new LedgerTailer(
            id,
            c,
            l,
            j,
            config.get(MdsHaConfigKeys.TAIL_INTERVAL),
            e -> mds.stepDown(generation, String.valueOf(e.getMessage())));
    tailer = t;
    mds.role(MdsServer.Role.STANDBY); // before the tailer, whose step-down must not be overwritten
    t.start();
    c.onConnectionChange(this::connectionChanged);
    c.elect(this);
    LOG.info("{}: standby on {}, following the journal from record {}", id, bound, j.lastIndex());
  }

  /**
   * A server answering every MDS method NOT_LEADER, with the leader's address when known, but for
   * HaStatus, which it answers.
   */
  private RpcServer standbyServer(InetSocketAddress bind) throws IOException {
    RpcServer.Builder b =
        RpcServer.builder(id)
            .bind(bind)
            .observer(mds.observer())
            .options(RpcOptions.from(config))
            // Tokens too, so a job's task reaching a standby is told NOT_LEADER, not refused.
            .authenticator(
                Security.serverAuthenticator(
                    config, id, bind.getHostString(), DelegationTokens.standby(id, store)))
            .tls(Tls.forServer(config, id));
    // A standby names the cluster its store follows (none before it applied the format record).
    b.clusterId(
        () -> {
          try {
            return Namespace.storedClusterId(store);
          } catch (IOException e) {
            return "";
          }
        });
    // braid admin ha asks every replica; a bootstrapping replica may copy a standby's store.
    new HaAdmin(mds, id, true).registerReplicaCalls(b, null);
    for (RpcMethod<?, ?> m : RpcMethod.all()) {
      int mid = m.id();
      if (!HaAdmin.REPLICA_CALLS.contains(m)
          && ((mid >= 100 && mid < 300) || (mid >= 400 && mid < 450))) {
        refuse(b, m);
      }
    }
    return b.build();
  }

  private <Q extends Message, R extends Message> void refuse(
      RpcServer.Builder b, RpcMethod<Q, R> method) {
    b.handle(method, this::notLeader, null);
  }

  private <Q extends Message, R extends Message> void notLeader(ServerCall<Q, R> call) {
    HaCoordinator c = coordinator;
    String hint = c == null ? "" : c.leaderHint();
    call.fail(
        Status.NOT_LEADER,
        ErrorInfo.newBuilder()
            .setMessage(
                id
                    + " is a standby MDS"
                    + (hint.isEmpty() ? "; no leader is elected now" : "; the leader is " + hint))
            .setLeaderHint(hint)
            .build());
  }

  /** What standbys hint for this replica: its bound address, or this host's name if wildcard. */
  private static String advertised(InetSocketAddress bound) throws IOException {
    InetAddress a = bound.getAddress();
    String host =
        a == null || a.isAnyLocalAddress()
            ? InetAddress.getLocalHost().getCanonicalHostName()
            : a.getHostAddress();
    return host + ":" + bound.getPort();
  }

  /** The leader's RPC address as the election knows it; empty if none. */
  String leaderHint() {
    HaCoordinator c = coordinator;
    return c == null ? "" : c.leaderHint();
  }

  /** The RPC addresses of every replica in the election, leader first. */
  java.util.List<String> replicas() throws IOException {
    HaCoordinator c = coordinator;
    if (c == null) {
      return java.util.List.of();
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    for (org.apache.curator.framework.recipes.leader.Participant p : c.participants()) {
      if (p.isLeader()) {
        out.add(0, p.getId());
      } else {
        out.add(p.getId());
      }
    }
    return out;
  }

  @Override
  public void isLeader() {
    ha.execute(this::takeOver);
  }

  @Override
  public void notLeader() {
    if (leading || mds.role() == MdsServer.Role.TAKING_OVER) {
      mds.stepDown(generation, "lost the leader election");
    }
  }

  private void connectionChanged(ConnectionState state) {
    if ((state == ConnectionState.SUSPENDED || state == ConnectionState.LOST)
        && (leading || mds.role() == MdsServer.Role.TAKING_OVER)) {
      mds.stepDown(generation, "lost its ZooKeeper connection (" + state + ") while leading");
    }
  }

  private void takeOver() {
    HaCoordinator c = coordinator;
    LedgerTailer t = tailer;
    Ledgers l = ledgers;
    WalJournal j = local;
    if (c == null || t == null || l == null || j == null || mds.role() != MdsServer.Role.STANDBY) {
      return;
    }
    mds.role(MdsServer.Role.TAKING_OVER);
    long started = System.nanoTime();
    try {
      t.stop();
      long epoch = c.bumpEpoch();
      HaCoordinator.Versioned v = c.ledgers();
      long last = t.catchUp(v.list(), true);
      WriteHandle h =
          l.create(
              epoch,
              // A new cluster waits for its bookies to register; a takeover, which often follows
              // the death of the old leader and its bookie, settles at once for those up.
              v.list().ledgers().isEmpty() ? c.sessionTimeout().multipliedBy(2) : Duration.ZERO,
              config.get(MdsHaConfigKeys.CONNECT_TIMEOUT));
      long first = last + 1;
      published = v.list();
      publishedVersion = v.version();
      publish(c, l, h, first);
      if (!c.hasLeadership()) {
        throw StatusExceptions.toIOException(Status.NOT_LEADER, "lost the latch while taking over");
      }
      LedgerJournal lj =
          new LedgerJournal(
              id,
              j,
              h,
              first,
              config.get(MdsHaConfigKeys.LEDGER_RECORDS),
              next -> nextLedger(c, l, epoch, next),
              clock,
              e -> mds.stepDown(generation, "the journal refused a record: " + e.getMessage()));
      RpcServer s = standby;
      InetSocketAddress bound = s == null ? mds.address() : s.boundAddress();
      if (s != null) {
        s.close();
        standby = null;
      }
      leading = true;
      mds.journal(lj);
      mds.serve(store, lj, epoch, bound);
      String ours = mds.namespace().clusterId();
      String theirs = c.clusterId(ours);
      if (!theirs.equals(ours)) {
        throw StatusExceptions.toIOException(
            Status.INVALID_ARGUMENT,
            "the namespace belongs to cluster " + ours + ", ZooKeeper's to " + theirs);
      }
      mds.role(MdsServer.Role.LEADER);
      LOG.info(
          "{}: leading with epoch {} from record {} in ledger {} ({} ms to take over)",
          id,
          epoch,
          first,
          h.getId(),
          (System.nanoTime() - started) / 1_000_000);
    } catch (IOException | RuntimeException e) {
      mds.stepDown(generation, "could not take over: " + e.getMessage());
    }
  }

  /**
   * Creates this term's next ledger (the current one is closed) and publishes it: {@link
   * LedgerJournal}'s roller, on the namespace thread.
   */
  private WriteHandle nextLedger(HaCoordinator c, Ledgers l, long epoch, long first)
      throws IOException {
    WriteHandle h = l.create(epoch, Duration.ZERO, config.get(MdsHaConfigKeys.CONNECT_TIMEOUT));
    // If publishing fails the new ledger is left (empty) rather than deleted: after a lost
    // connection the list may name it after all, and a successor must find it.
    publish(c, l, h, first);
    return h;
  }

  /**
   * Publishes the journal's ledger list with {@code h}, starting at record {@code first}, as its
   * last, without the oldest ledgers whose records are all more than {@code
   * braid.mds.ha.retained-records} behind (deleted once the list no longer names them), in a
   * ZooKeeper transaction that also checks this replica still holds the latch.
   */
  private void publish(HaCoordinator c, Ledgers l, WriteHandle h, long first) throws IOException {
    LedgerList before = published;
    LedgerList next =
        before
            .plus(new LedgerList.Ledger(h.getId(), first))
            .trimmedBefore(first - config.get(MdsHaConfigKeys.LEDGER_RETAINED_RECORDS));
    if (next.ledgers().size() < before.ledgers().size() + 1) {
      // The replicas' stores are not synced (the ledgers are the durable copy): before records
      // leave the ledgers, this store makes them durable, so a cluster-wide power loss leaves at
      // least one store that reaches the journal's new first record.
      store.syncWal();
    }
    c.publishLedgers(next, publishedVersion);
    // A znode's version rises by one with each change, and only the leader changes this one.
    publishedVersion = publishedVersion < 0 ? 0 : publishedVersion + 1;
    published = next;
    for (LedgerList.Ledger old : before.ledgers()) {
      if (!next.ledgers().contains(old)) {
        l.delete(old.id());
      }
    }
  }

  /** The election and the BookKeeper client; the MDS closes the rest (the bookie last). */
  @Override
  public void close() {
    ha.shutdownNow();
    LedgerTailer t = tailer;
    if (t != null) {
      t.stop();
    }
    RpcServer s = standby;
    if (s != null) {
      s.close();
    }
    HaCoordinator c = coordinator;
    if (c != null) {
      c.close();
    }
    Ledgers l = ledgers;
    if (l != null) {
      l.close();
    }
  }
}
