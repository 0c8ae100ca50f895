package io.braidfs.common.rpc;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The socket transport: native epoll where its library loads (Linux), NIO otherwise.
 *
 * <p>Thread-safety: immutable.
 */
public enum Transport {
  EPOLL,
  NIO;

  /** How the transport is chosen (config key {@code braid.rpc.transport}). */
  public enum Choice {
    AUTO,
    EPOLL,
    NIO
  }

  /**
   * The transport for this choice.
   *
   * @throws IllegalStateException if epoll was asked for and its native library does not load
   */
  public static Transport select(Choice choice) {
    return switch (choice) {
      case AUTO -> Epoll.isAvailable() ? EPOLL : NIO;
      case NIO -> NIO;
      case EPOLL -> {
        if (!Epoll.isAvailable()) {
          throw new IllegalStateException(
              "braid.rpc.transport=EPOLL but epoll is unavailable: " + Epoll.unavailabilityCause());
        }
        yield EPOLL;
      }
    };
  }

  /**
   * A new event-loop group whose daemon threads are named {@code braid-<name>-N}, so tests can
   * check that none outlive their owner.
   *
   * @param threads the number of event loops, at least 1
   */
  public EventLoopGroup newGroup(int threads, String name) {
    if (threads < 1) {
      throw new IllegalArgumentException("event loop threads must be >= 1: " + threads);
    }
    IoHandlerFactory factory =
        this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory("braid-" + name, true), factory);
  }

  public Class<? extends SocketChannel> socketChannel() {
    return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  public Class<? extends ServerChannel> serverChannel() {
    return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }
}
