package io.braidfs.client.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.client.internal.data.StripedReader;
import io.braidfs.client.internal.data.StripedWriter;
import io.braidfs.client.internal.data.WriteTarget;
import io.braidfs.common.layout.Layout;
import io.braidfs.common.rpc.RpcClient;
import io.braidfs.dataserver.DataServerConfigKeys;
import io.braidfs.testing.LinkEmulator;
import io.braidfs.testing.MiniCluster;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data servers that advertise a {@link LinkEmulator} route's port ({@code
 * braid.dataserver.advertised-port}) are reached only through it: a file written and read back goes
 * over the emulated link, and its bytes show in the link's counters.
 */
class WanRouteTest {
  @TempDir Path dir;

  @Test
  void dataGoesThroughTheAdvertisedRoutes() throws Exception {
    int servers = 3;
    int size = 4 << 20;
    try (LinkEmulator wan = new LinkEmulator(Duration.ofMillis(5), 0)) {
      LinkEmulator.Route[] routes = new LinkEmulator.Route[servers];
      for (int i = 0; i < servers; i++) {
        routes[i] = wan.routeLater();
      }
      try (MiniCluster cluster =
          MiniCluster.builder(dir)
              .dataServers(servers)
              .dataServerConfig(
                  i ->
                      Map.of(
                          DataServerConfigKeys.ADVERTISED_PORT.name(),
                          Integer.toString(routes[i].address().getPort())))
              .build()) {
        cluster.start();
        for (int i = 0; i < servers; i++) {
          routes[i].target(cluster.dataServer(i).address());
        }
        RpcClient client = cluster.newClient("root");
        WriteTarget f = cluster.create(client, "/wan/f", Layout.of(256 << 10, 2, 1 << 20, 2));
        byte[] data = new byte[size];
        new Random(7).nextBytes(data);
        try (StripedWriter w = cluster.writer(client, f)) {
          ByteBuf src = Unpooled.wrappedBuffer(data);
          try {
            w.write(0, src);
          } finally {
            src.release();
          }
          assertThat(w.complete().getAttributes().getSize()).isEqualTo(size);
        }
        // Replication 2: the client sends each byte to one replica, which forwards it to the next.
        assertThat(wan.bytesUp()).isGreaterThanOrEqualTo(2L * size);

        StripedReader r = cluster.reader(client, f);
        ByteBuf dst = Unpooled.buffer(size);
        try {
          assertThat(r.read(0, dst, size)).isEqualTo(size);
          byte[] back = new byte[size];
          dst.getBytes(0, back);
          assertThat(back).isEqualTo(data);
        } finally {
          dst.release();
        }
        assertThat(wan.bytesDown()).isGreaterThanOrEqualTo(size);
      }
    }
  }
}
