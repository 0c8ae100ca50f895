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
      // Over the socket: a short-circuit read would not reach the data server's read path.
      FsCommandTest.Run cat =
          FsCommandTest.fsAt(mds, "-D", "braid.client.read.short-circuit=false", "cat", "/m1/file");
      assertThat(cat.code()).isZero();

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
      // The MDS's own figures: four mutations synced to its journal, cached reads, its role.
      assertThat(value(text, "braid_mds_journal_syncs_total", "mds")).isGreaterThanOrEqualTo(1);
      assertThat(value(text, "braid_mds_journal_synced_records_total", "mds"))
          .isGreaterThanOrEqualTo(4);
      assertThat(value(text, "braid_mds_journal_sync_seconds_total", "mds")).isPositive();
      assertThat(value(text, "braid_mds_journal_last_index", "mds")).isGreaterThanOrEqualTo(4);
      assertThat(value(text, "braid_mds_epoch", "mds")).isNotNegative();
      assertThat(
              value(text, "braid_mds_store_cache_hits_total", "mds")
                  + value(text, "braid_mds_store_cache_misses_total", "mds"))
          .isPositive();
      assertThat(value(text, "braid_mds_store_cache_entries", "mds")).isPositive();
      assertThat(value(text, "braid_mds_repair_waiting_files", "mds")).isZero();
      assertThat(value(text, "braid_mds_repair_copies_in_flight", "mds")).isZero();
      assertThat(text)
          .containsPattern("(?m)^braid_mds_role\\{role=\"LEADER\",server=\"mds\"\\} 1(\\.0)?$")
          .containsPattern("(?m)^braid_mds_role\\{role=\"STANDBY\",server=\"mds\"\\} 0(\\.0)?$");
      // The data server's: the file written and read back, and the replica it keeps.
      assertThat(value(text, "braid_dataserver_chunk_writes_total", "ds1"))
          .isGreaterThanOrEqualTo(1);
      assertThat(value(text, "braid_dataserver_written_bytes_total", "ds1"))
          .isGreaterThanOrEqualTo(100_000);
      assertThat(value(text, "braid_dataserver_chunk_reads_total", "ds1"))
          .isGreaterThanOrEqualTo(1);
      assertThat(value(text, "braid_dataserver_read_bytes_total", "ds1"))
          .isGreaterThanOrEqualTo(100_000);
      assertThat(value(text, "braid_dataserver_replicas", "ds1")).isGreaterThanOrEqualTo(1);
      assertThat(value(text, "braid_dataserver_used_bytes", "ds1")).isGreaterThanOrEqualTo(100_000);
      assertThat(value(text, "braid_dataserver_capacity_bytes", "ds1"))
          .isGreaterThanOrEqualTo(value(text, "braid_dataserver_used_bytes", "ds1"));
      assertThat(value(text, "braid_dataserver_available_bytes", "ds1")).isPositive();
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

  /** The value of {@code metric} for one server (its only label); fails if it is absent. */
  private static double value(String text, String metric, String server) {
    Matcher m =
        Pattern.compile("(?m)^" + metric + "\\{server=\"" + Pattern.quote(server) + "\"\\} (\\S+)$")
            .matcher(text);
    assertThat(m.find()).as("%s{server=\"%s\"} in:\n%s", metric, server, text).isTrue();
    return Double.parseDouble(m.group(1));
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
