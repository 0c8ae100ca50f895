package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The status page's server side without a browser or any Braid server attached: pages and script
 * served with a policy that forbids other origins and inline script, JSON for what runs here (here:
 * nothing), errors as JSON with an HTTP code, writes refused, and warnings kept with their text
 * escaped as JSON.
 */
class StatusPagesTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void servesPagesAndJsonReadOnly() throws Exception {
    try (ServerMetrics metrics = ServerMetrics.start("127.0.0.1:0")) {
      String base = "http://127.0.0.1:" + metrics.port();
      HttpResponse<String> page = get(base + "/");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
      assertThat(page.headers().firstValue("Content-Security-Policy"))
          .hasValueSatisfying(v -> assertThat(v).contains("script-src 'self'"));
      assertThat(page.body()).contains("/status/status.js").doesNotContain("http://", "https://");
      assertThat(get(base + "/status/status.js").statusCode()).isEqualTo(200);
      assertThat(get(base + "/status/ds").body()).contains("data-page=\"ds\"");

      assertThat(get(base + "/status/api/summary").body())
          .contains("\"mdsHere\":false")
          .contains("\"localDataServers\":[]");
      HttpResponse<String> ls = get(base + "/status/api/ls?path=/");
      assertThat(ls.statusCode()).isEqualTo(404);
      assertThat(ls.body()).startsWith("{\"error\":").contains("no MDS runs in this process");
      assertThat(get(base + "/nothing/here").statusCode()).isEqualTo(404);
      // The metrics are where they were.
      assertThat(get(base + "/metrics").body()).contains("# TYPE");

      for (String method : new String[] {"POST", "PUT", "DELETE"}) {
        HttpResponse<String> w =
            http.send(
                HttpRequest.newBuilder(URI.create(base + "/status/api/summary"))
                    .method(method, HttpRequest.BodyPublishers.ofString("{}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(w.statusCode()).as(method).isEqualTo(405);
        assertThat(w.headers().firstValue("Allow")).hasValue("GET, HEAD");
      }

      LoggerFactory.getLogger(StatusPagesTest.class).warn("a \"quoted\"\nline <i>x</i>");
      assertThat(get(base + "/status/api/warnings").body())
          .contains("\"available\":true")
          .contains("a \\\"quoted\\\"\\nline <i>x</i>");
    }
  }

  @Test
  void aNameNotThisHostsIsRefusedAgainstDnsRebinding() throws Exception {
    try (ServerMetrics metrics = ServerMetrics.start("127.0.0.1:0")) {
      assertThat(rawGet(metrics.port(), "evil.example:" + metrics.port()))
          .startsWith("HTTP/1.1 403")
          .contains("is not this server's");
      assertThat(rawGet(metrics.port(), "127.0.0.1:" + metrics.port())).startsWith("HTTP/1.1 200");
      assertThat(rawGet(metrics.port(), "localhost:" + metrics.port())).startsWith("HTTP/1.1 200");
    }
    assertThat(io.braidfs.cli.internal.web.StatusPages.allowedHost("[::1]:80")).isTrue();
    assertThat(io.braidfs.cli.internal.web.StatusPages.allowedHost("10.0.0.7")).isTrue();
    assertThat(io.braidfs.cli.internal.web.StatusPages.allowedHost("attacker.example.com"))
        .isFalse();
  }

  /**
   * A GET of the status page with {@code host} as its Host header (which HttpClient will not set).
   */
  private static String rawGet(int port, String host) throws Exception {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      s.getOutputStream()
          .write(
              ("GET /status/api/rates HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                  .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
