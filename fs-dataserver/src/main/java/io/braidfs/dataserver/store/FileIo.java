package io.braidfs.dataserver.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Positional file I/O that loops until done, and the few file-system facts the store needs.
 *
 * <p>Thread-safety: stateless.
 */
final class FileIo {
  private FileIo() {}

  /** Writes all of {@code src}'s remaining bytes at {@code position}; advances {@code src}. */
  static void writeFully(FileChannel channel, ByteBuffer src, long position) throws IOException {
    long at = position;
    while (src.hasRemaining()) {
      at += channel.write(src, at);
    }
  }

  /**
   * Fills {@code dst}'s remaining space from {@code position}.
   *
   * @throws EOFException if the file ends first
   */
  static void readFully(FileChannel channel, ByteBuffer dst, long position, Path path)
      throws IOException {
    long at = position;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, at);
      if (n < 0) {
        throw new EOFException(path + ": ends at " + at + ", before " + (at + dst.remaining()));
      }
      at += n;
    }
  }

  /**
   * Whether {@code e} is the OS saying the disk (or a quota) is full. Java has no subtype for
   * ENOSPC, so the strerror text is the only evidence.
   */
  static boolean isDiskFull(IOException e) {
    String message = e.getMessage();
    return message != null
        && (message.contains("No space left on device") || message.contains("Disk quota exceeded"));
  }

  /** Forces a directory's entries (new, renamed or deleted files) to disk. */
  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
