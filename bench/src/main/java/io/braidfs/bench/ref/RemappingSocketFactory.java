package io.braidfs.bench.ref;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.net.SocketFactory;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.jspecify.annotations.Nullable;

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
 * <p>The sockets have a {@link SocketChannel} once connected, as the default factory's do: Hadoop
 * then does its I/O through NIO with its own timeouts, which its block reader requires.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class RemappingSocketFactory extends SocketFactory implements Configurable {
  /** The configuration key naming the registered remap function. */
  public static final String ID_KEY = "braid.bench.socket.remap.id";

  private static final Map<String, Function<InetSocketAddress, InetSocketAddress>> REMAPS =
      new ConcurrentHashMap<>();
  private static final AtomicLong NEXT_ID = new AtomicLong();

  private volatile @Nullable Configuration conf; // set by Hadoop through setConf
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
  public @Nullable Configuration getConf() {
    return conf;
  }

  @Override
  public Socket createSocket() throws IOException {
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

  /**
   * A socket that connects to the remapped address, backed by a {@link SocketChannel}: HDFS's block
   * reader needs a channel (its packet receiver refuses direct buffers on a plain stream). Until it
   * is connected {@link #getChannel()} answers null, so Hadoop's {@code NetUtils.connect} calls
   * {@link #connect(SocketAddress, int)}, which applies the remap; afterwards Hadoop does its I/O
   * on the channel. Everything else is the channel's own socket.
   */
  private static final class RemappedSocket extends Socket {
    private final Function<InetSocketAddress, InetSocketAddress> remap;
    private final SocketChannel channel;
    private final Socket socket;

    RemappedSocket(Function<InetSocketAddress, InetSocketAddress> remap) throws IOException {
      this.remap = remap;
      this.channel = SocketChannel.open();
      this.socket = channel.socket();
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
      connect(endpoint, 0);
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
      SocketAddress to = endpoint;
      if (endpoint instanceof InetSocketAddress a) {
        to = remap.apply(a);
        if (to == null) {
          throw new IOException("the remap function gave no address for " + a);
        }
      }
      socket.connect(to, timeout);
    }

    @Override
    public @Nullable SocketChannel getChannel() {
      return channel.isConnected() ? channel : null;
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
      socket.bind(local);
    }

    @Override
    public InputStream getInputStream() throws IOException {
      return socket.getInputStream();
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
      return socket.getOutputStream();
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }

    @Override
    public boolean isConnected() {
      return socket.isConnected();
    }

    @Override
    public boolean isBound() {
      return socket.isBound();
    }

    @Override
    public boolean isClosed() {
      return socket.isClosed();
    }

    @Override
    public InetAddress getInetAddress() {
      return socket.getInetAddress();
    }

    @Override
    public int getPort() {
      return socket.getPort();
    }

    @Override
    public InetAddress getLocalAddress() {
      return socket.getLocalAddress();
    }

    @Override
    public int getLocalPort() {
      return socket.getLocalPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
      return socket.getRemoteSocketAddress();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
      return socket.getLocalSocketAddress();
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
      socket.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
      return socket.getTcpNoDelay();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
      socket.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
      return socket.getSoTimeout();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
      socket.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
      return socket.getKeepAlive();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
      socket.setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
      return socket.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
      socket.setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
      return socket.getReceiveBufferSize();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
      socket.setSoLinger(on, linger);
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
      socket.setReuseAddress(on);
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
      socket.setTrafficClass(tc);
    }

    @Override
    public void shutdownInput() throws IOException {
      socket.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
      socket.shutdownOutput();
    }

    @Override
    public boolean isInputShutdown() {
      return socket.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
      return socket.isOutputShutdown();
    }

    @Override
    public String toString() {
      return socket.toString();
    }
  }
}
