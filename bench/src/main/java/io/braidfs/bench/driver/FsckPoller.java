package io.braidfs.bench.driver;

import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.proto.FileHealth;
import io.braidfs.proto.FsckFile;
import io.braidfs.proto.FsckRequest;
import io.braidfs.proto.FsckResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The MDS's own view of the files' health, for experiment 10: its fsck (AdminService Fsck on "/"),
 * asked again every {@link #INTERVAL} until a condition holds.
 *
 * <p>Thread-safety: thread-safe as {@link RpcClient} is.
 */
final class FsckPoller {
  /**
   * Time between two fsck calls while waiting: small next to the second or more a repair takes, and
   * an fsck of a few files costs the MDS far less.
   */
  static final Duration INTERVAL = Duration.ofMillis(20);

  private final RpcClient rpc;
  private final InetSocketAddress mds;

  FsckPoller(RpcClient rpc, InetSocketAddress mds) {
    this.rpc = rpc;
    this.mds = mds;
  }

  /** One fsck of the whole namespace (the files not healthy listed, the counts of all). */
  FsckResponse check() throws IOException {
    return rpc.callSync(mds, RpcMethod.FSCK, FsckRequest.newBuilder().setPath("/").build());
  }

  /**
   * Asks fsck until {@code condition} holds; the {@link System#nanoTime()} of the answer that first
   * met it.
   *
   * @throws IOException if it does not hold within {@code timeout}, naming {@code what} and the
   *     last answer's counts
   */
  long await(String what, Duration timeout, Predicate<FsckResponse> condition)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      FsckResponse r = check();
      long at = System.nanoTime();
      if (condition.test(r)) {
        return at;
      }
      if (at - deadline > 0) {
        throw new IOException(
            "waited " + timeout.toSeconds() + " s for " + what + "; fsck last said " + counts(r));
      }
      TimeUnit.NANOSECONDS.sleep(INTERVAL.toNanos());
    }
  }

  /**
   * Every file healthy, except {@code except} (a file being written, whose last chunks are not
   * reported yet), and the MDS out of its start-up safe mode.
   */
  static boolean healthy(FsckResponse r, @Nullable String except) {
    return !r.getSafeMode() && !r.getTruncated() && unhealthy(r, except) == 0;
  }

  /** Files not healthy other than {@code except}, as listed by a non-verbose fsck. */
  static long unhealthy(FsckResponse r, @Nullable String except) {
    long n = 0;
    for (FsckFile f : r.getEntriesList()) {
      if (f.getHealth() != FileHealth.HEALTHY && !f.getPath().equals(except)) {
        n++;
      }
    }
    return n;
  }

  /** The answer's counts in words, for messages. */
  static String counts(FsckResponse r) {
    return String.format(
        Locale.ROOT,
        "%d files, %d healthy, %d under-replicated, %d corrupt, %d missing, repair queue %d%s",
        r.getFiles(),
        r.getHealthyFiles(),
        r.getUnderReplicatedFiles(),
        r.getCorruptFiles(),
        r.getMissingFiles(),
        r.getRepairQueue(),
        r.getSafeMode() ? ", in safe mode" : "");
  }
}
