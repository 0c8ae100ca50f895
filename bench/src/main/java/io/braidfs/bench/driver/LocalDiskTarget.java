package io.braidfs.bench.driver;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The local disk through {@code java.nio}: files in one directory on the disk under test, written
 * with a {@link FileChannel}, {@code force(false)} (fdatasync) for a sync, {@code force(true)}
 * (fsync) at close so a closed file is as durable as Braid's.
 *
 * <p>Thread-safety: thread-safe; each file has its own channel.
 */
final class LocalDiskTarget implements Target {
  static final String SYSTEM = "local disk";

  private final Path dir;

  LocalDiskTarget(Path dir) {
    this.dir = dir;
  }

  @Override
  public String system() {
    return SYSTEM;
  }

  @Override
  public Sink create(String file) throws IOException {
    FileChannel ch =
        FileChannel.open(
            dir.resolve(file), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return new Sink() {
      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(b, off, len);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
      }

      @Override
      public void sync() throws IOException {
        ch.force(false);
      }

      @Override
      public void close() throws IOException {
        try (ch) {
          ch.force(true);
        }
      }
    };
  }

  @Override
  public Source open(String file) throws IOException {
    FileChannel ch = FileChannel.open(dir.resolve(file), StandardOpenOption.READ);
    return new Source() {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return ch.read(ByteBuffer.wrap(b, off, len));
      }

      @Override
      public void close() throws IOException {
        ch.close();
      }
    };
  }

  @Override
  public void delete(String file) throws IOException {
    Files.delete(dir.resolve(file));
  }
}
