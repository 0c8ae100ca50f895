package io.braidfs.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.checksum.Checksums;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RemoteErrorInfo;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.AckLevel;
import io.braidfs.proto.ChunkLocation;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.ReplicaLocation;
import io.braidfs.proto.WriteChunkRequest;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that hangs (its machine accepts connections and never answers) is the one a write chain
 * blames, not the healthy hop in front of it: each hop gives up on the next one sooner than the hop
 * before it does, so the hop next to the hung one times out first and names it.
 */
class HungReplicaTest {
  @TempDir Path dir;

  @Test
  void theHungTailIsNamedNotTheHopBeforeIt() throws Exception {
    try (MiniCluster cluster =
            MiniCluster.builder(dir)
                .dataServers(2)
                .config("braid.rpc.client.call-timeout", "2s")
                .build();
        BlackHole hung = new BlackHole()) {
      cluster.start();
      RpcClient client = cluster.newClient("root");
      WriteTarget f = cluster.create(client, "/hung", Layout.of(64 << 10, 1, 1 << 20, 2));
      ChunkLocation chunk = f.chunkSets().get(0).getChunks(0);
      ReplicaLocation head = chunk.getReplicas(0);
      ReplicaLocation mid = chunk.getReplicas(1);
      ReplicaLocation tail =
          ReplicaLocation.newBuilder()
              .setServerId(99)
              .setHost("127.0.0.1")
              .setPort(hung.port())
              .build();
      byte[] data = new byte[1000];
      ByteBuf b = Unpooled.wrappedBuffer(data);
      WriteChunkRequest.Builder req =
          WriteChunkRequest.newBuilder()
              .setChunk(chunk.getId())
              .setVersion(chunk.getVersion())
              .setLength(data.length)
              .addDownstream(mid)
              .addDownstream(tail)
              .setAckLevel(AckLevel.ACK_LEVEL_IN_MEMORY)
              .setToken(f.token());
      for (int c : Checksums.pieceCrcs(b, 0)) {
        req.addChecksums(c);
      }
      Throwable failure;
      try {
        client
            .call(
                new java.net.InetSocketAddress(head.getHost(), head.getPort()),
                RpcMethod.WRITE_CHUNK,
                req.build(),
                b,
                Duration.ofSeconds(30))
            .join()
            .close();
        throw new AssertionError("a chain with a hung tail succeeded");
      } catch (CompletionException e) {
        failure = e.getCause();
      }
      assertThat(StatusExceptions.statusOf(failure)).isEqualTo(Status.DEADLINE_EXCEEDED);
      assertThat(RemoteErrorInfo.of(failure).map(ErrorInfo::getFailedServerId)).contains(99);
    }
  }

  /** Accepts connections and reads everything, answering nothing: a hung machine. */
  static final class BlackHole implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    private final List<Socket> accepted = new ArrayList<>();
    private final Thread thread;

    BlackHole() throws IOException {
      thread =
          new Thread(
              () -> {
                try {
                  while (true) {
                    Socket s = server.accept();
                    synchronized (accepted) {
                      accepted.add(s);
                    }
                    Thread drain =
                        new Thread(
                            () -> {
                              try (InputStream in = s.getInputStream()) {
                                in.transferTo(OutputStreamSink.INSTANCE);
                              } catch (IOException e) {
                                // closed by the test
                              }
                            },
                            "test-black-hole-drain");
                    drain.setDaemon(true);
                    drain.start();
                  }
                } catch (IOException e) {
                  // closed by the test
                }
              },
              "test-black-hole");
      thread.setDaemon(true);
      thread.start();
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      server.close();
      synchronized (accepted) {
        for (Socket s : accepted) {
          s.close();
        }
      }
    }
  }

  /** Discards what it is given. */
  static final class OutputStreamSink extends java.io.OutputStream {
    static final OutputStreamSink INSTANCE = new OutputStreamSink();

    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }
}
