package io.braidfs.mds.cluster;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.braidfs.common.clock.Clock;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.mds.cluster.DataServer.DataDir;
import io.braidfs.mds.cluster.DataServer.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data servers the MDS knows: registration with id assignment, heartbeats, liveness, and the
 * totals {@code StatFs} reports. Pure logic: the RPC handlers of {@code ClusterService} call it,
 * and persisting registrations is the store's business.
 *
 * <p><b>Ids.</b> A server's id is an unsigned 32-bit value, never 0, assigned at its first
 * registration and never reused. The identity of a registration is: the id it carries when it is
 * not 0 (the id the data server persisted in its data directories; an id this registry has not
 * seen, for instance after an MDS restart, is adopted and later ids are assigned above it);
 * otherwise the id of a known server at the same host and port whose data directories have the same
 * storage ids (a retry whose answer was lost, or a restart before the id was persisted); otherwise
 * a new id. Only one server can listen at an address, so registering retires any other server known
 * at the same host and port: it is forgotten, and reported once by {@link #expireDeadServers()}.
 *
 * <p><b>Liveness.</b> A server is live while less than {@link MdsClusterConfigKeys#DEAD_INTERVAL}
 * has passed since its last heartbeat or registration, measured on the injected {@link Clock}: it
 * is dead from the instant the interval has fully elapsed. Liveness is computed from the clock on
 * every read, so {@link #liveServers()} and {@link #totals()} never list a server whose interval
 * ran out, whether or not anyone swept. {@link #expireDeadServers()} is the event side: called
 * periodically, it marks the newly dead and returns them once each, so that re-replication can be
 * scheduled. The next heartbeat (or registration) makes a dead server live again and reports {@link
 * HeartbeatOutcome#REVIVED}.
 *
 * <p>Thread-safety: thread-safe. Heartbeats arrive on many threads; one lock guards all state, and
 * every critical section is short and does no I/O: a heartbeat is O(1), listing, totals and
 * sweeping are O(servers). Logging happens after the lock is released. Everything returned is an
 * immutable snapshot, so callers (such as {@link ChunkPlacement}) work on it without holding the
 * lock.
 */
public final class DataServerRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(DataServerRegistry.class);
  private static final String NAME = "mds";
  private static final long MAX_ID = 0xFFFF_FFFFL;

  /**
   * What a heartbeat found.
   *
   * <p>Thread-safety: immutable.
   */
  public enum HeartbeatOutcome {
    /** Recorded; the server was live. */
    ACCEPTED,
    /** Recorded; the server was dead (its interval had run out) and is live again. */
    REVIVED,
    /** Not recorded: no server has this id (say, after an MDS restart); it must register again. */
    UNKNOWN
  }

  /**
   * A data server's announcement of itself ({@code RegisterDataServerRequest}).
   *
   * <p>Thread-safety: immutable.
   *
   * @param requestedId the id persisted in the server's data directories, or 0 on its first start
   * @param host the host name or address on which its DataService listens
   * @param port the TCP port of its DataService, 1 to 65535
   * @param rack the network topology path ({@code /dc1/rack7}); empty when unknown
   * @param dataDirs its storage directories
   * @param capacityBytes total capacity available to Braid, in bytes
   */
  public record Registration(
      int requestedId,
      String host,
      int port,
      String rack,
      List<DataDir> dataDirs,
      long capacityBytes) {
    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException if {@code host} is blank, {@code port} is outside 1 to 65535
     *     or {@code capacityBytes} is negative
     * @throws NullPointerException if a reference is null
     */
    public Registration {
      DataServer.checkAddress(host, port);
      Objects.requireNonNull(rack, "rack");
      dataDirs = List.copyOf(dataDirs);
      if (capacityBytes < 0) {
        throw new IllegalArgumentException("capacityBytes must be >= 0: " + capacityBytes);
      }
    }
  }

  /**
   * Sums over the live data servers' file systems, each counted once, for {@code StatFs}. Raw
   * figures: every replica counts.
   *
   * <p>Thread-safety: immutable.
   *
   * @param capacityBytes total capacity, in bytes
   * @param usedBytes bytes used by replicas
   * @param availableBytes bytes available for new replicas
   * @param liveServers the number of live servers
   */
  public record Totals(long capacityBytes, long usedBytes, long availableBytes, int liveServers) {}

  /** Mutable state of one server. All fields are guarded by {@link #lock}. */
  private static final class Entry {
    final int id;
    String host = "";
    int port;
    String rack = "";
    List<DataDir> dataDirs = List.of();
    Usage usage = Usage.unreported(0);
    long lastHeartbeatNanos;

    /** Reported dead by {@link #expireDeadServers()} and not heard from since. */
    boolean markedDead;

    Entry(int id) {
      this.id = id;
    }
  }

  private final Clock clock;
  private final Topology topology;
  private final long startNanos;
  private final long startupGraceNanos;
  private final Duration heartbeatInterval;
  private final Duration deadInterval;
  private final long deadIntervalNanos;

  private final Object lock = new Object();

  /** By id, in unsigned order. */
  @GuardedBy("lock")
  private final Map<Integer, Entry> servers = new TreeMap<>(Integer::compareUnsigned);

  /** Operators' states of servers not in service, by id (servers not yet registered too). */
  @GuardedBy("lock")
  private final Map<Integer, AdminState> states = new HashMap<>();

  /** Servers forgotten because another took their address, not yet reported. */
  @GuardedBy("lock")
  private final List<DataServer> retired = new ArrayList<>();

  @GuardedBy("lock")
  private boolean graceOver;

  /** The next id to assign, in [1, 2^32]; 2^32 means exhausted. */
  @GuardedBy("lock")
  private long nextId = 1;

  /**
   * A registry with no servers, reading {@link MdsClusterConfigKeys#HEARTBEAT_INTERVAL} and {@link
   * MdsClusterConfigKeys#DEAD_INTERVAL} from {@code config}.
   *
   * @throws IllegalArgumentException if the dead interval is not longer than the heartbeat interval
   * @throws NullPointerException if an argument is null
   */
  public DataServerRegistry(BraidConfig config, Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.topology = Topology.from(config);
    this.startNanos = clock.nanoTime();
    this.startupGraceNanos = config.get(MdsClusterConfigKeys.STARTUP_GRACE).toNanos();
    this.heartbeatInterval = config.get(MdsClusterConfigKeys.HEARTBEAT_INTERVAL);
    this.deadInterval = config.get(MdsClusterConfigKeys.DEAD_INTERVAL);
    if (deadInterval.compareTo(heartbeatInterval) <= 0) {
      throw new IllegalArgumentException(
          String.format(
              "%s (%s) must be longer than %s (%s), or every server would be declared dead",
              MdsClusterConfigKeys.DEAD_INTERVAL,
              deadInterval,
              MdsClusterConfigKeys.HEARTBEAT_INTERVAL,
              heartbeatInterval));
    }
    this.deadIntervalNanos = deadInterval.toNanos();
  }

  /** How often data servers are told to heartbeat. */
  public Duration heartbeatInterval() {
    return heartbeatInterval;
  }

  /** Time without a heartbeat after which a server is dead. */
  public Duration deadInterval() {
    return deadInterval;
  }

  /**
   * Registers a data server, or re-registers a known one, under the identity rule of the class
   * comment. The server is live from now on; its usage is {@link Usage#unreported} (so placement
   * passes it over) until its first heartbeat. A known server's address, rack and directories are
   * replaced by the new ones.
   *
   * @return the server as registered; its {@link DataServer#id()} is the id to send back
   * @throws IllegalStateException if a new id is needed and all 2^32 - 1 have been assigned
   * @throws IllegalArgumentException if the requested id belongs to another live server (another
   *     address and none of its storage ids)
   * @throws NullPointerException if {@code registration} is null
   */
  public DataServer register(Registration registration) {
    Objects.requireNonNull(registration, "registration");
    DataServer registered;
    List<DataServer> displaced = new ArrayList<>();
    boolean isNew;
    synchronized (lock) {
      long now = clock.nanoTime();
      int id = resolveId(registration);
      Entry e = servers.get(id);
      isNew = e == null;
      if (e == null) {
        e = new Entry(id);
        servers.put(id, e);
      }
      retireOthersAt(registration.host(), registration.port(), id, displaced);
      e.host = registration.host();
      e.port = registration.port();
      e.rack = topology.rackOf(registration.host(), registration.rack());
      e.dataDirs = registration.dataDirs();
      e.usage = Usage.unreported(registration.capacityBytes(), registration.dataDirs());
      e.lastHeartbeatNanos = now;
      e.markedDead = false;
      registered = snapshot(e, now);
    }
    for (DataServer old : displaced) {
      LOG.warn("{}: {} registered at the address of {}, which is forgotten", NAME, registered, old);
    }
    LOG.info(
        "{}: {} {} (rack '{}', {} data dirs, {} bytes)",
        NAME,
        isNew ? "registered" : "re-registered",
        registered,
        registered.rack(),
        registered.dataDirs().size(),
        registration.capacityBytes());
    return registered;
  }

  /**
   * Records a heartbeat: the server's usage and the current time. A dead server becomes live.
   *
   * @param serverId the id the server registered with
   * @param usage what it reported
   * @return whether it was live, dead, or unknown (then nothing is recorded and it must register)
   * @throws NullPointerException if {@code usage} is null
   */
  public HeartbeatOutcome heartbeat(int serverId, Usage usage) {
    Objects.requireNonNull(usage, "usage");
    DataServer revived;
    synchronized (lock) {
      Entry e = servers.get(serverId);
      if (e == null) {
        return HeartbeatOutcome.UNKNOWN;
      }
      long now = clock.nanoTime();
      boolean wasDead = e.markedDead || !isLive(e, now);
      e.usage = usage;
      e.lastHeartbeatNanos = now;
      e.markedDead = false;
      if (!wasDead) {
        return HeartbeatOutcome.ACCEPTED;
      }
      revived = snapshot(e, now);
    }
    LOG.info("{}: {} is alive again", NAME, revived);
    return HeartbeatOutcome.REVIVED;
  }

  /**
   * Marks every server whose dead interval has run out since the last call, and returns them (and
   * any server forgotten because another registered at its address), each once, in id order. A
   * server that dies, revives and dies again is returned again. Call it periodically (say every
   * heartbeat interval) to schedule re-replication.
   */
  public List<DataServer> expireDeadServers() {
    List<DataServer> dead = new ArrayList<>();
    List<DataServer> forgotten;
    synchronized (lock) {
      long now = clock.nanoTime();
      forgotten = List.copyOf(retired); // logged when they were replaced
      retired.clear();
      for (Entry e : servers.values()) {
        if (!e.markedDead && !isLive(e, now)) {
          e.markedDead = true;
          dead.add(snapshot(e, now));
        }
      }
    }
    for (DataServer d : dead) {
      LOG.warn("{}: {} is dead: no heartbeat for {}", NAME, d, deadInterval);
    }
    dead.addAll(forgotten);
    dead.sort((a, b) -> Integer.compareUnsigned(a.id(), b.id()));
    return List.copyOf(dead);
  }

  /**
   * Sets a server's state as an operator asked (or as draining finished); the state outlives
   * registrations, and is kept for ids not registered yet (restored from the store at start).
   */
  public void setState(int serverId, AdminState state) {
    Objects.requireNonNull(state, "state");
    synchronized (lock) {
      if (state == AdminState.IN_SERVICE) {
        states.remove(serverId);
      } else {
        states.put(serverId, state);
      }
    }
  }

  /** The operator's state of a server (in service unless set otherwise). */
  public AdminState state(int serverId) {
    synchronized (lock) {
      return states.getOrDefault(serverId, AdminState.IN_SERVICE);
    }
  }

  /**
   * Whether the MDS is still in its start-up grace ({@link MdsClusterConfigKeys#STARTUP_GRACE}):
   * data servers are still registering and reporting.
   */
  public boolean inStartupGrace() {
    return startupGraceRemainingNanos() > 0;
  }

  /** Nanoseconds left of the start-up grace; 0 once it is over. */
  public long startupGraceRemainingNanos() {
    synchronized (lock) {
      if (graceOver) {
        return 0;
      }
      long left = startupGraceNanos - (clock.nanoTime() - startNanos);
      if (left <= 0) {
        graceOver = true;
        return 0;
      }
      return left;
    }
  }

  /**
   * Whether a server that has not registered since the MDS started may still be on its way: less
   * than the start-up grace plus the dead interval has passed since the start. Until then its
   * replicas count, so a slow server does not start a storm of copies.
   */
  public boolean mayStillRegister() {
    return clock.nanoTime() - startNanos < startupGraceNanos + deadIntervalNanos;
  }

  /** Ends the start-up grace early: every server expected has registered and reported. */
  public void endStartupGrace() {
    synchronized (lock) {
      graceOver = true;
    }
  }

  /** The live servers that accept new replicas (in service), in id order. */
  public List<DataServer> placeableServers() {
    synchronized (lock) {
      long now = clock.nanoTime();
      List<DataServer> out = new ArrayList<>();
      for (Entry e : servers.values()) {
        if (isLive(e, now) && stateOf(e).acceptsReplicas()) {
          out.add(snapshot(e, now));
        }
      }
      return List.copyOf(out);
    }
  }

  /** The live servers, in id order. */
  public List<DataServer> liveServers() {
    synchronized (lock) {
      long now = clock.nanoTime();
      List<DataServer> live = new ArrayList<>();
      for (Entry e : servers.values()) {
        if (isLive(e, now)) {
          live.add(snapshot(e, now));
        }
      }
      return List.copyOf(live);
    }
  }

  /** Every known server, live or dead, in id order (for the status page). */
  public List<DataServer> servers() {
    synchronized (lock) {
      long now = clock.nanoTime();
      List<DataServer> all = new ArrayList<>(servers.size());
      for (Entry e : servers.values()) {
        all.add(snapshot(e, now));
      }
      return List.copyOf(all);
    }
  }

  /** The server with this id, live or dead, or null if none is known. */
  public @Nullable DataServer server(int serverId) {
    synchronized (lock) {
      Entry e = servers.get(serverId);
      return e == null ? null : snapshot(e, clock.nanoTime());
    }
  }

  /**
   * Capacity, used and available bytes of the live servers, and their number, with every file
   * system counted once however many data directories (of one server or of several) are on it.
   * Directories are grouped by {@link DataServer.DataDir#fileSystemId()}; a directory that names
   * none, and a server that reported no directories, is a file system of its own. A file system's
   * capacity is the largest its directories report (each reports the same disk), its used bytes the
   * sum of theirs (each holds its own replicas), and its available bytes what the directory with
   * the most room reports, but no more than its capacity less everything used (free space on the
   * disk is shared, so it is not added up). Sums saturate at {@link Long#MAX_VALUE} rather than
   * overflow.
   */
  public Totals totals() {
    Map<String, long[]> fileSystems = new HashMap<>();
    int live = 0;
    synchronized (lock) {
      long now = clock.nanoTime();
      for (Entry e : servers.values()) {
        if (!isLive(e, now)) {
          continue;
        }
        live++;
        Usage u = e.usage;
        String own = "ds" + Integer.toUnsignedString(e.id);
        if (u.dirs().isEmpty()) {
          add(fileSystems, own, u.capacityBytes(), u.usedBytes(), u.availableBytes());
        }
        for (int i = 0; i < u.dirs().size(); i++) {
          DataServer.DirSpace d = u.dirs().get(i);
          String key = d.fileSystemId().isEmpty() ? own + "/" + i : "fs:" + d.fileSystemId();
          add(fileSystems, key, d.capacityBytes(), d.usedBytes(), d.availableBytes());
        }
      }
    }
    long capacity = 0;
    long used = 0;
    long available = 0;
    for (long[] f : fileSystems.values()) {
      capacity = saturatedAdd(capacity, f[0]);
      used = saturatedAdd(used, f[1]);
      available = saturatedAdd(available, Math.min(f[2], Math.max(0, f[0] - f[1])));
    }
    return new Totals(capacity, used, available, live);
  }

  /** Merges one directory's space into its file system's {capacity, used, available}. */
  private static void add(
      Map<String, long[]> fileSystems, String key, long capacity, long used, long available) {
    long[] f = fileSystems.computeIfAbsent(key, k -> new long[3]);
    f[0] = Math.max(f[0], capacity);
    f[1] = saturatedAdd(f[1], used);
    f[2] = Math.max(f[2], available);
  }

  // ---- helpers, all called with the lock held ------------------------------------------------

  private boolean isLive(Entry e, long now) {
    return now - e.lastHeartbeatNanos < deadIntervalNanos;
  }

  @GuardedBy("lock") // callers hold it
  private DataServer snapshot(Entry e, long now) {
    return snapshot(e, isLive(e, now));
  }

  @GuardedBy("lock") // callers hold it
  private AdminState stateOf(Entry e) {
    return states.getOrDefault(e.id, AdminState.IN_SERVICE);
  }

  @GuardedBy("lock") // callers hold it
  private DataServer snapshot(Entry e, boolean live) {
    return new DataServer(
        e.id, e.host, e.port, e.rack, e.dataDirs, e.usage, e.lastHeartbeatNanos, live, stateOf(e));
  }

  @GuardedBy("lock") // callers hold it
  private int resolveId(Registration r) {
    if (r.requestedId() != 0) {
      Entry holder = servers.get(r.requestedId());
      if (holder != null
          && isLive(holder, clock.nanoTime())
          && !sameAddress(holder, r.host(), r.port())
          && Collections.disjoint(storageIds(holder.dataDirs), storageIds(r.dataDirs()))) {
        // Another machine (other address, none of the holder's disks) claims a live server's id:
        // refuse it rather than let it silently take over the other's replicas. A server that
        // kept one of its disks is the same server restarted, perhaps on another port.
        throw new IllegalArgumentException(
            "data server id "
                + Integer.toUnsignedString(r.requestedId())
                + " is held by live server "
                + holder.host
                + ":"
                + holder.port
                + " with other storage; "
                + r.host()
                + ":"
                + r.port()
                + " must not reuse it");
      }
      long requested = Integer.toUnsignedLong(r.requestedId());
      if (requested >= nextId) {
        // Adopted: a server that kept its id across an MDS restart. Never hand it out again.
        nextId = requested + 1;
      }
      return r.requestedId();
    }
    Set<String> storageIds = storageIds(r.dataDirs());
    for (Entry e : servers.values()) {
      if (sameAddress(e, r.host(), r.port()) && storageIds(e.dataDirs).equals(storageIds)) {
        return e.id;
      }
    }
    if (nextId > MAX_ID) {
      throw new IllegalStateException("all 2^32 - 1 data server ids have been assigned");
    }
    return (int) nextId++;
  }

  @GuardedBy("lock") // callers hold it
  private void retireOthersAt(String host, int port, int keep, List<DataServer> out) {
    for (Iterator<Entry> it = servers.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.id != keep && sameAddress(e, host, port)) {
        it.remove();
        DataServer gone = snapshot(e, false);
        if (!e.markedDead) {
          retired.add(gone);
        }
        out.add(gone);
      }
    }
  }

  private static boolean sameAddress(Entry e, String host, int port) {
    return e.port == port && DataServer.hostKey(e.host).equals(DataServer.hostKey(host));
  }

  private static Set<String> storageIds(List<DataDir> dirs) {
    Set<String> ids = new HashSet<>();
    for (DataDir d : dirs) {
      ids.add(d.storageId());
    }
    return ids;
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
