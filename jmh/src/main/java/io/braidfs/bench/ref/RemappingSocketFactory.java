package io.braidfs.bench.ref;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.net.SocketFactory;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;

/**
 * A Hadoop socket factory ({@code hadoop.rpc.socket.factory.class.default}) whose sockets connect
 * to {@code remap(address)} instead of the address Hadoop asks for, so that an HDFS client can be
 * routed through a proxy (the WAN emulator) without the NameNode or DataNodes knowing.
 *
 * <p>The DFSClient takes this one factory for both its NameNode RPC connections and its DataNode
 * data-transfer sockets (DataStreamer.createSocketForPipeline and DFSClient.newConnectedPeer use
 * {@code DFSClient.socketFactory}, from {@code NetUtils.getSocketFactory(conf,
 * ClientProtocol.class)}, which falls back to the default key). Hadoop instantiates the class by
 * reflection, so the remap function cannot be passed in: it is {@linkplain #register registered}
 * here under an id that the configuration carries in {@link #ID_KEY}.
 *
 * <p>The sockets are plain {@link Socket}s without a channel, which Hadoop supports (its
 * SocksSocketFactory does the same): streams with {@code setSoTimeout} timeouts instead of NIO.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RemappingSocketFactory extends SocketFactory implements Configurable {
  /** The configuration key naming the registered remap function. */
  public static final String ID_KEY = "braid.bench.socket.remap.id";

  private static final Map<String, Function<InetSocketAddress, InetSocketAddress>> REMAPS =
      new ConcurrentHashMap<>();
  private static final AtomicLong NEXT_ID = new AtomicLong();

  private volatile Configuration conf;
  private volatile Function<InetSocketAddress, InetSocketAddress> remap = Function.identity();
  private volatile String id = "";

  /** Hadoop's reflection needs this constructor; {@link #setConf} then picks the remap. */
  public RemappingSocketFactory() {}

  /** Registers {@code remap} and returns the id to set under {@link #ID_KEY}. */
  public static String register(Function<InetSocketAddress, InetSocketAddress> remap) {
    String id = "remap-" + NEXT_ID.incrementAndGet();
    REMAPS.put(id, Objects.requireNonNull(remap, "remap"));
    return id;
  }

  /** Forgets a registered remap; sockets created later under that id fail to be made. */
  public static void unregister(String id) {
    REMAPS.remove(id);
  }

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
    String key = conf.get(ID_KEY);
    if (key == null) {
      throw new IllegalArgumentException(
          ID_KEY + " is not set: use RemappingSocketFactory.register and set the id it returns");
    }
    Function<InetSocketAddress, InetSocketAddress> f = REMAPS.get(key);
    if (f == null) {
      throw new IllegalArgumentException("no remap registered under " + ID_KEY + "=" + key);
    }
    this.remap = f;
    this.id = key;
  }

  @Override
  public Configuration getConf() {
    return conf;
  }

  @Override
  public Socket createSocket() {
    return new RemappedSocket(remap);
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port));
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    Socket s = createSocket();
    s.bind(new InetSocketAddress(localHost, localPort));
    s.connect(new InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    return connected(new InetSocketAddress(host, port));
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
      throws IOException {
    Socket s = createSocket();
    s.bind(new InetSocketAddress(localAddress, localPort));
    s.connect(new InetSocketAddress(address, port));
    return s;
  }

  private Socket connected(InetSocketAddress to) throws IOException {
    Socket s = createSocket();
    s.connect(to);
    return s;
  }

  // Hadoop's RPC layer keeps one client per factory (ClientCache compares factories): factories
  // of the same remap are equal, as StandardSocketFactory's instances are.
  @Override
  public boolean equals(Object o) {
    return o instanceof RemappingSocketFactory f && f.id.equals(id);
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  /** A socket that connects to the remapped address. */
  private static final class RemappedSocket extends Socket {
    private final Function<InetSocketAddress, InetSocketAddress> remap;

    RemappedSocket(Function<InetSocketAddress, InetSocketAddress> remap) {
      this.remap = remap;
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
      if (endpoint instanceof InetSocketAddress a) {
        InetSocketAddress to = remap.apply(a);
        if (to == null) {
          throw new IOException("the remap function gave no address for " + a);
        }
        super.connect(to, timeout);
      } else {
        super.connect(endpoint, timeout);
      }
    }
  }
}
