package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.testing.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code braid local} with {@code braid.metrics.address} serves Prometheus metrics over HTTP: every
 * RPC its MDS and data servers answered, by method and status with a latency histogram, and the
 * JVM's gauges; Prometheus's own promtool reads the page as valid. An address in use fails the
 * start with one line naming the key.
 */
class MetricsTest {
  private static final Pattern METRICS =
      Pattern.compile("braid local: metrics on (http://127\\.0\\.0\\.1:\\d+/metrics)");

  @TempDir Path tmp;

  @Test
  void braidLocalServesEveryCallsCountAndLatencyAndTheJvmsGauges() throws Exception {
    try (InProcessBraid local =
        new InProcessBraid(
            "local",
            "--data-servers",
            "1",
            "--data",
            tmp.resolve("cluster").toString(),
            "--mds-port",
            "0",
            "-D",
            "braid.metrics.address=127.0.0.1:0")) {
      String url = local.awaitLine(METRICS).group(1);
      Matcher ready = local.awaitLine(Pattern.compile(".*braid://127\\.0\\.0\\.1:(\\d+)/.*"));
      String mds = "127.0.0.1:" + ready.group(1);
      for (String dir : List.of("/m1", "/m2", "/m3")) {
        assertThat(FsCommandTest.fsAt(mds, "mkdir", dir).code()).isZero();
      }
      assertThat(FsCommandTest.fsAt(mds, "ls", "/nothing").code()).isEqualTo(Braid.EXIT_FAILURE);
      Path file = tmp.resolve("file");
      Files.write(file, new byte[100_000]);
      assertThat(FsCommandTest.fsAt(mds, "put", file.toString(), "/m1/file").code()).isZero();

      HttpResponse<String> page =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(url)).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
      String text = page.body();
      String calls =
          String.join("\n", text.lines().filter(l -> l.startsWith("braid_rpc_calls")).toList());
      // Three mkdirs, one refused lookup, and the data server's heartbeats, each with its status.
      assertThat(counter(text, "mds", "Mkdir", "OK")).as(calls).isGreaterThanOrEqualTo(3);
      assertThat(counter(text, "mds", "Lookup", "NOT_FOUND")).as(calls).isGreaterThanOrEqualTo(1);
      assertThat(counter(text, "mds", "Heartbeat", "OK")).as(calls).isGreaterThanOrEqualTo(1);
      assertThat(counter(text, "ds1", "WriteChunk", "OK")).as(calls).isGreaterThanOrEqualTo(1);
      assertThat(text)
          .containsPattern(
              "braid_rpc_latency_seconds_bucket\\{method=\"Mkdir\",server=\"mds\",le=\"\\+Inf\"\\}"
                  + " [3-9]")
          .contains("# TYPE braid_rpc_latency_seconds histogram")
          .contains("jvm_memory_used_bytes{area=\"heap\"}")
          .contains("jvm_buffer_pool_used_bytes{pool=\"direct\"}");
      promtoolAccepts(text);
    }
  }

  @Test
  void callsCountUnderTheirOwnLabelsAndAnUnseenStatusExportsNothing() throws Exception {
    try (ServerMetrics metrics = ServerMetrics.start("127.0.0.1:0")) {
      for (int i = 0; i < 3; i++) {
        metrics.answered("unit-ds", RpcMethod.PING, Status.OK, 2_000_000);
      }
      metrics.answered("unit-ds", RpcMethod.PING, Status.NOT_FOUND, 1_000);
      metrics.answered("unit-mds", RpcMethod.PING, Status.OK, 1_000);
      String text =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + metrics.port() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(counter(text, "unit-ds", "Ping", "OK")).isEqualTo(3);
      assertThat(counter(text, "unit-ds", "Ping", "NOT_FOUND")).isEqualTo(1);
      assertThat(counter(text, "unit-mds", "Ping", "OK")).isEqualTo(1);
      assertThat(text)
          .contains("braid_rpc_latency_seconds_count{method=\"Ping\",server=\"unit-ds\"} 4")
          .contains("braid_rpc_latency_seconds_count{method=\"Ping\",server=\"unit-mds\"} 1")
          .doesNotContain("server=\"unit-ds\",status=\"BUSY\"");
    }
  }

  @Test
  void anAddressInUseFailsTheStartNamingTheKey() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      FsCommandTest.Run r =
          FsCommandTest.braid(
              "local",
              "--data-servers",
              "1",
              "--data",
              tmp.resolve("c2").toString(),
              "--mds-port",
              "0",
              "-D",
              "braid.metrics.address=127.0.0.1:" + taken.getLocalPort());
      assertThat(r.code()).isEqualTo(Braid.EXIT_FAILURE);
      assertThat(r.errLines())
          .singleElement()
          .asString()
          .startsWith(
              "braid local: cannot serve metrics on 127.0.0.1:"
                  + taken.getLocalPort()
                  + " (braid.metrics.address): ");
    }
    Await.noBraidThreads(Duration.ofSeconds(10));
  }

  /** The value of {@code braid_rpc_calls_total} for one server, method and status; 0 if absent. */
  private static double counter(String text, String server, String method, String status) {
    Matcher m =
        Pattern.compile(
                "(?m)^braid_rpc_calls_total\\{method=\""
                    + method
                    + "\",server=\""
                    + server
                    + "\",status=\""
                    + status
                    + "\"\\} (\\S+)$")
            .matcher(text);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** Prometheus's own linter and parser, {@code promtool check metrics}, reads it cleanly. */
  private void promtoolAccepts(String text) throws IOException, InterruptedException {
    Path promtool = null;
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "promtool"))) {
        promtool = Path.of(dir, "promtool");
        break;
      }
    }
    if (promtool == null) {
      String why = "promtool is missing (apt-get install prometheus): the page is not linted";
      if ("1".equals(System.getenv("BRAID_OUTSIDE_TOOLS_REQUIRED"))) {
        throw new AssertionError(why + ", and BRAID_OUTSIDE_TOOLS_REQUIRED=1");
      }
      assumeThat(promtool).as(why).isNotNull();
      return;
    }
    Path page = tmp.resolve("metrics.txt");
    Files.writeString(page, text);
    Path out = tmp.resolve("promtool.out");
    Process p =
        new ProcessBuilder(promtool.toString(), "check", "metrics")
            .redirectInput(page.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool check metrics:\n%s", Files.readString(out)).isZero();
  }
}
