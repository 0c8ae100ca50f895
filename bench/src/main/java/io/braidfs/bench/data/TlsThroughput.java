package io.braidfs.bench.data;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.ClientConfigKeys;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.security.SecurityConfigKeys;
import io.braidfs.common.security.Tls;
import io.braidfs.proto.PingRequest;
import io.braidfs.testing.MiniCluster;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Issue 28's TLS measurement, side by side in one run: sequential write and read throughput of one
 * client through the whole data path (MDS, data servers, replication 3 or --replication), and the
 * null RPC's latency to the MDS, on a cluster with mutual TLS on every link against the same
 * cluster in plaintext, alternating within each round. Short-circuit reads are off, so reads cross
 * the (encrypted) connections.
 *
 * <p>Run: {@code java -cp bench/target/bench.jar io.braidfs.bench.data.TlsThroughput [--size-mib
 * 1024] [--rounds 3] [--pings 20000] [--replication 3] [--dir /tmp/bench-tls]}.
 */
public final class TlsThroughput {
  private TlsThroughput() {}

  public static void main(String[] args) throws Exception {
    long size = 1024L << 20;
    int rounds = 3;
    int pings = 20_000;
    Path dir = Path.of("/tmp/bench-tls");
    String replication = "3";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--size-mib" -> size = Long.parseLong(args[i + 1]) << 20;
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--pings" -> pings = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        case "--replication" -> replication = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Files.createDirectories(dir);
    Map<String, String> tls = certificates(dir);
    Map<String, String> client = new HashMap<>(tls);
    client.put(ClientConfigKeys.SHORT_CIRCUIT.name(), "false");
    Map<String, MiniCluster> clusters = new LinkedHashMap<>();
    MiniCluster.Builder plainB =
        MiniCluster.builder(dir.resolve("plain"))
            .dataServers(3)
            .config("braid.mds.layout.replication", replication);
    MiniCluster.Builder tlsB =
        MiniCluster.builder(dir.resolve("tls"))
            .dataServers(3)
            .config("braid.mds.layout.replication", replication);
    tls.forEach(tlsB::config);
    clusters.put("plaintext", plainB.build());
    clusters.put("TLS", tlsB.build());
    System.out.println("TLS provider: " + providerName(client));
    try {
      for (MiniCluster c : clusters.values()) {
        c.start();
      }
      int measured = rounds;
      Map<String, double[][]> results = new LinkedHashMap<>();
      for (int round = 0; round <= rounds; round++) { // round 0 warms up
        for (Map.Entry<String, MiniCluster> e : clusters.entrySet()) {
          boolean secure = e.getKey().equals("TLS");
          BraidClient b =
              e.getValue()
                  .newBraidClient(
                      "root",
                      secure ? client : Map.of(ClientConfigKeys.SHORT_CIRCUIT.name(), "false"));
          double write = write(b, "/f" + round, size);
          double read = read(b, "/f" + round, size);
          b.delete("/f" + round, false);
          double ping = pingMicros(e.getValue(), secure ? client : Map.of(), pings);
          if (round > 0) {
            results.computeIfAbsent(e.getKey(), k -> new double[3][measured])[0][round - 1] = write;
            double[][] r = java.util.Objects.requireNonNull(results.get(e.getKey()));
            r[1][round - 1] = read;
            r[2][round - 1] = ping;
          }
          System.out.printf(
              "round %d %-9s write %7.1f MiB/s  read %7.1f MiB/s  null RPC p50 %6.1f us%n",
              round, e.getKey(), write, read, ping);
        }
      }
      double[][] p = java.util.Objects.requireNonNull(results.get("plaintext"));
      double[][] t = java.util.Objects.requireNonNull(results.get("TLS"));
      Spread.printTable(
          "measure",
          "TLS",
          "plaintext",
          new String[] {"write MiB/s", "read MiB/s", "null RPC p50 us"},
          t,
          p,
          "%.1f");
    } finally {
      for (MiniCluster c : clusters.values()) {
        c.close();
      }
    }
  }

  private static String providerName(Map<String, String> client) throws Exception {
    Tls t = Tls.forClient(BraidConfig.fromMap(client), "probe");
    return t == null ? "none" : io.netty.handler.ssl.OpenSsl.isAvailable() ? "OpenSSL" : "JDK";
  }

  /** A throwaway authority and one certificate for every process: mutual TLS on every link. */
  private static Map<String, String> certificates(Path dir) throws Exception {
    X509Bundle ca =
        new CertificateBuilder()
            .subject("CN=bench authority")
            .setIsCertificateAuthority(true)
            .ecp256()
            .buildSelfSigned();
    X509Bundle cert =
        new CertificateBuilder()
            .subject("CN=bench")
            .addSanIpAddress("127.0.0.1")
            .addSanDnsName("localhost")
            .addExtendedKeyUsageServerAuth()
            .addExtendedKeyUsageClientAuth()
            .ecp256()
            .buildIssuedBy(ca);
    Map<String, String> c = new HashMap<>();
    c.put(SecurityConfigKeys.TLS_ENABLED.name(), "true");
    c.put(SecurityConfigKeys.TLS_CLIENT_AUTH.name(), "REQUIRE");
    c.put(SecurityConfigKeys.TLS_TRUST.name(), write(dir, "ca.pem", ca.getRootCertificatePEM()));
    c.put(
        SecurityConfigKeys.TLS_CERTIFICATE.name(),
        write(dir, "cert.pem", cert.getCertificatePathPEM()));
    c.put(SecurityConfigKeys.TLS_KEY.name(), write(dir, "cert.key", cert.getPrivateKeyPEM()));
    return c;
  }

  private static String write(Path dir, String name, String pem) throws Exception {
    return Files.writeString(dir.resolve(name), pem, StandardCharsets.US_ASCII).toString();
  }

  private static double write(BraidClient b, String path, long size) throws Exception {
    byte[] block = new byte[4 << 20];
    ThreadLocalRandom.current().nextBytes(block);
    long start = System.nanoTime();
    try (BraidOutputStream out = b.create(path)) {
      for (long done = 0; done < size; done += block.length) {
        out.write(block, 0, (int) Math.min(block.length, size - done));
      }
    }
    return mibPerSecond(size, System.nanoTime() - start);
  }

  private static double read(BraidClient b, String path, long size) throws Exception {
    byte[] buf = new byte[4 << 20];
    long start = System.nanoTime();
    long total = 0;
    try (BraidInputStream in = b.open(path)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        total += n;
      }
    }
    if (total != size) {
      throw new IllegalStateException("read " + total + " bytes of " + size);
    }
    return mibPerSecond(size, System.nanoTime() - start);
  }

  private static double pingMicros(MiniCluster c, Map<String, String> settings, int pings)
      throws Exception {
    try (RpcClient r =
        RpcClient.builder("ping")
            .tls(Tls.forClient(BraidConfig.fromMap(settings), "ping"))
            .build()) {
      r.start();
      long[] t = new long[pings];
      for (int i = 0; i < pings; i++) {
        long s = System.nanoTime();
        r.callSync(c.mdsAddress(), RpcMethod.PING, PingRequest.getDefaultInstance());
        t[i] = System.nanoTime() - s;
      }
      Arrays.sort(t, pings / 10, pings); // the first tenth warms the connection up
      return t[pings / 10 + (pings - pings / 10) / 2] / 1000.0;
    }
  }

  private static double mibPerSecond(long bytes, long nanos) {
    return bytes / (1024.0 * 1024.0) / (nanos / 1e9);
  }
}
