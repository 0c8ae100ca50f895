package io.braidfs.common.rpc.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DuplexChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches writes to one channel from any thread: items join a lock-free queue and one task on the
 * channel's event loop writes everything queued, then flushes once. Under load many messages share
 * one flush (one {@code writev}); with one message in flight it costs what {@code writeAndFlush}
 * costs. This is the flush-batching rule of ARCHITECTURE section 7.
 *
 * <p>Nothing is written until {@link #open()}; items queued on a closed channel are handed to the
 * drop callback, which releases them (and fails the calls they belong to).
 *
 * <p>Thread-safety: {@link #write} may be called from any thread; draining happens on the event
 * loop only.
 */
public final class OutboundQueue<T> implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(OutboundQueue.class);

  private final Channel channel;
  private final Queue<T> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final Function<Object, @Nullable Object> beforeWrite;
  private final Consumer<T> onDrop;
  private volatile boolean open;
  private volatile boolean closeAfterDrain;
  private boolean closing; // event loop only

  /**
   * @param beforeWrite called on the event loop for each item just before it is written; returns
   *     the message to write, or null to skip the item (which it then owns)
   * @param onDrop called for each item that will never be written; must release it
   */
  public OutboundQueue(
      Channel channel, Function<Object, @Nullable Object> beforeWrite, Consumer<T> onDrop) {
    this.channel = channel;
    this.beforeWrite = beforeWrite;
    this.onDrop = onDrop;
  }

  /** Queues an item (taking ownership) and makes sure a drain is scheduled. */
  public void write(T item) {
    queue.add(item);
    if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
      schedule();
    }
  }

  /**
   * Queues a last item, then closes the channel once everything queued before it and it itself have
   * been sent.
   */
  public void writeAndClose(T item) {
    closeAfterDrain = true;
    write(item);
  }

  /** Closes the channel once everything queued so far has been sent. */
  public void closeWhenDrained() {
    closeAfterDrain = true;
    if (scheduled.compareAndSet(false, true)) {
      schedule();
    }
  }

  /** Allows writing, and writes what was queued before. */
  public void open() {
    open = true;
    if (scheduled.compareAndSet(false, true)) {
      schedule();
    }
  }

  private void schedule() {
    try {
      channel.eventLoop().execute(this);
    } catch (RejectedExecutionException e) {
      // The event loop is shutting down: nothing will be written, so give everything back.
      scheduled.set(false);
      dropAll();
    }
  }

  @Override
  public void run() {
    try {
      drain();
    } finally {
      // Cleared only after draining, so producers arriving meanwhile do not schedule more tasks;
      // the re-check catches one that found the flag still set after our last poll.
      scheduled.set(false);
      if (!queue.isEmpty() && (open || !channel.isOpen()) && scheduled.compareAndSet(false, true)) {
        schedule();
      }
    }
  }

  private void drain() {
    if (!channel.isOpen() || closing) {
      dropAll();
      return;
    }
    if (!channel.isActive() && closeAfterDrain) {
      channel.close();
      return;
    }
    if (!open || !channel.isActive()) {
      return;
    }
    boolean wrote = false;
    T item;
    while ((item = queue.poll()) != null) {
      Object msg;
      try {
        msg = beforeWrite.apply(item);
      } catch (RuntimeException e) {
        LOG.warn("dropping an outbound message on {}", channel, e);
        onDrop.accept(item);
        continue;
      }
      if (msg != null) {
        channel.write(msg, channel.voidPromise());
        wrote = true;
      }
    }
    if (closeAfterDrain) {
      closing = true;
      // The listener runs once every earlier write has completed, so nothing queued is cut off.
      channel
          .writeAndFlush(Unpooled.EMPTY_BUFFER)
          .addListener((ChannelFutureListener) f -> lingeringClose(f.channel()));
    } else if (wrote) {
      channel.flush();
    }
  }

  /**
   * Closes after a last answer without losing it: shutting down only our side first lets the peer
   * read the answer, where a close with unread input would reset the connection and could destroy
   * it. Input is discarded meanwhile; the channel closes when the peer does, or after a second.
   */
  private static void lingeringClose(Channel channel) {
    if (channel instanceof DuplexChannel duplex && channel.isActive()) {
      duplex.shutdownOutput();
      channel.eventLoop().schedule(() -> channel.close(), 1, TimeUnit.SECONDS);
    } else {
      channel.close();
    }
  }

  /** Hands every queued item to the drop callback. */
  public void dropAll() {
    T item;
    while ((item = queue.poll()) != null) {
      onDrop.accept(item);
    }
  }
}
