package io.braidfs.cli.internal.web;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * The last {@link #CAPACITY} WARN and ERROR events of the process, kept in memory for the status
 * page: a logback appender on the root logger, added by {@link #install} and removed by {@link
 * #close}. Without logback as the backend it keeps nothing and says so.
 *
 * <p>Thread-safety: thread-safe; events arrive on any thread.
 */
public final class RecentWarnings extends AppenderBase<ILoggingEvent> implements AutoCloseable {
  static final int CAPACITY = 100;

  /** One event, its message formatted. */
  private record Line(String time, String level, String logger, String thread, String message) {
    Map<String, Object> toJson() {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("time", time);
      out.put("level", level);
      out.put("logger", logger);
      out.put("thread", thread);
      out.put("message", message);
      return out;
    }
  }

  @GuardedBy("lines")
  private final ArrayDeque<Line> lines = new ArrayDeque<>();

  private final @Nullable LoggerContext context;

  private RecentWarnings(@Nullable LoggerContext context) {
    this.context = context;
  }

  /** Starts keeping warnings: attached to the root logger of logback, if that is the backend. */
  public static RecentWarnings install() {
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext c)) {
      return new RecentWarnings(null);
    }
    RecentWarnings w = new RecentWarnings(c);
    w.setContext(c);
    w.setName("braid-status-page");
    w.start();
    c.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).addAppender(w);
    return w;
  }

  /** Whether warnings are kept at all (logback is the backend). */
  boolean available() {
    return context != null;
  }

  @Override
  protected void append(ILoggingEvent e) {
    if (!e.getLevel().isGreaterOrEqual(Level.WARN)) {
      return;
    }
    Line line =
        new Line(
            Instant.ofEpochMilli(e.getTimeStamp()).toString(),
            e.getLevel().toString(),
            e.getLoggerName(),
            e.getThreadName(),
            e.getFormattedMessage());
    synchronized (lines) {
      if (lines.size() == CAPACITY) {
        lines.removeFirst();
      }
      lines.addLast(line);
    }
  }

  /** The kept lines, newest first; those of {@code thread}s starting with a prefix if given. */
  List<Map<String, Object>> newestFirst(@Nullable String threadPrefix) {
    List<Map<String, Object>> out = new ArrayList<>();
    synchronized (lines) {
      var it = lines.descendingIterator();
      while (it.hasNext()) {
        Line l = it.next();
        if (threadPrefix == null || l.thread().startsWith(threadPrefix)) {
          out.add(l.toJson());
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    LoggerContext c = context;
    if (c != null) {
      c.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).detachAppender(this);
      stop();
    }
  }
}
