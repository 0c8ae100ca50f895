package io.braidfs.dataserver.store;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Properties;
import java.util.UUID;

/**
 * The contents of a data directory's {@value #FILE_NAME}: which storage it is, which server and
 * cluster it belongs to, and the highest MDS epoch the server has seen.
 *
 * <p>Thread-safety: immutable.
 *
 * @param storageId random, made when the directory was formatted
 * @param serverId 0 until the server first registers
 * @param clusterId empty until the server first registers
 * @param maxEpoch the highest MDS epoch persisted; 0 if none
 */
record StorageProperties(String storageId, int serverId, String clusterId, long maxEpoch) {
  static final String FILE_NAME = "braid-storage.properties";
  static final String TMP_SUFFIX = ".tmp";
  static final int LAYOUT_VERSION = 1;

  private static final String STORAGE_ID = "storage-id";
  private static final String SERVER_ID = "server-id";
  private static final String CLUSTER_ID = "cluster-id";
  private static final String MAX_EPOCH = "max-epoch";
  private static final String LAYOUT = "layout-version";

  /** The properties of a freshly formatted directory. */
  static StorageProperties fresh() {
    return new StorageProperties(UUID.randomUUID().toString(), 0, "", 0);
  }

  StorageProperties withIdentity(int newServerId, String newClusterId) {
    return new StorageProperties(storageId, newServerId, newClusterId, maxEpoch);
  }

  StorageProperties withMaxEpoch(long epoch) {
    return new StorageProperties(storageId, serverId, clusterId, epoch);
  }

  /**
   * Reads {@code dir}'s properties file.
   *
   * @throws IOException if it cannot be read, a value is malformed, or the layout is not {@value
   *     #LAYOUT_VERSION}
   */
  static StorageProperties load(Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    Properties p = new Properties();
    p.load(new StringReader(Files.readString(file, StandardCharsets.UTF_8)));
    String layout = p.getProperty(LAYOUT, "");
    if (!layout.equals(Integer.toString(LAYOUT_VERSION))) {
      throw new IOException(file + ": unsupported layout-version '" + layout + "'");
    }
    String storageId = p.getProperty(STORAGE_ID, "");
    if (storageId.isEmpty()) {
      throw new IOException(file + ": no storage-id");
    }
    try {
      return new StorageProperties(
          storageId,
          Integer.parseInt(p.getProperty(SERVER_ID, "0")),
          p.getProperty(CLUSTER_ID, ""),
          Long.parseLong(p.getProperty(MAX_EPOCH, "0")));
    } catch (NumberFormatException e) {
      throw new IOException(file + ": malformed number: " + e.getMessage(), e);
    }
  }

  /**
   * Replaces {@code dir}'s properties file atomically: writes a temporary file, forces it, renames
   * it over the old one and forces the directory, so a crash leaves either the old or the new file.
   */
  void store(Path dir) throws IOException {
    Properties p = new Properties();
    p.setProperty(STORAGE_ID, storageId);
    p.setProperty(SERVER_ID, Integer.toString(serverId));
    p.setProperty(CLUSTER_ID, clusterId);
    p.setProperty(MAX_EPOCH, Long.toString(maxEpoch));
    p.setProperty(LAYOUT, Integer.toString(LAYOUT_VERSION));
    StringWriter text = new StringWriter();
    p.store(text, "Braid data directory; do not edit");
    Path file = dir.resolve(FILE_NAME);
    Path tmp = dir.resolve(FILE_NAME + TMP_SUFFIX);
    try (FileChannel channel =
        FileChannel.open(
            tmp,
            StandardOpenOption.WRITE,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      FileIo.writeFully(
          channel, ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)), 0);
      channel.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    FileIo.syncDirectory(dir);
  }
}
