package io.braidfs.mds.cluster;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.DataSize;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;

/**
 * Chooses the data servers that hold the replicas of new chunks, and the order of each chunk's
 * write chain.
 *
 * <p><b>Rules</b>, strongest first, for each replica of each chunk of a chunk set:
 *
 * <ol>
 *   <li>Only live servers ({@link DataServerRegistry#liveServers()}) with room: {@code
 *       availableBytes - min-free} ({@link MdsClusterConfigKeys#MIN_FREE}) must hold a whole chunk,
 *       counting the chunks already given to the server by the same call. A server that registered
 *       but has not heartbeated reports nothing available and is never chosen.
 *   <li>Never two replicas of one chunk on one server.
 *   <li>Replicas of one chunk on distinct hosts while an unused host with room remains; with at
 *       least {@code replication} such hosts this always succeeds, with fewer the remaining
 *       replicas fall back to distinct servers. The second replica goes to another rack than the
 *       first when a server with room is on one (HDFS's rule), so a chunk survives losing a rack.
 *   <li>Spread over the set: each chunk's first pick (its <em>primary</em>) is a server that is no
 *       other chunk's primary when one is left, and every pick prefers the servers holding the
 *       fewest replicas of the set so far, so a striped read or write uses many servers.
 *   <li>Among what remains, a weighted random draw from the injected {@link Random}: weight {@code
 *       room / (1 + activeTransfers / busy-transfers)} ({@link
 *       MdsClusterConfigKeys#BUSY_TRANSFERS}), so emptier and idler servers are preferred without
 *       every allocation between two heartbeats landing on the single emptiest one.
 * </ol>
 *
 * <p><b>Chain order.</b> The writer sends a chunk to the first replica of its list, which forwards
 * to the next. Replicas are ordered nearest-first from the client's host when it is given (same
 * host, then same rack, then the rest; the client's rack is known when a data server is registered
 * on its host), then by fewest active transfers, then by the order they were chosen. In a chunk
 * set, the head of each chunk's chain is its primary or a server that is no chunk's primary and not
 * yet another chunk's head, so heads stay distinct whenever the primaries are.
 *
 * <p><b>Failures</b> are {@link IOException}s from {@link StatusExceptions#toIOException}: {@link
 * Status#UNAVAILABLE} (retriable) when fewer servers are live than needed, {@link Status#NO_SPACE}
 * when enough are live but too few have room. Messages name how many servers were needed and how
 * many are live.
 *
 * <p>Determinism: with a seeded {@code Random} and the same registry state, the same calls in the
 * same order give the same choices, so tests and journal replays can reproduce them.
 *
 * <p>Thread-safety: thread-safe. It holds no mutable state of its own; it reads immutable snapshots
 * from the (thread-safe) registry and draws from the {@code Random}, which is thread-safe. Choices
 * are reproducible only when calls are made one at a time.
 */
public final class ChunkPlacement {
  private static final int SAME_HOST = 0;
  private static final int SAME_RACK = 1;
  private static final int FARTHER = 2;

  private final DataServerRegistry registry;
  private final long minFreeBytes;
  private final int busyTransfers;
  private final Random random;

