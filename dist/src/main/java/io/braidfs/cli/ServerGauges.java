package io.braidfs.cli;

import io.braidfs.dataserver.DataServer;
import io.braidfs.mds.server.MdsServer;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * The metrics read from the servers' own figures when Prometheus scrapes: an MDS's journal, store
 * cache, repair queue and role; a data server's chunk reads and writes and its store. The servers
 * only keep plain counters and accessors; these collectors, registered once per JVM, read them
 * through the servers each open {@link ServerMetrics} watches, labelled by server id.
 *
 * <p>Thread-safety: thread-safe (scrapes run on the HTTP server's threads).
 */
final class ServerGauges {
  /** Every open instance: what the collectors read. */
  private static final Set<ServerGauges> OPEN = ConcurrentHashMap.newKeySet();

  private volatile Supplier<List<MdsServer>> mds = List::of;
  private volatile Supplier<List<DataServer>> dataServers = List::of;

  /** Exports nothing until it is told which servers to watch. */
  ServerGauges() {
    OPEN.add(this);
  }

  /** Exports the MDS servers {@code mds} lists (read on every scrape: HA replicas come and go). */
  void watchMds(Supplier<List<MdsServer>> servers) {
    mds = servers;
  }

  /** Exports the data servers {@code servers} lists (read on every scrape). */
  void watchDataServers(Supplier<List<DataServer>> servers) {
    dataServers = servers;
  }

  /** Stops exporting this instance's servers. Idempotent. */
  void close() {
    OPEN.remove(this);
  }

  /** Registers the collectors in {@code registry}; once per JVM. */
  static void register(PrometheusRegistry registry) {
    Family<MdsServer> mds = new Family<>(registry, g -> g.mds.get(), MdsServer::id);
    mds.counter(
        "braid_mds_journal_syncs_total",
        "Syncs of the MDS's local journal (group commits); none with HA or without"
            + " braid.mds.store.sync",
        null,
        m -> m.journalSyncStats().syncs());
    mds.counter(
        "braid_mds_journal_synced_records_total",
        "Journal records those syncs made durable (over the syncs: the mean group size)",
        null,
        m -> m.journalSyncStats().records());
    mds.counter(
        "braid_mds_journal_sync_seconds_total",
        "Time spent in those syncs (over the syncs: the mean sync latency)",
        Unit.SECONDS,
        m -> m.journalSyncStats().nanos() / 1e9);
    mds.gauge(
        "braid_mds_journal_last_index",
        "Index of the last record in the MDS's journal",
        m -> m.journalIndex());
    mds.gauge(
        "braid_mds_epoch",
        "Leader epoch the MDS serves under; 0 while it does not lead",
        m -> m.epoch());
    mds.counter(
        "braid_mds_store_cache_hits_total",
        "Point reads of the metadata store answered from its in-memory cache",
        null,
        m -> m.storeCacheHits());
    mds.counter(
        "braid_mds_store_cache_misses_total",
        "Point reads of the metadata store that missed its in-memory cache and read the store",
        null,
        m -> m.storeCacheMisses());
    mds.gauge(
        "braid_mds_store_cache_entries",
        "Values in the metadata store's in-memory cache",
        m -> m.storeCacheEntries());
    mds.gauge(
        "braid_mds_repair_waiting_files",
        "Files waiting for repair copies (queued or deferred); 0 while the MDS does not lead",
        m -> m.repairWaiting());
    mds.gauge(
        "braid_mds_repair_copies_in_flight",
        "Repair copies under way; 0 while the MDS does not lead",
        m -> m.repairCopiesInFlight());
    GaugeWithCallback.builder()
        .name("braid_mds_role")
        .help("1 for the role the MDS has now, 0 for the others (STANDBY, LEADER, ...)")
        .labelNames("server", "role")
        .callback(
            cb ->
                mds.each(
                    (m, id) -> {
                      MdsServer.Role now = m.role();
                      for (MdsServer.Role r : MdsServer.Role.values()) {
                        cb.call(r == now ? 1 : 0, id, r.name());
                      }
                    }))
        .register(registry);

    Family<DataServer> ds = new Family<>(registry, g -> g.dataServers.get(), DataServer::id);
    ds.counter(
        "braid_dataserver_chunk_reads_total",
        "ReadChunk calls answered from the data server's disks",
        null,
        d -> d.ioCounters().reads());
    ds.counter(
        "braid_dataserver_read_bytes_total",
        "Bytes those reads answered with",
        Unit.BYTES,
        d -> d.ioCounters().readBytes());
    ds.counter(
        "braid_dataserver_chunk_writes_total",
        "WriteChunk calls whose data the data server stored",
        null,
        d -> d.ioCounters().writes());
    ds.counter(
        "braid_dataserver_written_bytes_total",
        "Bytes those writes stored",
        Unit.BYTES,
        d -> d.ioCounters().writtenBytes());
    ds.gauge("braid_dataserver_replicas", "Chunk replicas held", d -> d.storeUsage().replicas());
    ds.gauge(
        "braid_dataserver_capacity_bytes",
        "Capacity of the data directories, less the reserved space",
        Unit.BYTES,
        d -> d.storeUsage().capacityBytes());
    ds.gauge(
        "braid_dataserver_used_bytes",
        "Bytes of replicas (data and meta files)",
        Unit.BYTES,
        d -> d.storeUsage().usedBytes());
    ds.gauge(
        "braid_dataserver_available_bytes",
        "Bytes new writes may still use (none in a failed data directory)",
        Unit.BYTES,
        d -> d.storeUsage().availableBytes());
  }

  /** One kind of server's metrics, each labelled {@code server}. */
  private static final class Family<T> {
    private final PrometheusRegistry registry;
    private final Function<ServerGauges, List<T>> servers;
    private final Function<T, String> id;

    Family(
        PrometheusRegistry registry,
        Function<ServerGauges, List<T>> servers,
        Function<T, String> id) {
      this.registry = registry;
      this.servers = servers;
      this.id = id;
    }

    /** Calls {@code each} once per server id of every open instance (a duplicate id: the first). */
    void each(BiConsumer<T, String> each) {
      Set<String> seen = new HashSet<>();
      for (ServerGauges g : OPEN) {
        for (T server : servers.apply(g)) {
          String name = id.apply(server);
          if (seen.add(name)) {
            each.accept(server, name);
          }
        }
      }
    }

    void counter(String name, String help, @Nullable Unit unit, ToDoubleFunction<T> value) {
      CounterWithCallback.Builder b =
          CounterWithCallback.builder()
              .name(name)
              .help(help)
              .labelNames("server")
              .callback(cb -> each((s, id) -> cb.call(value.applyAsDouble(s), id)));
      if (unit != null) {
        b.unit(unit);
      }
      b.register(registry);
    }

    void gauge(String name, String help, ToDoubleFunction<T> value) {
      gauge(name, help, null, value);
    }

    void gauge(String name, String help, @Nullable Unit unit, ToDoubleFunction<T> value) {
      GaugeWithCallback.Builder b =
          GaugeWithCallback.builder()
              .name(name)
              .help(help)
              .labelNames("server")
              .callback(cb -> each((s, id) -> cb.call(value.applyAsDouble(s), id)));
      if (unit != null) {
        b.unit(unit);
      }
      b.register(registry);
    }
  }
}
