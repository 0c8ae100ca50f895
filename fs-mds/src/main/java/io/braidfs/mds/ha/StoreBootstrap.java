package io.braidfs.mds.ha;

import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.HostPort;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.HaSnapshotFile;
import io.braidfs.proto.HaSnapshotReadRequest;
import io.braidfs.proto.HaSnapshotReadResponse;
import io.braidfs.proto.HaSnapshotRequest;
import io.braidfs.proto.HaSnapshotResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a replica whose store is empty or older than the journal's first retained record a copy of
 * a peer's store ({@link StoreSnapshots} serves it), after which it follows the journal as usual.
 *
 * <p>Two steps, so a crash at any point leaves a store that opens: {@link #fetch} downloads a copy
 * into {@code bootstrap/} inside the store directory and, once every file is synced, writes {@code
 * bootstrap/COMPLETE}; {@link #installIfStaged}, run before the store is opened, replaces the
 * store's files with the staged ones (hard links; the staging stays until the end, so installing
 * again after a crash gives the same result) and removes the staging. A download cut short is
 * deleted and made again. Subdirectories of the store directory (the embedded bookie's) are never
 * touched.
 *
 * <p>Thread-safety: not thread-safe; one MDS start uses it.
 */
public final class StoreBootstrap {
  private static final Logger LOG = LoggerFactory.getLogger(StoreBootstrap.class);

  private static final String STAGING = "bootstrap";
  private static final String COMPLETE = "COMPLETE";

  private final String id;
  private final BraidConfig config;
  private final Path storeDir;
  private final RpcClient rpc;
  private final BooleanSupplier running;

  /**
   * @param rpc started, with this cluster's service credentials
   * @param running false once the MDS is closing: the fetch stops
   */
  public StoreBootstrap(
      String id, BraidConfig config, Path storeDir, RpcClient rpc, BooleanSupplier running) {
    this.id = id;
    this.config = config;
    this.storeDir = storeDir;
    this.rpc = rpc;
    this.running = running;
  }

  /**
   * Downloads and stages a copy of a peer's store that holds every record before the journal's
   * first retained one, trying each replica in the election in turn, and again every few seconds
   * until one has such a copy (a takeover may be under way) or the MDS closes.
   *
   * @return the applied index of the staged copy
   * @throws IOException if the MDS closed meanwhile
   */
  public long fetch() throws IOException {
    long logged = System.nanoTime();
    boolean first = true;
    while (running.getAsBoolean()) {
      String problem;
      HaCoordinator zk = new HaCoordinator(id, config, "");
      try {
        zk.start();
        long need = zk.ledgers().list().firstIndex() - 1;
        String cluster = zk.clusterId("");
        List<String> peers = new java.util.ArrayList<>(zk.peers());
        // Standbys first: a copy makes its store flush, which would pause the leader's writes.
        java.util.Collections.reverse(peers);
        problem = peers.isEmpty() ? "no replica is in the election" : "";
        for (String peer : peers) {
          try {
            long index = fetchFrom(peer, need, cluster);
            if (index >= 0) {
              return index;
            }
            problem += peer + "'s store ends before record " + need + "; ";
          } catch (IOException | RuntimeException e) {
            if (!running.getAsBoolean()) {
              break;
            }
            problem += peer + ": " + e.getMessage() + "; ";
          }
        }
      } catch (IOException e) {
        problem = e.getMessage();
      } finally {
        zk.close();
      }
      if (first || System.nanoTime() - logged > 10_000_000_000L) {
        first = false;
        logged = System.nanoTime();
        LOG.warn(
            "{}: no peer could give this replica a store copy yet (retrying): {}", id, problem);
      }
      try {
        Thread.sleep(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(id + ": interrupted bootstrapping the store");
      }
    }
    throw StatusExceptions.toIOException(
        Status.UNAVAILABLE, id + ": closed while bootstrapping its store");
  }

  /** Stages {@code peer}'s copy if it holds record {@code need}; -1 if it does not. */
  private long fetchFrom(String peer, long need, String cluster) throws IOException {
    HostPort hp = HostPort.parse(peer);
    InetSocketAddress at = new InetSocketAddress(hp.host(), hp.port());
    HaSnapshotResponse copy =
        rpc.callSync(at, RpcMethod.HA_SNAPSHOT, HaSnapshotRequest.getDefaultInstance());
    if (!cluster.isEmpty() && !cluster.equals(copy.getClusterId())) {
      throw new IOException(
          "its store belongs to cluster " + copy.getClusterId() + ", not " + cluster);
    }
    if (copy.getAppliedIndex() < need) {
      return -1;
    }
    Path staging = storeDir.resolve(STAGING);
    StoreSnapshots.deleteTree(staging);
    Files.createDirectories(staging);
    long bytes = 0;
    long started = System.nanoTime();
    boolean current = false;
    for (HaSnapshotFile f : copy.getFilesList()) {
      current |= f.getName().equals("CURRENT");
      bytes += download(at, copy.getSnapshotId(), f, staging.resolve(fileName(f.getName())));
    }
    if (!current) {
      throw new IOException("its store copy has no CURRENT file");
    }
    sync(staging); // every file's entry durable before COMPLETE says the copy is whole
    Path complete = staging.resolve(COMPLETE);
    Files.writeString(
        complete,
        copy.getAppliedIndex() + " " + copy.getClusterId() + " " + peer + "\n",
        StandardCharsets.US_ASCII);
    sync(complete);
    sync(staging);
    LOG.info(
        "{}: copied {}'s store at record {} ({} files, {} bytes, {} ms); installing it",
        id,
        peer,
        copy.getAppliedIndex(),
        copy.getFilesCount(),
        bytes,
        (System.nanoTime() - started) / 1_000_000);
    return copy.getAppliedIndex();
  }

  private long download(InetSocketAddress at, String snapshot, HaSnapshotFile f, Path to)
      throws IOException {
    long offset = 0;
    try (FileChannel out =
        FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      while (offset < f.getSize()) {
        if (!running.getAsBoolean()) {
          throw new IOException("closing");
        }
        HaSnapshotReadResponse r =
            rpc.callSync(
                at,
                RpcMethod.HA_SNAPSHOT_READ,
                HaSnapshotReadRequest.newBuilder()
                    .setSnapshotId(snapshot)
                    .setName(f.getName())
                    .setOffset(offset)
                    .setLength(StoreSnapshots.MAX_READ)
                    .build());
        if (r.getData().isEmpty()) {
          throw new IOException(
              "file " + f.getName() + " ended at " + offset + " of " + f.getSize() + " bytes");
        }
        for (var b : r.getData().asReadOnlyByteBufferList()) {
          while (b.hasRemaining()) {
            out.write(b);
          }
        }
        offset += r.getData().size();
      }
      out.force(true);
    }
    return offset;
  }

  /**
   * A file name from a peer, accepted only as one of RocksDB's own file names, so it can name
   * nothing outside the staging directory, nor collide with the store directory's subdirectories.
   */
  private static String fileName(String name) throws IOException {
    if (!ROCKSDB_FILE.matcher(name).matches()) {
      throw new IOException("store copy lists a file named '" + name + "'");
    }
    return name;
  }

  private static final java.util.regex.Pattern ROCKSDB_FILE =
      java.util.regex.Pattern.compile(
          "CURRENT|IDENTITY|MANIFEST-[0-9]+|OPTIONS-[0-9]+|[0-9]+\\.(sst|log|blob)");

  /**
   * If a complete copy is staged in {@code storeDir}, makes it the store (before the store opens);
   * removes a staging left incomplete.
   *
   * @return whether a copy was installed
   */
  public static boolean installIfStaged(String id, Path storeDir) throws IOException {
    Path staging = storeDir.resolve(STAGING);
    if (!Files.isDirectory(staging)) {
      return false;
    }
    if (!Files.exists(staging.resolve(COMPLETE))) {
      LOG.info("{}: removing an incomplete store copy in {}", id, staging);
      StoreSnapshots.deleteTree(staging);
      return false;
    }
    // The store's own files go first (subdirectories, such as the bookie's, stay); CURRENT last of
    // the staged ones, so RocksDB never sees a CURRENT naming a manifest not yet in place.
    try (Stream<Path> s = Files.list(storeDir)) {
      for (Path p : s.toList()) {
        if (Files.isRegularFile(p)) {
          Files.delete(p);
        }
      }
    }
    List<Path> staged;
    try (Stream<Path> s = Files.list(staging)) {
      staged =
          s.filter(p -> !p.getFileName().toString().equals(COMPLETE))
              .sorted((a, b) -> Boolean.compare(isCurrent(a), isCurrent(b)))
              .toList();
    }
    for (Path p : staged) {
      Path target = storeDir.resolve(p.getFileName());
      try {
        Files.createLink(target, p);
      } catch (UnsupportedOperationException | IOException e) {
        Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        sync(target);
      }
    }
    sync(storeDir);
    Files.delete(staging.resolve(COMPLETE));
    sync(staging);
    StoreSnapshots.deleteTree(staging);
    LOG.info("{}: installed a peer's store copy in {}", id, storeDir);
    return true;
  }

  private static boolean isCurrent(Path p) {
    return p.getFileName().toString().equals("CURRENT");
  }

  private static void sync(Path p) throws IOException {
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
