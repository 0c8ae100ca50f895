package io.braidfs.bench.driver;

import io.braidfs.bench.ref.TcpSource;
import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * One system of experiment 6 (WAN read): how it opens the test file from the far side of the
 * emulated link. Adding a system is one implementation, usually a lambda over the system's own
 * stream.
 */
@FunctionalInterface
interface WanSystem {
  /**
   * Opens the test file at offset 0, with nothing of it cached from an earlier open, for a reader
   * that will read at most {@code length} bytes (a plain stream sends just that much).
   */
  Reader open(long length) throws IOException;

  /**
   * An open test file.
   *
   * <p>Thread-safety: not thread-safe.
   */
  interface Reader extends Closeable {
    /** Reads up to {@code len} bytes at the current position; -1 at the end. */
    int read(byte[] b, int off, int len) throws IOException;

    /**
     * Moves the position.
     *
     * @throws UnsupportedOperationException for a plain stream
     */
    void seek(long position) throws IOException;

    /** Reads exactly {@code len} bytes. */
    default void readFully(byte[] b, int len) throws IOException {
      for (int at = 0; at < len; ) {
        int n = read(b, at, len - at);
        if (n < 0) {
          throw new EOFException("end of file " + (len - at) + " bytes short of a read");
        }
        at += n;
      }
    }
  }

  /** A file of Braid through {@code client} (its read-ahead settings are the client's). */
  static WanSystem braid(BraidClient client, String path) {
    return length -> {
      BraidInputStream in = client.open(path);
      return new Reader() {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return in.read(b, off, len);
        }

        @Override
        public void seek(long position) throws IOException {
          in.seek(position);
        }

        @Override
        public void close() {
          in.close();
        }
      };
    };
  }

  /** A file of a mounted file system (sshfs), read through a {@link FileChannel}. */
  static WanSystem file(Path file) {
    return length -> {
      FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
      return new Reader() {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return ch.read(ByteBuffer.wrap(b, off, len));
        }

        @Override
        public void seek(long position) throws IOException {
          ch.position(position);
        }

        @Override
        public void close() throws IOException {
          ch.close();
        }
      };
    };
  }

  /** A file of a Hadoop file system (HDFS), through {@code fs}: seek then read, as an app does. */
  static WanSystem hadoop(FileSystem fs, org.apache.hadoop.fs.Path path) {
    return length -> {
      FSDataInputStream in = fs.open(path);
      return new Reader() {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return in.read(b, off, len);
        }

        @Override
        public void seek(long position) throws IOException {
          in.seek(position);
        }

        @Override
        public void close() throws IOException {
          in.close();
        }
      };
    };
  }

  /** Raw TCP: one connection to a {@link TcpSource} through {@code via}, asking for the bytes. */
  static WanSystem tcp(InetSocketAddress via) {
    return length -> {
      TcpSource.Client c = TcpSource.connect(via);
      c.request(length);
      return new Reader() {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          return c.read(b, off, len);
        }

        @Override
        public void seek(long position) {
          throw new UnsupportedOperationException("raw TCP is a stream: no seek");
        }

        @Override
        public void close() throws IOException {
          c.close();
        }
      };
    };
  }
}
