package io.braidfs.it.process;

import io.braidfs.client.BraidClient;
import io.braidfs.client.ChunkLocation;
import io.braidfs.client.ChunkLocations;
import io.braidfs.client.ChunkSetLocation;
import io.braidfs.client.ReplicaLocation;
import io.braidfs.client.ShortCircuitStats;
import io.braidfs.common.config.BraidConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A client program run as its own process on a host of the process cluster, over the release
 * tarball's jars: writes and reads a seeded pseudo-random stream, prints chunk locations, tries a
 * TCP connection. Prints one result line per command on stdout, {@code key=value} pairs that the
 * tests parse; fails with exit code 1 and the stack trace on stderr.
 *
 * <pre>
 * ClientMain MDS write PATH BYTES SEED   -> wrote bytes=N sha256=HEX millis=T
 * ClientMain MDS read PATH BYTES SEED    -> read bytes=N sha256=HEX mismatch=OFFSET|-1
 *                                           shortCircuit=BOOL localReads=N localBytes=N millis=T
 * ClientMain MDS readloop PATH BYTES SEED STOPFILE
 *                                        -> readloop rounds=N failures=F mismatches=M, after
 *                                           reading PATH again and again until STOPFILE exists
 * ClientMain MDS locations PATH          -> file length=N, then per chunk:
 *                                           chunk inode=I index=K replicas=HOST:PORT/ID,...
 * ClientMain - connect HOST PORT MILLIS  -> connect ok | connect failed=REASON
 * </pre>
 *
 * <p>Thread-safety: a program; one thread.
 */
public final class ClientMain {
  /** Bytes generated and compared per step. */
  private static final int BUFFER = 1 << 20;

  private ClientMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: ClientMain MDS COMMAND ARGS...");
    }
    String mds = args[0];
    String command = args[1];
    if (command.equals("connect")) {
      connect(args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      return;
    }
    BraidConfig config = BraidConfig.fromMap(Map.of("braid.client.mds", mds));
    try (BraidClient client = BraidClient.builder(config).name("it-client").build()) {
      switch (command) {
        case "write" -> write(client, args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
        case "read" -> read(client, args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
        case "locations" -> locations(client, args[2]);
        case "readloop" ->
            readLoop(
                client,
                args[2],
                Long.parseLong(args[3]),
                Long.parseLong(args[4]),
                Path.of(args[5]));
        default -> throw new IllegalArgumentException("unknown command " + command);
      }
    }
  }

  private static void write(BraidClient client, String path, long size, long seed)
      throws IOException {
    long start = System.nanoTime();
    Stream data = new Stream(seed);
    byte[] buf = new byte[BUFFER];
    MessageDigest sha = sha256();
    try (OutputStream out = client.create(path)) {
      for (long done = 0; done < size; ) {
        int n = (int) Math.min(buf.length, size - done);
        data.next(buf);
        sha.update(buf, 0, n);
        out.write(buf, 0, n);
        done += n;
      }
    }
    System.out.println(
        "wrote bytes="
            + size
            + " sha256="
            + HexFormat.of().formatHex(sha.digest())
            + " millis="
            + (System.nanoTime() - start) / 1_000_000);
  }

  private static void read(BraidClient client, String path, long size, long seed)
      throws IOException {
    long start = System.nanoTime();
    Stream expected = new Stream(seed);
    byte[] want = new byte[BUFFER];
    byte[] got = new byte[BUFFER];
    MessageDigest sha = sha256();
    long total = 0;
    long mismatch = -1;
    try (InputStream in = client.open(path)) {
      for (int n = in.readNBytes(got, 0, got.length);
          n > 0;
          n = in.readNBytes(got, 0, got.length)) {
        sha.update(got, 0, n);
        if (mismatch < 0) {
          expected.next(want);
          int limit = (int) Math.max(0, Math.min(n, size - total));
          int at = Arrays.mismatch(got, 0, limit, want, 0, limit);
          if (at >= 0) {
            mismatch = total + at;
          } else if (limit < n) {
            mismatch = total + limit; // longer than written
          }
        }
        total += n;
      }
    }
    if (mismatch < 0 && total < size) {
      mismatch = total; // shorter than written
    }
    ShortCircuitStats local = client.shortCircuitStats();
    System.out.println(
        "read bytes="
            + total
            + " sha256="
            + HexFormat.of().formatHex(sha.digest())
            + " mismatch="
            + mismatch
            + " shortCircuit="
            + local.enabled()
            + " localReads="
            + local.localReads()
            + " localBytes="
            + local.localBytes()
            + " millis="
            + (System.nanoTime() - start) / 1_000_000);
  }

  /**
   * Reads {@code path} whole, again and again, until {@code stop} exists; counts the reads that
   * failed and those that returned other bytes than written (each failure on stderr).
   */
  private static void readLoop(BraidClient client, String path, long size, long seed, Path stop) {
    long rounds = 0;
    long failures = 0;
    long mismatches = 0;
    byte[] want = new byte[BUFFER];
    byte[] got = new byte[BUFFER];
    while (!Files.exists(stop)) {
      rounds++;
      Stream expected = new Stream(seed);
      long total = 0;
      boolean same = true;
      try (InputStream in = client.open(path)) {
        for (int n = in.readNBytes(got, 0, got.length);
            n > 0;
            n = in.readNBytes(got, 0, got.length)) {
          expected.next(want);
          same &= total + n <= size && Arrays.equals(got, 0, n, want, 0, n);
          total += n;
        }
        if (!same || total != size) {
          mismatches++;
          System.err.println("round " + rounds + ": other bytes than written (" + total + ")");
        }
      } catch (IOException e) {
        failures++;
        System.err.println("round " + rounds + ": " + e);
      }
    }
    System.out.println(
        "readloop rounds=" + rounds + " failures=" + failures + " mismatches=" + mismatches);
  }

  private static void locations(BraidClient client, String path) throws IOException {
    ChunkLocations r = client.locations(path, 0, 0);
    System.out.println("file length=" + r.fileLength());
    for (ChunkSetLocation set : r.chunkSets()) {
      for (ChunkLocation chunk : set.chunks()) {
        List<String> replicas = new ArrayList<>();
        for (ReplicaLocation replica : chunk.replicas()) {
          replicas.add(replica.host() + ":" + replica.port() + "/" + replica.serverId());
        }
        System.out.println(
            "chunk inode="
                + chunk.inodeId()
                + " index="
                + chunk.chunkIndex()
                + " replicas="
                + String.join(",", replicas));
      }
    }
  }

  private static void connect(String host, int port, int millis) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), millis);
      System.out.println("connect ok");
    } catch (IOException e) {
      System.out.println("connect failed=" + e.toString().replace(' ', '_'));
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The seeded pseudo-random bytes, a buffer at a time (writer and reader step alike). */
  private static final class Stream {
    private final SplittableRandom random;

    Stream(long seed) {
      this.random = new SplittableRandom(seed);
    }

    void next(byte[] buf) {
      ByteBuffer b = ByteBuffer.wrap(buf);
      while (b.remaining() >= Long.BYTES) {
        b.putLong(random.nextLong());
      }
      while (b.hasRemaining()) {
        b.put((byte) random.nextInt());
      }
    }
  }
}
