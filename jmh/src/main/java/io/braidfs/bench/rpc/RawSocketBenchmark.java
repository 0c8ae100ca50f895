package io.braidfs.bench.rpc;

import io.braidfs.bench.AbstractBenchmark;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The reference for {@link RpcBenchmark#roundTrip}: a 28-byte echo (one frame header) over a plain
 * blocking loopback socket, one thread at each end, TCP_NODELAY. No framing, no protobuf, no event
 * loop: the floor a round trip between two threads of one machine costs here.
 *
 * <p>Run: {@code java -jar jmh/target/benchmarks.jar RawSocketBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
public class RawSocketBenchmark extends AbstractBenchmark {
  private static final int SIZE = 28;

  private ServerSocket listener;
  private Thread echo;
  private Socket socket;
  private OutputStream out;
  private DataInputStream in;
  private final byte[] buffer = new byte[SIZE];

  @Setup(Level.Trial)
  public void start() throws IOException {
    listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    echo = new Thread(this::serve, "raw-echo");
    echo.setDaemon(true);
    echo.start();
    socket = new Socket(listener.getInetAddress(), listener.getLocalPort());
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = new DataInputStream(socket.getInputStream());
  }

  private void serve() {
    try (Socket s = listener.accept()) {
      s.setTcpNoDelay(true);
      InputStream sin = s.getInputStream();
      OutputStream sout = s.getOutputStream();
      byte[] b = new byte[SIZE];
      while (new DataInputStream(sin).read(b, 0, SIZE) > 0) {
        sout.write(b);
      }
    } catch (IOException e) {
      // The benchmark closed the connection.
    }
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException, InterruptedException {
    socket.close();
    listener.close();
    echo.join(5000);
  }

  @Benchmark
  public byte roundTrip() throws IOException {
    out.write(buffer);
    in.readFully(buffer);
    return buffer[0];
  }
}
