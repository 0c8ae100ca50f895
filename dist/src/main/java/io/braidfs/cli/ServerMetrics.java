package io.braidfs.cli;

import io.braidfs.cli.internal.web.StatusPages;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.CallObserver;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcMethod;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The Prometheus metrics of one {@code braid} process, served over HTTP at {@code /metrics}: every
 * RPC its servers answered (count by method, server and status; latency histogram by method and
 * server), the servers' own figures read at scrape time ({@link ServerGauges}) and the JVM's gauges
 * (memory and buffer pools, GC, threads). The servers report calls through {@link CallObserver}, so
 * they need no metrics library of their own. Every other path of the same HTTP server is the
 * read-only status page ({@link StatusPages}), to which the command attaches its servers once they
 * exist.
 *
 * <p>Thread-safety: {@link #answered} is thread-safe (the client library's metrics are).
 */
final class ServerMetrics implements CallObserver, AutoCloseable {
  /**
   * One registry and one set of metrics per JVM, however many times metrics are served (tests): the
   * client library's JVM metrics hook GC listeners that are never removed.
   */
  private static final class Registry {
    static final PrometheusRegistry REGISTRY = new PrometheusRegistry();
    static final Counter CALLS =
        Counter.builder()
            .name("braid_rpc_calls_total")
            .help("RPC calls answered by handlers, by server, method and status")
            .labelNames("server", "method", "status")
            .register(REGISTRY);
    static final Histogram LATENCY =
        Histogram.builder()
            .name("braid_rpc_latency_seconds")
            .help("Time from a request's arrival to its answer, by server and method")
            .unit(Unit.SECONDS)
            .labelNames("server", "method")
            // Classic buckets only: the text format Prometheus and promtool read everywhere.
            .classicOnly()
            .classicUpperBounds(
                0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                0.25, 0.5, 1, 2.5, 5, 10)
            .register(REGISTRY);

    /** By server id, then by method id; each made on its first call. */
    static final ConcurrentHashMap<String, AtomicReferenceArray<MethodPoints>> POINTS =
        new ConcurrentHashMap<>();

    static final int METHOD_IDS =
        RpcMethod.all().stream().mapToInt(RpcMethod::id).max().orElse(0) + 1;

    static {
      JvmMetrics.builder().register(REGISTRY);
      ServerGauges.register(REGISTRY);
    }
  }

  /**
   * One server's data points for one method, looked up once: a Prometheus label lookup (the values
   * checked, listed and hashed) costs more than the observation it serves, twice on every call.
   */
  private static final class MethodPoints {
    private final String server;
    private final String method;
    final DistributionDataPoint latency;

    /** By status ordinal, each made on that status's first call: an unseen status exports none. */
    private final AtomicReferenceArray<CounterDataPoint> calls =
        new AtomicReferenceArray<>(Status.values().length);

    MethodPoints(String server, String method) {
      this.server = server;
      this.method = method;
      this.latency = Registry.LATENCY.labelValues(server, method);
    }

    CounterDataPoint calls(Status status) {
      CounterDataPoint p = calls.get(status.ordinal());
      if (p == null) {
        // A racing thread gets the same point: the counter keeps one per label values.
        p = Registry.CALLS.labelValues(server, method, status.name());
        calls.set(status.ordinal(), p);
      }
      return p;
    }
  }

  private final StatusPages status;
  private final HTTPServer http;
  private final ServerGauges gauges;

  private ServerMetrics(InetSocketAddress bind) throws IOException {
    status = new StatusPages();
    try {
      http =
          HTTPServer.builder()
              .inetAddress(bind.getAddress())
              .port(bind.getPort())
              .registry(Registry.REGISTRY)
              // Every path but /metrics (and the library's /-/healthy): the status page.
              .defaultHandler(status)
              .buildAndStart();
    } catch (IOException | RuntimeException e) {
      status.close();
      throw e;
    }
    gauges = new ServerGauges();
  }

  /**
   * Serves metrics at {@code address} ({@code host:port}, port 0 for a free one).
   *
   * @throws IOException if the address cannot be bound
   */
  static ServerMetrics start(String address) throws IOException {
    InetSocketAddress bind = HostPort.parseSetting(MetricsConfigKeys.ADDRESS.name(), address);
    try {
      return new ServerMetrics(bind);
    } catch (IOException e) {
      throw new IOException(
          "cannot serve metrics on "
              + address
              + " ("
              + MetricsConfigKeys.ADDRESS.name()
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /** What {@link #startFor} did: the metrics (null if none are configured), or failed. */
  record Started(@Nullable ServerMetrics metrics, boolean failed) {}

  /**
   * Serves metrics if {@code braid.metrics.address} is set, and says where on the command's stdout
   * ({@code WHAT: metrics on http://HOST:PORT/metrics}). If the address cannot be bound, says why
   * in one line on stderr: the command then ends with exit code 1.
   */
  static Started startFor(BraidConfig config, CommandSpec command) {
    String address = config.get(MetricsConfigKeys.ADDRESS);
    if (address.isEmpty()) {
      return new Started(null, false);
    }
    CommandLine cmd = command.commandLine();
    try {
      ServerMetrics m = start(address);
      String host =
          HostPort.parseSetting(MetricsConfigKeys.ADDRESS.name(), address).getHostString();
      cmd.getOut()
          .println(
              command.qualifiedName()
                  + ": metrics on http://"
                  + HostPort.of(new InetSocketAddress(host, m.port()))
                  + "/metrics");
      cmd.getOut().flush();
      return new Started(m, false);
    } catch (IOException | IllegalArgumentException e) {
      cmd.getErr().println(command.qualifiedName() + ": " + Errors.describe(e));
      cmd.getErr().flush();
      return new Started(null, true);
    }
  }

  /** What a server calls: {@code metrics}, or nobody if it is null. */
  static CallObserver observer(@Nullable ServerMetrics metrics) {
    return metrics == null ? CallObserver.NONE : metrics;
  }

  /** The status page served beside the metrics, for the command to attach its servers to. */
  StatusPages status() {
    return status;
  }

  /** The servers whose own figures (journal, caches, data path) are exported, for the command. */
  ServerGauges gauges() {
    return gauges;
  }

  /** The port metrics are served on. */
  int port() {
    return http.getPort();
  }

  @Override
  public void answered(String server, RpcMethod<?, ?> method, Status status, long nanos) {
    MethodPoints points = points(server, method);
    points.calls(status).inc();
    points.latency.observe(nanos / 1e9);
    this.status.rates().answered(server, status, nanos);
  }

  private static MethodPoints points(String server, RpcMethod<?, ?> method) {
    AtomicReferenceArray<MethodPoints> byMethod = Registry.POINTS.get(server);
    if (byMethod == null) {
      byMethod =
          Registry.POINTS.computeIfAbsent(
              server, s -> new AtomicReferenceArray<>(Registry.METHOD_IDS));
    }
    MethodPoints p = byMethod.get(method.id());
    if (p == null) {
      // A racing thread's copy holds the very same points.
      p = new MethodPoints(server, method.descriptor().getName());
      byMethod.set(method.id(), p);
    }
    return p;
  }

  @Override
  public void close() {
    gauges.close();
    http.close();
    status.close();
  }
}
