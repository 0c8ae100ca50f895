package io.braidfs.bench.data;

import io.braidfs.bench.Throughputs;
import io.braidfs.client.DataPathOptions;
import io.braidfs.client.internal.data.LocalReplicas;
import io.braidfs.client.internal.data.ReplicaHealth;
import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Random;

/**
 * One client writes a file durably through Braid and reads it back, side by side with the local
 * disk and a loopback TCP stream, alternating the systems in every round:
 *
 * <ul>
 *   <li>local disk: write with a FileChannel in 8 MiB blocks, then fsync; read it back from the
 *       page cache;
 *   <li>Braid: a MiniCluster in this JVM (one MDS, four data servers with their directories on the
 *       same disk), replication 1, stripe width 1 and 4, 1 MiB stripe units, 64 MiB chunks; 8 MiB
 *       application writes, durable at close (every chunk finalized on disk); 8 MiB positional
 *       reads, every block's CRC32C verified by the client, once over the network and once from the
 *       replicas' files (short-circuit: client and data servers share this host);
 *   <li>TCP: a plain blocking socket on loopback streaming the same bytes in 1 MiB writes.
 * </ul>
 *
 * Run: {@code java -cp bench/target/bench.jar io.braidfs.bench.data.DataPathThroughput [--size-mib
 * 2048] [--rounds 3] [--warmup-rounds 1] [--read-mib 8] [--read-transfer-kib 8192]
 * [--read-in-flight 32] [--dir /tmp/bench]}. Warm-up rounds of the full size run every system
 * first, unrecorded (JIT compilation, connections). Prints one line per measurement and the medians
 * with ratios.
 */
public final class DataPathThroughput {
  private static final int BLOCK = 8 << 20;

  /** Bytes per Braid read call: how many stripe units one synchronous read has in flight. */
  private static int readSize = 8 << 20;

  /** Bytes per ReadChunk request and requests in flight per read call. */
  private static int readTransfer = 8 << 20;

  private static int readInFlight = 32;

  private long size;
  private boolean recording;
  private final Path dir;
  private final byte[] pattern = new byte[BLOCK];
  private final Throughputs results = new Throughputs();

  private DataPathThroughput(long size, Path dir) {
    this.size = size;
    this.dir = dir;
    new Random(42).nextBytes(pattern);
  }

