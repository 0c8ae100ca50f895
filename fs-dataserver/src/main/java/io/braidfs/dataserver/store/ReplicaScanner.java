package io.braidfs.dataserver.store;

import io.braidfs.proto.ReplicaState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the replicas of one data directory at start-up: walks {@code chunks/<xx>/}, pairs each
 * {@code <inodeId>_<chunkIndex>.data} with its {@code .meta}, and loads the pairs. It also cleans
 * up what crashes leave: temporary files, and torn creations (a meta file without data, as a crash
 * during create or delete leaves, or a data file without a valid meta file), whose files are
 * deleted.
 *
 * <p>Thread-safety: stateless; one scan per directory at a time.
 */
final class ReplicaScanner {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaScanner.class);
  private static final Pattern NAME = Pattern.compile("(\\d{1,19})_(\\d{1,10})\\.(data|meta)");

  private ReplicaScanner() {}

  /** The files found for one chunk. */
  private static final class Pair {
    @Nullable Path data;
    @Nullable Path meta;
  }

  /**
   * Loads every replica in {@code dir}, adding their sizes to its used bytes.
   *
   * @throws IOException if a file cannot be read, or a meta file has a format this code does not
   *     know (such files are left alone)
   */
  static List<Replica> scan(DataDir dir) throws IOException {
    Map<ChunkKey, Pair> pairs = new TreeMap<>(ReplicaScanner::compare);
    try (DirectoryStream<Path> subdirs = Files.newDirectoryStream(dir.chunksDir())) {
      for (Path subdir : subdirs) {
        if (Files.isDirectory(subdir)) {
          collect(dir, subdir, pairs);
        } else {
          LOG.warn("{}: unexpected file {}, left alone", dir, subdir);
        }
      }
    }
    List<Replica> replicas = new ArrayList<>(pairs.size());
    for (Map.Entry<ChunkKey, Pair> e : pairs.entrySet()) {
      Replica replica = loadPair(dir, e.getKey(), e.getValue());
      if (replica != null) {
        replicas.add(replica);
      }
    }
    return replicas;
  }

  private static void collect(DataDir dir, Path subdir, Map<ChunkKey, Pair> pairs)
      throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(subdir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        Matcher m = NAME.matcher(name);
        ChunkKey key = m.matches() ? parseKey(m) : null;
        if (DataDir.isTemporary(file)) {
          LOG.warn("{}: removing leftover temporary file {}", dir, file);
          Files.delete(file);
        } else if (key == null) {
          LOG.warn("{}: unexpected file {}, left alone", dir, file);
        } else {
          Pair pair = pairs.computeIfAbsent(key, k -> new Pair());
          if (m.group(3).equals("data")) {
            pair.data = file;
          } else {
            pair.meta = file;
          }
        }
      }
    }
  }

  private static @Nullable ChunkKey parseKey(Matcher m) {
    try {
      return new ChunkKey(Long.parseLong(m.group(1)), Integer.parseUnsignedInt(m.group(2)));
    } catch (NumberFormatException e) {
      return null; // out of range: not a name this store made
    }
  }

  private static @Nullable Replica loadPair(DataDir dir, ChunkKey key, Pair pair)
      throws IOException {
    Path meta = pair.meta;
    Path data = pair.data;
    ByteBuffer head = meta == null ? ByteBuffer.allocate(0) : readHead(meta);
    if (meta == null || data == null || !MetaHeader.hasMagic(head)) {
      LOG.warn(
          "{}: chunk {}: torn creation (data {}, meta {}); deleting its files",
          dir,
          key,
          data != null,
          meta != null && MetaHeader.hasMagic(head));
      if (data != null) {
        Files.delete(data);
      }
      if (meta != null) {
        Files.delete(meta);
      }
      return null;
    }
    MetaHeader header = MetaHeader.decode(head, meta);
    ReplicaFiles files = new ReplicaFiles(data, meta);
    try {
      Replica replica = load(dir, key, files, header);
      dir.addUsed(Replica.footprint(replica.length()));
      return replica;
    } finally {
      // Channels are opened again when the replica is used; most are only ever read.
      files.close();
    }
  }

  /** Up to the header's size of the meta file's first bytes. */
  private static ByteBuffer readHead(Path meta) throws IOException {
    try (FileChannel channel = FileChannel.open(meta, StandardOpenOption.READ)) {
      ByteBuffer head = ByteBuffer.allocate((int) Math.min(MetaHeader.SIZE, channel.size()));
      FileIo.readFully(channel, head, 0, meta);
      head.flip();
      return head;
    }
  }

  /**
   * Reads the stored CRCs. Those a crash may have left stale are recomputed from the data, which is
   * all there is to go by: the CRCs of blocks the meta file does not reach (a crash between the
   * data and the meta write), and for a replica still being written, its last block (a crash
   * between the two writes of an append inside it). A meta file longer than the data needs (a crash
   * during a cut) is cut too.
   */
  private static Replica load(DataDir dir, ChunkKey key, ReplicaFiles files, MetaHeader header)
      throws IOException {
    long length = files.dataSize();
    if (length > Replica.MAX_LENGTH) {
      throw new IOException(files.dataPath() + ": longer than the largest replica");
    }
    int blocks = BlockCrcs.blockCount(length);
    long metaSize = files.metaSize();
    int stored = (int) Math.min(blocks, (metaSize - MetaHeader.SIZE) / 4);
    int[] crcs = new int[blocks];
    files.readCrcs(crcs, stored);
    boolean writing = header.state() == ReplicaState.REPLICA_STATE_WRITING;
    int from = stored < blocks || writing ? Math.max(0, stored - 1) : blocks;
    new BlockCrcs(files, crcs).recomputeFrom(from, length); // in place: crcs is long enough
    if (stored < blocks) {
      LOG.warn(
          "{}: chunk {}: meta file had CRCs of {} of {} blocks; recomputed the rest from the data",
          dir,
          key,
          stored,
          blocks);
    }
    if (metaSize > MetaHeader.metaSize(blocks)) {
      files.truncateMeta(blocks);
    }
    return new Replica(key, dir, files, header, length, crcs, true);
  }

  private static int compare(ChunkKey a, ChunkKey b) {
    int c = Long.compare(a.inodeId(), b.inodeId());
    return c != 0 ? c : Integer.compareUnsigned(a.chunkIndex(), b.chunkIndex());
  }
}
