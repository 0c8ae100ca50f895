package io.braidfs.cli.internal.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.braidfs.cli.Json;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status web page of a {@code braid} process: every path but {@code /metrics} of the metrics
 * HTTP server. Pages and their script are static resources; the script fetches JSON from {@code
 * /status/api/...} and puts every value into the page as text (never as markup), so names from the
 * namespace cannot inject anything. Only GET and HEAD are answered: the page changes nothing.
 *
 * <ul>
 *   <li>{@code /} and {@code /status}: the MDS page if an MDS runs here, else the data server page
 *   <li>{@code /status/ds?id=ID}: a data server of this process
 *   <li>{@code /status/api/summary}, {@code rates}, {@code warnings}, {@code ls?path=P}, {@code
 *       file?path=P}, {@code ds?id=ID}: the JSON
 * </ul>
 *
 * <p>Thread-safety: thread-safe; the servers are attached once they exist, while requests arrive.
 */
public final class StatusPages implements HttpHandler, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusPages.class);

  private final CallRates rates = new CallRates();
  private final RecentWarnings warnings = RecentWarnings.install();
  private volatile @Nullable MdsStatus mds;
  private volatile @Nullable DataServerStatus dataServers;

  /** The call totals the chart shows; the metrics observer feeds them. */
  public CallRates rates() {
    return rates;
  }

  /** Shows the MDS of this process. */
  public void attach(MdsStatus status) {
    mds = status;
  }

  /** Shows the data servers of this process. */
  public void attach(DataServerStatus status) {
    dataServers = status;
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String method = ex.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        ex.getResponseHeaders().set("Allow", "GET, HEAD");
        send(ex, 405, "text/plain; charset=utf-8", bytes("read-only: GET and HEAD only\n"));
        return;
      }
      String host = ex.getRequestHeaders().getFirst("Host");
      if (!allowedHost(host)) {
        // DNS rebinding: a web page elsewhere could point a name of its own at this address and
        // read the namespace through the operator's browser. Names not this host's are refused.
        send(
            ex,
            403,
            "text/plain; charset=utf-8",
            bytes(
                "Host '"
                    + host
                    + "' is not this server's: open the page by its IP address, localhost or this"
                    + " host's name\n"));
        return;
      }
      try {
        route(ex, ex.getRequestURI().getPath());
      } catch (IOException e) {
        Status s = StatusExceptions.statusOf(e);
        sendJson(ex, httpCode(s), error(s.name(), "" + e.getMessage()));
      } catch (RuntimeException e) {
        // A bug here must not take the metrics server's thread down; the page shows the error.
        LOG.warn("status page: {} failed", ex.getRequestURI(), e);
        sendJson(ex, 500, error("INTERNAL", e.toString()));
      }
    }
  }

  private void route(HttpExchange ex, String path) throws IOException {
    Map<String, String> q = query(ex.getRequestURI().getRawQuery());
    MdsStatus m = mds;
    DataServerStatus d = dataServers;
    switch (path) {
      case "/", "/status", "/status/" ->
          resource(ex, m != null || d == null ? "mds.html" : "ds.html");
      case "/status/ds" -> resource(ex, "ds.html");
      case "/status/status.js", "/status/status.css" -> resource(ex, path.substring(8));
      case "/status/api/summary" -> {
        Map<String, Object> out =
            m != null ? new LinkedHashMap<>(m.summary()) : new LinkedHashMap<>(Map.of("role", ""));
        out.put("mdsHere", m != null);
        out.put("localDataServers", d == null ? java.util.List.of() : d.ids());
        sendJson(ex, 200, out);
      }
      case "/status/api/rates" -> sendJson(ex, 200, rates.snapshot());
      case "/status/api/warnings" -> sendJson(ex, 200, warnings(q.get("thread")));
      case "/status/api/ls" -> sendJson(ex, 200, need(m).list(q.getOrDefault("path", "/")));
      case "/status/api/file" -> sendJson(ex, 200, need(m).file(q.getOrDefault("path", "")));
      case "/status/api/ds" -> {
        if (d == null) {
          throw StatusExceptions.toIOException(Status.NOT_FOUND, "no data server runs here");
        }
        String id = q.get("id");
        Map<String, Object> out =
            new LinkedHashMap<>(
                d.server(id != null ? id : d.ids().isEmpty() ? "" : d.ids().get(0)));
        out.put("mdsHere", m != null);
        out.put("warnings", warnings.newestFirst("braid-" + out.get("id") + "-"));
        sendJson(ex, 200, out);
      }
      default ->
          send(ex, 404, "text/plain; charset=utf-8", bytes("not found; the status page is at /\n"));
    }
  }

  /**
   * Whether a request's Host header may be answered: absent (not a browser), an IP address, {@code
   * localhost}, or one of this host's own names.
   */
  public static boolean allowedHost(@Nullable String header) {
    if (header == null || header.isEmpty()) {
      return true;
    }
    String h = header.strip().toLowerCase(java.util.Locale.ROOT);
    if (h.startsWith("[")) {
      return true; // an IPv6 address
    }
    int colon = h.lastIndexOf(':');
    if (colon >= 0) {
      h = h.substring(0, colon);
    }
    if (h.equals("localhost") || h.endsWith(".localhost") || h.matches("[0-9.]+")) {
      return true;
    }
    return ownNames().contains(h);
  }

  /** This host's name and canonical name, lower case; looked up once. */
  private static java.util.Set<String> ownNames() {
    java.util.Set<String> n = names;
    if (n == null) {
      java.util.Set<String> found = new java.util.HashSet<>();
      try {
        java.net.InetAddress local = java.net.InetAddress.getLocalHost();
        found.add(local.getHostName().toLowerCase(java.util.Locale.ROOT));
        found.add(local.getCanonicalHostName().toLowerCase(java.util.Locale.ROOT));
      } catch (IOException e) {
        // no names of its own: addresses and localhost still work
      }
      n = java.util.Set.copyOf(found);
      names = n;
    }
    return n;
  }

  private static volatile java.util.@Nullable Set<String> names;

  /** The body of a failed request: the status's name, then the message (in that order). */
  private static Map<String, Object> error(String status, String message) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("error", status);
    out.put("message", message);
    return out;
  }

  private Map<String, Object> warnings(@Nullable String thread) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("available", warnings.available());
    out.put("lines", warnings.newestFirst(thread));
    return out;
  }

  private static MdsStatus need(@Nullable MdsStatus m) throws IOException {
    if (m == null) {
      throw StatusExceptions.toIOException(Status.NOT_FOUND, "no MDS runs in this process");
    }
    return m;
  }

  private static int httpCode(Status s) {
    return switch (s) {
      case NOT_FOUND -> 404;
      case INVALID_ARGUMENT, NAME_TOO_LONG, NOT_DIRECTORY, IS_DIRECTORY -> 400;
      case PERMISSION_DENIED -> 403;
      case NOT_LEADER, UNAVAILABLE -> 503;
      default -> 500;
    };
  }

  /** The query's parameters, decoded; the last of a repeated name wins. */
  static Map<String, String> query(@Nullable String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.put(
          URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static void resource(HttpExchange ex, String name) throws IOException {
    byte[] body;
    try (InputStream in = StatusPages.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("status page resource " + name + " is missing from the jar");
      }
      body = in.readAllBytes();
    }
    String type =
        name.endsWith(".html")
            ? "text/html; charset=utf-8"
            : name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
    send(ex, 200, type, body);
  }

  private static void sendJson(HttpExchange ex, int code, Map<String, ?> value) throws IOException {
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    send(ex, code, "application/json", bytes(Json.write(value)));
  }

  private static void send(HttpExchange ex, int code, String type, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    // Everything the page uses comes from here: no other origin, no inline script.
    ex.getResponseHeaders()
        .set(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:");
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(code, head ? -1 : body.length == 0 ? -1 : body.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    warnings.close();
  }
}