  public static void main(String[] args) throws Exception {
    long sizeMib = 2048;
    int rounds = 3;
    int warmups = 1;
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "braid-bench-data");
    for (int i = 0; i < args.length; i += 2) {
      switch (args[i]) {
        case "--size-mib" -> sizeMib = Long.parseLong(args[i + 1]);
        case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
        case "--warmup-rounds" -> warmups = Integer.parseInt(args[i + 1]);
        case "--dir" -> dir = Path.of(args[i + 1]);
        case "--read-mib" -> readSize = Integer.parseInt(args[i + 1]) << 20;
        case "--read-transfer-kib" -> readTransfer = Integer.parseInt(args[i + 1]) << 10;
        case "--read-in-flight" -> readInFlight = Integer.parseInt(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    new DataPathThroughput(sizeMib << 20, dir).run(rounds, warmups);
  }

  private void run(int rounds, int warmups) throws Exception {
    Throughputs.deleteTree(dir);
    Files.createDirectories(dir);
    try (MiniCluster cluster = MiniCluster.builder(dir.resolve("cluster")).dataServers(4).build()) {
      cluster.start();
      RpcClient client = cluster.newClient("root");
      // Warm-up rounds of the full size: the read paths kept speeding up for several GiB (JIT
      // compilation), which a shorter warm-up left inside the measured rounds.
      for (int round = -warmups + 1; round <= 0; round++) {
        localDisk(round);
        braid(cluster, client, 1, round);
        braid(cluster, client, 4, round);
        tcp();
      }
      recording = true;
      for (int round = 1; round <= rounds; round++) {
        localDisk(round);
        braid(cluster, client, 1, round);
        braid(cluster, client, 4, round);
        tcp();
      }
    }
    report();
    Throughputs.deleteTree(dir);
  }

  private void localDisk(int round) throws IOException {
    Path f = dir.resolve("local-" + round);
    ByteBuffer b = ByteBuffer.allocateDirect(BLOCK);
    b.put(pattern).flip();
    long t0 = System.nanoTime();
    try (FileChannel ch =
        FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (long done = 0; done < size; done += BLOCK) {
        b.rewind();
        while (b.hasRemaining()) {
          ch.write(b);
        }
      }
      ch.force(true);
    }
    record("local disk write+fsync", t0);
    t0 = System.nanoTime();
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      for (long done = 0; done < size; ) {
        b.clear();
        int n = ch.read(b, done);
        if (n < 0) {
          break;
        }
        done += n;
      }
    }
    record("local disk read (page cache)", t0);
    Files.delete(f);
  }

  private void braid(MiniCluster cluster, RpcClient client, int width, int round)
      throws IOException {
    Layout layout = Layout.of(1 << 20, width, 64L << 20, 1);
    WriteTarget target = cluster.create(client, "/bench/w" + width + "-" + round, layout);
    ByteBuf src = PooledByteBufAllocator.DEFAULT.directBuffer(BLOCK);
    src.writeBytes(pattern);
    long t0 = System.nanoTime();
    try (StripedWriter w = cluster.writer(client, target)) {
      for (long done = 0; done < size; done += BLOCK) {
        w.write(done, src);
      }
      w.complete();
    } finally {
      src.release();
    }
    record("braid width " + width + " write, durable at close", t0);
    read(cluster, client, target, width, LocalReplicas.disabled(), "network");
    try (LocalReplicas local = LocalReplicas.enabled(client, Duration.ofSeconds(60))) {
      read(cluster, client, target, width, local, "short-circuit");
      if (local.fallbacks() != 0 || local.localBytes() != size) {
        throw new IllegalStateException(
            "short-circuit read "
                + local.localBytes()
                + " of "
                + size
                + " bytes locally, "
                + local.fallbacks()
                + " fell back to the network");
      }
    }
  }

  private void read(
      MiniCluster cluster,
      RpcClient client,
      WriteTarget target,
      int width,
      LocalReplicas local,
      String path)
      throws IOException {
    StripedReader r =
        new StripedReader(
            client,
            cluster.chunkService(client),
            new ReplicaHealth(),
            new DataPathOptions(readTransfer, readInFlight, Duration.ofSeconds(60), 0, true),
            local,
            target.inodeId(),
            target.path(),
            target.layout());
    ByteBuf dst = PooledByteBufAllocator.DEFAULT.directBuffer(readSize);
    long t0 = System.nanoTime();
    try {
      for (long done = 0; done < size; ) {
        dst.clear();
        int n = r.read(done, dst, readSize);
        if (n < 0) {
          throw new IOException("early end of file at " + done);
        }
        done += n;
      }
    } finally {
      dst.release();
    }
    record("braid width " + width + " read, " + path + " (page cache)", t0);
  }

  private void tcp() throws Exception {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress("127.0.0.1", 0));
      Thread sender =
          new Thread(
              () -> {
                try (SocketChannel s = server.accept()) {
                  s.socket().setTcpNoDelay(true);
                  ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
                  b.put(pattern, 0, 1 << 20).flip();
                  for (long done = 0; done < size; done += 1 << 20) {
                    b.rewind();
                    while (b.hasRemaining()) {
                      s.write(b);
                    }
                  }
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              },
              "bench-tcp-sender");
      long t0 = System.nanoTime();
      sender.start();
      try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
        ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
        for (long done = 0; done < size; ) {
          b.clear();
          int n = c.read(b);
          if (n < 0) {
            break;
          }
          done += n;
        }
      }
      sender.join();
      record("loopback TCP stream", t0);
    }
  }

  private void record(String what, long t0) {
    if (recording) {
      results.record(what, size, t0);
    }
  }

  private void report() {
    double disk = results.median("local disk write+fsync");
    double tcp = results.median("loopback TCP stream");
    results.report(
        size,
        (what, median) ->
            what.contains("write")
                ? String.format("%.2f x local disk", median / disk)
                : String.format("%.2f x TCP", median / tcp));
  }
}
