package io.braidfs.dataserver.store;

import io.braidfs.common.checksum.Checksums;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * A replica's data and meta files: their channels, opened on first use and kept open until {@link
 * #close}, and the positional reads and writes the replica makes on them. Knows the meta layout
 * ({@link MetaHeader}) but no replica rules.
 *
 * <p>Thread-safety: not thread-safe; the owning {@link Replica} serializes every call on its lock.
 */
final class ReplicaFiles {
  private final Path dataPath;
  private final Path metaPath;
  private @Nullable FileChannel data;
  private @Nullable FileChannel meta;

  ReplicaFiles(Path dataPath, Path metaPath) {
    this.dataPath = dataPath;
    this.metaPath = metaPath;
  }

  /**
   * Creates the files of a new replica: the meta file (header only) first, then the empty data
   * file, so that a crash in between leaves a meta file without data, which the next scan removes.
   * On failure whatever was created is removed again.
   */
  static ReplicaFiles create(Path dataPath, Path metaPath, MetaHeader header) throws IOException {
    ReplicaFiles files = new ReplicaFiles(dataPath, metaPath);
    try {
      files.meta = open(metaPath, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
      files.writeHeader(header);
      files.data = open(dataPath, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
      return files;
    } catch (IOException e) {
      files.closeQuietly(e);
      deleteQuietly(dataPath, e);
      deleteQuietly(metaPath, e);
      throw e;
    }
  }

  Path dataPath() {
    return dataPath;
  }

  Path metaPath() {
    return metaPath;
  }

  /** The data file's current size. */
  long dataSize() throws IOException {
    return data().size();
  }

  /** Writes {@code src}'s readable bytes at {@code offset}; borrows {@code src}. */
  void writeData(long offset, ByteBuf src) throws IOException {
    FileChannel channel = data();
    // NIO views let the write go straight from the (possibly composite, direct) buffer.
    ByteBuffer[] views =
        src.nioBufferCount() < 0
            ? new ByteBuffer[] {ByteBuffer.wrap(ByteBufUtil.getBytes(src))}
            : src.nioBuffers();
    long at = offset;
    for (ByteBuffer view : views) {
      int n = view.remaining();
      FileIo.writeFully(channel, view, at);
      at += n;
    }
  }

  /** The CRC32C of the data file's bytes {@code [offset, offset + length)}. */
  int crcOf(long offset, int length) throws IOException {
    ByteBuffer buf = read(offset, length);
    CRC32C crc = new CRC32C();
    crc.update(buf);
    return (int) crc.getValue();
  }

  /** The data file's block {@code block}, {@code length} bytes of it, as a CRC. */
  int blockCrc(int block, int length) throws IOException {
    return crcOf((long) block * Checksums.BLOCK_SIZE, length);
  }

  /** The data file's block {@code block}, {@code length} bytes of it, in a new heap buffer. */
  ByteBuffer readBlock(int block, int length) throws IOException {
    return read((long) block * Checksums.BLOCK_SIZE, length);
  }

  private ByteBuffer read(long offset, int length) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length);
    FileIo.readFully(data(), buf, offset, dataPath);
    return buf.flip();
  }

  void truncateData(long length) throws IOException {
    data().truncate(length);
  }

  void writeHeader(MetaHeader header) throws IOException {
    FileIo.writeFully(meta(), header.encode(), 0);
  }

  /** Writes {@code crcs[from, from + count)} as the CRCs of blocks {@code firstBlock, ...}. */
  void writeCrcs(int firstBlock, int[] crcs, int from, int count) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(4 * count);
    for (int i = 0; i < count; i++) {
      buf.putInt(crcs[from + i]);
    }
    buf.flip();
    FileIo.writeFully(meta(), buf, MetaHeader.metaSize(firstBlock));
  }

  /** Reads the CRCs of blocks {@code [0, count)} into {@code crcs}. */
  void readCrcs(int[] crcs, int count) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(4 * count);
    FileIo.readFully(meta(), buf, MetaHeader.SIZE, metaPath);
    buf.flip();
    buf.asIntBuffer().get(crcs, 0, count);
  }

  /** Cuts the meta file to hold exactly {@code blocks} CRCs. */
  void truncateMeta(long blocks) throws IOException {
    meta().truncate(MetaHeader.metaSize(blocks));
  }

  long metaSize() throws IOException {
    return meta().size();
  }

  /** The data channel, opened on first use. */
  FileChannel data() throws IOException {
    FileChannel channel = data;
    // Also reopened if closed: an interrupt during I/O closes a FileChannel for every user.
    if (channel == null || !channel.isOpen()) {
      channel = open(dataPath);
      data = channel;
    }
    return channel;
  }

  /** The meta channel, opened on first use. */
  FileChannel meta() throws IOException {
    FileChannel channel = meta;
    // Also reopened if closed: an interrupt during I/O closes a FileChannel for every user.
    if (channel == null || !channel.isOpen()) {
      channel = open(metaPath);
      meta = channel;
    }
    return channel;
  }

  /** A new channel reading the data file, independent of this object's (and of deletion). */
  FileChannel openForRead() throws IOException {
    return FileChannel.open(dataPath, StandardOpenOption.READ);
  }

  /** Closes the channels; the next use reopens them. */
  void close() throws IOException {
    FileChannel d = data;
    FileChannel m = meta;
    data = null;
    meta = null;
    try {
      if (d != null) {
        d.close();
      }
    } finally {
      if (m != null) {
        m.close();
      }
    }
  }

  /**
   * Closes the channels and deletes the files: data first, so that a crash in between leaves a meta
   * file without data, which the next scan removes.
   */
  void delete() throws IOException {
    close();
    Files.deleteIfExists(dataPath);
    Files.deleteIfExists(metaPath);
  }

  private static FileChannel open(Path path, StandardOpenOption... extra) throws IOException {
    StandardOpenOption[] options = new StandardOpenOption[extra.length + 2];
    options[0] = StandardOpenOption.READ;
    options[1] = StandardOpenOption.WRITE;
    System.arraycopy(extra, 0, options, 2, extra.length);
    return FileChannel.open(path, options);
  }

  private void closeQuietly(IOException primary) {
    try {
      close();
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }

  private static void deleteQuietly(Path path, IOException primary) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }
}