  /**
   * A placement over the servers of {@code registry}, reading {@link MdsClusterConfigKeys#MIN_FREE}
   * and {@link MdsClusterConfigKeys#BUSY_TRANSFERS} from {@code config}.
   *
   * @param random the source of every random choice; seed it for reproducible choices
   * @throws NullPointerException if an argument is null
   */
  public ChunkPlacement(DataServerRegistry registry, BraidConfig config, Random random) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.minFreeBytes = config.get(MdsClusterConfigKeys.MIN_FREE).toBytes();
    this.busyTransfers = config.get(MdsClusterConfigKeys.BUSY_TRANSFERS);
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * Chooses the replicas of every chunk of a new chunk set.
   *
   * @param layout the file's resolved layout: {@code stripeWidth} chunks of {@code replication}
   *     replicas each, every chunk up to {@code chunkSize} bytes
   * @param clientHost the host of the writing client, for chain order; null or blank if unknown
   * @return {@code stripeWidth} lists, entry {@code i} being chunk {@code i}'s {@code replication}
   *     distinct servers in chain order (the writer sends to the first); immutable
   * @throws IOException with {@link Status#UNAVAILABLE} if fewer than {@code replication} servers
   *     are live, or {@link Status#NO_SPACE} if too few of them have room
   * @throws NullPointerException if {@code layout} is null
   */
  public List<List<DataServer>> chooseChunkSet(Layout layout, @Nullable String clientHost)
      throws IOException {
    Objects.requireNonNull(layout, "layout");
    int width = layout.stripeWidth();
    int replication = layout.replication();
    long chunkSize = layout.chunkSize();
    List<DataServer> live = registry.placeableServers();
    String op = "allocate chunk set";
    if (live.size() < replication) {
      throw tooFew(
          String.format(
              "%s: replication %d needs %d live data servers in service, %d",
              op, replication, replication, live.size()));
    }
    List<DataServer> servers = withRoom(live, Set.of(), chunkSize);
    if (servers.size() < replication) {
      awaitingFirstHeartbeat(op, live, Set.of());
      throw noSpace(op, replication, chunkSize, servers.size(), live.size() + " live");
    }
    Draft draft = new Draft(servers, roomOf(servers));
    int[][] chosen = new int[width][];
    for (int i = 0; i < width; i++) {
      chosen[i] = chooseChunk(draft, replication, chunkSize);
      if (chosen[i].length < replication) {
        // Each server had room for a chunk, but this set has used it up.
        throw StatusExceptions.toIOException(
            Status.NO_SPACE,
            String.format(
                "%s: chunk %d of %d needs %d data servers with room left for a %s chunk beyond the"
                    + " %s reserve, %d found among the %d live",
                op,
                i,
                width,
                replication,
                DataSize.ofBytes(chunkSize),
                DataSize.ofBytes(minFreeBytes),
                chosen[i].length,
                live.size()));
      }
    }
    return order(servers, chosen, draft.primary, clientHost);
  }

  /**
   * Chooses a server for a new replica of a chunk whose replica on {@code failedServerId} failed.
   * The new server is live, has room, is none of {@code currentHolders} nor the failed server, and
   * is on a host that holds none of the surviving replicas while such a server exists.
   *
   * @param layout the file's layout; only its {@code chunkSize} matters
   * @param currentHolders the ids of the servers holding the chunk (the failed one may be among
   *     them)
   * @param failedServerId the id of the server whose replica failed
   * @return the chosen server
   * @throws IOException with {@link Status#UNAVAILABLE} if no other server is live, or {@link
   *     Status#NO_SPACE} if none of the others has room
   * @throws NullPointerException if {@code layout} or {@code currentHolders} is null
   */
  public DataServer chooseReplacement(
      Layout layout, Collection<Integer> currentHolders, int failedServerId) throws IOException {
    Objects.requireNonNull(layout, "layout");
    Set<Integer> excluded = new HashSet<>(currentHolders);
    excluded.add(failedServerId);
    List<Integer> survivors = new ArrayList<>(currentHolders);
    survivors.remove(Integer.valueOf(failedServerId));
    return choose(
        "replace the replica on data server " + Integer.toUnsignedString(failedServerId),
        layout.chunkSize(),
        survivors,
        excluded);
  }

  /**
   * Chooses the server for a new copy of a chunk (re-replication): live, in service, with room,
   * none of {@code excluded}; on a host holding none of the {@code survivors} while one exists, and
   * off their rack when they all share one.
   *
   * @throws IOException with {@link Status#UNAVAILABLE} (BUSY during the start-up grace) if no
   *     other server is in service, or {@link Status#NO_SPACE} if none of the others has room
   */
  public DataServer chooseRepairTarget(
      long chunkSize, Collection<Integer> survivors, Set<Integer> excluded) throws IOException {
    Set<Integer> all = new HashSet<>(excluded);
    all.addAll(survivors);
    return choose("re-replicate", chunkSize, survivors, all);
  }

  private DataServer choose(
      String op, long chunkSize, Collection<Integer> survivors, Set<Integer> excluded)
      throws IOException {
    Set<String> survivingHosts = new HashSet<>();
    Set<String> survivingRacks = new HashSet<>();
    for (int id : survivors) {
      DataServer holder = registry.server(id);
      if (holder != null) {
        survivingHosts.add(holder.hostKey());
        survivingRacks.add(holder.rack());
      }
    }
    List<DataServer> live = registry.placeableServers();
    long others = live.stream().filter(s -> !excluded.contains(s.id())).count();
    if (others == 0) {
      throw tooFew(
          String.format(
              "%s: needs a live data server in service besides the %d excluded, %d in service",
              op, excluded.size(), live.size()));
    }
    List<DataServer> servers = withRoom(live, excluded, chunkSize);
    if (servers.isEmpty()) {
      awaitingFirstHeartbeat(op, live, excluded);
      throw noSpace(op, 1, chunkSize, 0, others + " live non-holders");
    }
    long[] room = roomOf(servers);
    List<Integer> pool = indices(servers.size(), k -> true);
    pool = preferIfAny(pool, k -> !survivingHosts.contains(servers.get(k).hostKey()));
    if (survivingRacks.size() == 1) {
      // All survivors share a rack: a copy on another rack survives losing that rack.
      pool = preferIfAny(pool, k -> !survivingRacks.contains(servers.get(k).rack()));
    }
    return servers.get(weightedPick(pool, servers, room));
  }

  /**
   * The write-chain order of one chunk's replicas: nearest first from {@code clientHost} (same
   * host, then same rack, then the rest), then fewest active transfers, then the given order.
   *
   * @param replicas the replicas, in any order
   * @param clientHost the writer's host; null or blank if unknown (then the order is by load)
   * @return the same servers, reordered; immutable
   * @throws NullPointerException if {@code replicas} is null
   */
  public List<DataServer> chainOrder(List<DataServer> replicas, @Nullable String clientHost) {
    Comparator<DataServer> nearest = nearestFirst(clientHost);
    List<DataServer> sorted = new ArrayList<>(replicas);
    sorted.sort(nearest); // stable: ties keep the given order
    return List.copyOf(sorted);
  }

  /**
   * The order readers get a chunk's replicas in: nearest first from {@code clientHost} (same host,
   * then same rack, then the rest); ties keep the given order (the chain's), so load does not
   * reorder replicas a client sees as equally near.
   *
   * @param replicas the replicas, in their stored order
   * @param clientHost the reader's host; null or blank if unknown (then the given order)
   * @return the same servers, reordered; immutable
   * @throws NullPointerException if {@code replicas} is null
   */
  public List<DataServer> readOrder(List<DataServer> replicas, @Nullable String clientHost) {
    List<DataServer> sorted = new ArrayList<>(replicas);
    if (clientHost != null && !clientHost.isBlank()) {
      sorted.sort(distanceFrom(clientHost)); // stable
    }
    return List.copyOf(sorted);
  }

  // ---- helpers ------------------------------------------------------------------------------

  /**
   * Too few servers in service: BUSY while the MDS is starting (data servers are still registering,
   * and clients retry BUSY), UNAVAILABLE after.
   */
  private IOException tooFew(String message) {
    long grace = registry.startupGraceRemainingNanos();
    if (grace > 0) {
      return StatusExceptions.toIOException(
          Status.BUSY,
          message
              + "; the MDS started recently and data servers are still registering (up to "
              + (grace / 1_000_000 + 1)
              + " ms more): retry");
    }
    return StatusExceptions.toIOException(Status.UNAVAILABLE, message);
  }

  /**
   * The servers of a chunk set being chosen, by index, with what the set has taken so far.
   *
   * <p>Thread-safety: confined to one call.
   */
  private static final class Draft {
    final List<DataServer> servers;

    /** Bytes left beyond the reserve, less the chunks given out by this call. */
    final long[] room;

    /** Replicas of the set on each server so far. */
    final int[] uses;

    /** Whether a server is some chunk's primary (first pick). */
    final boolean[] primary;

    /** Each server's {@link DataServer#hostKey()}, computed once per set. */
    final String[] hostKeys;

    Draft(List<DataServer> servers, long[] room) {
      this.servers = servers;
      this.room = room;
      this.uses = new int[servers.size()];
      this.primary = new boolean[servers.size()];
      this.hostKeys = new String[servers.size()];
      for (int k = 0; k < hostKeys.length; k++) {
        hostKeys[k] = servers.get(k).hostKey();
      }
    }
  }

  /**
   * Picks the replicas of one chunk by the rules of the class comment and charges them to {@code
   * d}. Returns their indices in the order picked (the primary first), fewer than {@code
   * replication} if the servers ran out of room.
   */
  private int[] chooseChunk(Draft d, int replication, long chunkSize) {
    int n = d.servers.size();
    String[] hostKeys = d.hostKeys;
    int[] picked = new int[replication];
    Set<String> hosts = new HashSet<>();
    // Candidates in index order, narrowed in place by each rule (preferIfAny on a list, without
    // boxing: this runs for every create).
    int[] pool = new int[n];
    for (int j = 0; j < replication; j++) {
      int size = 0;
      for (int k = 0; k < n; k++) {
        if (d.room[k] >= chunkSize && !contains(picked, j, k)) {
          pool[size++] = k;
        }
      }
      if (size == 0) {
        return Arrays.copyOf(picked, j);
      }
      size = preferIfAny(pool, size, k -> !hosts.contains(hostKeys[k]));
      if (j == 1) {
        // The second replica off the first's rack, so a chunk survives the loss of a rack.
        String firstRack = d.servers.get(picked[0]).rack();
        size = preferIfAny(pool, size, k -> !d.servers.get(k).rack().equals(firstRack));
      }
      if (j == 0) {
        size = preferIfAny(pool, size, k -> !d.primary[k]);
      }
      int fewest = Integer.MAX_VALUE;
      for (int p = 0; p < size; p++) {
        fewest = Math.min(fewest, d.uses[pool[p]]);
      }
      int least = fewest;
      size = preferIfAny(pool, size, k -> d.uses[k] == least);
      int k = weightedPick(pool, size, d.servers, d.room);
      picked[j] = k;
      hosts.add(hostKeys[k]);
      d.uses[k]++;
      d.room[k] -= chunkSize;
      d.primary[k] |= j == 0;
    }
    return picked;
  }

  /**
   * Keeps the first {@code size} members of {@code pool} that pass {@code test}, in order, if any
   * does; otherwise leaves them all. Returns the new size.
   */
  private static int preferIfAny(int[] pool, int size, IntPredicate test) {
    int kept = 0;
    for (int p = 0; p < size; p++) {
      if (test.test(pool[p])) {
        kept++;
      }
    }
    if (kept == 0 || kept == size) {
      return size;
    }
    int out = 0;
    for (int p = 0; p < size; p++) {
      if (test.test(pool[p])) {
        pool[out++] = pool[p];
      }
    }
    return out;
  }

  /** {@link #weightedPick(List, List, long[])} over the first {@code size} members of a pool. */
  private int weightedPick(int[] pool, int size, List<DataServer> servers, long[] room) {
    double[] weights = new double[size];
    double total = 0;
    for (int p = 0; p < size; p++) {
      int k = pool[p];
      double load = 1.0 + (double) servers.get(k).usage().activeTransfers() / busyTransfers;
      weights[p] = room[k] / load;
      total += weights[p];
    }
    double x = random.nextDouble() * total;
    for (int p = 0; p < size; p++) {
      x -= weights[p];
      if (x < 0) {
        return pool[p];
      }
    }
    return pool[size - 1]; // rounding left a sliver past the last weight
  }

  private long[] roomOf(List<DataServer> servers) {
    long[] room = new long[servers.size()];
    for (int k = 0; k < room.length; k++) {
      room[k] = servers.get(k).usage().availableBytes() - minFreeBytes;
    }
    return room;
  }

  /**
   * Chain order for every chunk. A chunk's head is its own primary or a server that is nobody's
   * primary and no other chunk's head, so heads are as distinct as the primaries: all distinct when
   * there are at least {@code stripeWidth} servers, and covering every server when there are fewer
   * (then every server is a primary, and each chunk's head is its primary).
   */
  private List<List<DataServer>> order(
      List<DataServer> servers, int[][] chosen, boolean[] primary, @Nullable String clientHost) {
    Comparator<DataServer> nearest = nearestFirst(clientHost);
    boolean[] head = new boolean[servers.size()];
    List<List<DataServer>> chunks = new ArrayList<>(chosen.length);
    for (int[] replicas : chosen) {
      int own = replicas[0];
      List<Integer> heads = new ArrayList<>();
      for (int k : replicas) {
        if (k == own || (!primary[k] && !head[k])) {
          heads.add(k);
        }
      }
      // Ties keep the order of choice (the primary first).
      int first = heads.get(0);
      for (int k : heads) {
        if (nearest.compare(servers.get(k), servers.get(first)) < 0) {
          first = k;
        }
      }
      head[first] = true;
      List<DataServer> rest = new ArrayList<>(replicas.length);
      for (int k : replicas) {
        if (k != first) {
          rest.add(servers.get(k));
        }
      }
      rest.sort(nearest);
      rest.add(0, servers.get(first));
      chunks.add(List.copyOf(rest));
    }
    return List.copyOf(chunks);
  }

  /** Orders by distance from the client host, then by active transfers. */
  private Comparator<DataServer> nearestFirst(@Nullable String clientHost) {
    if (clientHost == null || clientHost.isBlank()) {
      return Comparator.comparingInt(s -> s.usage().activeTransfers());
    }
    return distanceFrom(clientHost).thenComparingInt(s -> s.usage().activeTransfers());
  }

  /** Orders by distance from {@code clientHost}: same host, same rack, farther. */
  private Comparator<DataServer> distanceFrom(String clientHost) {
    String hostKey = DataServer.hostKey(clientHost.strip());
    String rack = "";
    for (DataServer s : registry.servers()) {
      if (s.hostKey().equals(hostKey) && !s.rack().isEmpty()) {
        rack = s.rack();
        break;
      }
    }
    String clientRack = rack;
    return Comparator.comparingInt(
        s -> {
          if (s.hostKey().equals(hostKey)) {
            return SAME_HOST;
          }
          return !clientRack.isEmpty() && clientRack.equals(s.rack()) ? SAME_RACK : FARTHER;
        });
  }

  /** The live servers not excluded whose available space holds a chunk beyond the reserve. */
  private List<DataServer> withRoom(List<DataServer> live, Set<Integer> excluded, long chunkSize) {
    List<DataServer> out = new ArrayList<>();
    for (DataServer s : live) {
      long available = s.usage().availableBytes();
      // available - minFree >= chunkSize, without overflow for huge reserves
      if (!excluded.contains(s.id())
          && available >= minFreeBytes
          && available - minFreeBytes >= chunkSize) {
        out.add(s);
      }
    }
    return out;
  }

  /** Draws one index of {@code pool} with probability proportional to its weight. */
  private int weightedPick(List<Integer> pool, List<DataServer> servers, long[] room) {
    double[] weights = new double[pool.size()];
    double total = 0;
    for (int p = 0; p < weights.length; p++) {
      int k = pool.get(p);
      double load = 1.0 + (double) servers.get(k).usage().activeTransfers() / busyTransfers;
      weights[p] = room[k] / load;
      total += weights[p];
    }
    double x = random.nextDouble() * total;
    for (int p = 0; p < weights.length; p++) {
      x -= weights[p];
      if (x < 0) {
        return pool.get(p);
      }
    }
    return pool.get(pool.size() - 1); // rounding left a sliver past the last weight
  }

  /**
   * Fails with BUSY, which clients retry, if a live server has not reported its room yet: just
   * after an MDS (re)starts or takes over, servers register before their first heartbeat, and a
   * write then must wait for it, not be told the cluster is full.
   */
  private static void awaitingFirstHeartbeat(
      String op, List<DataServer> live, Set<Integer> excluded) throws IOException {
    long silent =
        live.stream().filter(s -> !excluded.contains(s.id()) && s.usage().isUnreported()).count();
    if (silent > 0) {
      throw StatusExceptions.toIOException(
          Status.BUSY,
          String.format(
              "%s: %d data servers registered but have not reported their room yet", op, silent));
    }
  }

  private IOException noSpace(String op, int needed, long chunkSize, int withRoom, String among) {
    return StatusExceptions.toIOException(
        Status.NO_SPACE,
        String.format(
            "%s: needs %d data servers with room for a %s chunk beyond the %s reserve, %d of the %s"
                + " have it",
            op,
            needed,
            DataSize.ofBytes(chunkSize),
            DataSize.ofBytes(minFreeBytes),
            withRoom,
            among));
  }

  private static List<Integer> indices(int n, IntPredicate keep) {
    List<Integer> out = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      if (keep.test(k)) {
        out.add(k);
      }
    }
    return out;
  }

  /** The members of {@code pool} that pass {@code test}, or all of {@code pool} if none does. */
  private static List<Integer> preferIfAny(List<Integer> pool, IntPredicate test) {
    List<Integer> preferred = new ArrayList<>(pool.size());
    for (int k : pool) {
      if (test.test(k)) {
        preferred.add(k);
      }
    }
    return preferred.isEmpty() ? pool : preferred;
  }

  private static boolean contains(int[] values, int count, int value) {
    for (int i = 0; i < count; i++) {
      if (values[i] == value) {
        return true;
      }
    }
    return false;
  }
}
