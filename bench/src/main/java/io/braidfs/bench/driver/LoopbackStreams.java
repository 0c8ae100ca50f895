package io.braidfs.bench.driver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The raw TCP reference: N plain socket pairs on loopback, each streaming the same number of bytes
 * from a sender thread to a receiver thread at once, the network's limit with no file system.
 *
 * <p>Thread-safety: stateless.
 */
final class LoopbackStreams {
  static final String SYSTEM = "loopback TCP";

  private static final int BUFFER = 1 << 20;

  private LoopbackStreams() {}

  /** Streams {@code bytesEach} over each of {@code streams} connections at once; wall nanos. */
  static long stream(int streams, long bytesEach) throws IOException, InterruptedException {
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(new InetSocketAddress("127.0.0.1", 0), streams);
      List<SocketChannel> open = new ArrayList<>();
      try {
        List<Callable<?>> jobs = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
          SocketChannel out = SocketChannel.open(server.getLocalAddress());
          open.add(out);
          SocketChannel in = server.accept();
          open.add(in);
          jobs.add(() -> send(out, bytesEach));
          jobs.add(() -> receive(in, bytesEach));
        }
        return Transfers.parallel(jobs);
      } finally {
        for (SocketChannel c : open) {
          c.close();
        }
      }
    }
  }

  private static Void send(SocketChannel out, long bytes) throws IOException {
    ByteBuffer b = ByteBuffer.allocateDirect(BUFFER);
    for (long done = 0; done < bytes; done += BUFFER) {
      b.clear().limit((int) Math.min(BUFFER, bytes - done));
      while (b.hasRemaining()) {
        out.write(b);
      }
    }
    out.shutdownOutput();
    return null;
  }

  private static Void receive(SocketChannel in, long bytes) throws IOException {
    ByteBuffer b = ByteBuffer.allocateDirect(BUFFER);
    long done = 0;
    int n;
    while ((n = in.read(b.clear())) >= 0) {
      done += n;
    }
    if (done != bytes) {
      throw new IOException("loopback TCP: received " + done + " bytes, not " + bytes);
    }
    return null;
  }
}
