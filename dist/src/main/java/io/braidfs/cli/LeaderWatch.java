package io.braidfs.cli;

import io.braidfs.cli.LocalMdsReplicas.Replica;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What lets a user of {@code braid local --ha} see a failover: it reports each change of leader
 * among the replicas as one line ("{@code braid local: leader is now mds-2 127.0.0.1:7401 (epoch
 * 3)}", and "{@code braid local: no leader (mds-1 stopped leading)}" when a poll finds none, which
 * a quick takeover may not show), and it makes the leader hand over ({@link
 * io.braidfs.mds.server.MdsServer#handOver()}) whenever the file {@value #TRIGGER} appears in the
 * cluster's directory ({@code touch DIR/failover}), deleting it. A file, rather than stdin or a
 * signal, so that it works from any other terminal or script and leaves Ctrl-C and SIGTERM to stop
 * the cluster.
 *
 * <p>The replicas run in this process, so it polls their roles every {@link #POLL} on its one
 * thread {@code braid-local-leader-watch}; the lines go to the consumer given (braid local's
 * stdout).
 *
 * <p>Thread-safety: thread-safe; the state below is touched only by its thread.
 */
final class LeaderWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaderWatch.class);

  /** The file in the cluster's directory that asks the leader to hand over. */
  static final String TRIGGER = "failover";

  static final Duration POLL = Duration.ofMillis(100);

  private final LocalMdsReplicas replicas;
  private final Path trigger;
  private final Consumer<String> out;
  private final ScheduledExecutorService thread;

  // Only the watch's thread touches these (after the constructor).
  private @Nullable String leaderId;
  private long leaderEpoch;

  /**
   * Watches {@code replicas} (started), taking the current leader as known: only changes are
   * reported.
   */
  LeaderWatch(LocalMdsReplicas replicas, Path dir, Consumer<String> out) {
    this.replicas = replicas;
    this.trigger = dir.resolve(TRIGGER);
    this.out = out;
    Replica now = replicas.leader();
    if (now != null) {
      leaderId = now.id();
      leaderEpoch = now.server().epoch();
    }
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "braid-local-leader-watch");
              t.setDaemon(true);
              return t;
            });
  }

  /** The file whose appearance makes the leader hand over. */
  Path trigger() {
    return trigger;
  }

  /** Starts polling. */
  void start() {
    thread.scheduleWithFixedDelay(this::poll, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void poll() {
    try {
      report(replicas.leader());
      if (Files.deleteIfExists(trigger)) {
        handOver(replicas.leader());
      }
    } catch (IOException | RuntimeException e) {
      // Top of the task: an exception would end the scheduled polling without a word.
      LOG.warn("braid local: watching the MDS replicas: {}", e.toString());
    }
  }

  private void report(@Nullable Replica now) {
    if (now == null) {
      if (leaderId != null) {
        out.accept("braid local: no leader (" + leaderId + " stopped leading)");
        leaderId = null;
      }
      return;
    }
    long epoch = now.server().epoch();
    if (now.id().equals(leaderId) && epoch == leaderEpoch) {
      return;
    }
    out.accept(
        "braid local: leader is now " + now.id() + " " + now.address() + " (epoch " + epoch + ")");
    leaderId = now.id();
    leaderEpoch = epoch;
  }

  private void handOver(@Nullable Replica leader) {
    if (leader == null) {
      out.accept("braid local: " + trigger + " found, but no replica leads now to hand over");
      return;
    }
    try {
      leader.server().handOver();
      out.accept("braid local: " + leader.id() + " hands leadership over (" + trigger + ")");
    } catch (IOException e) {
      out.accept("braid local: " + leader.id() + " could not hand over: " + e.getMessage());
    }
  }

  /** Stops polling, waiting at most a few seconds for a poll under way. */
  @Override
  public void close() {
    thread.shutdownNow();
    try {
      if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
        LOG.warn("braid local: the leader watch did not stop within 5 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
