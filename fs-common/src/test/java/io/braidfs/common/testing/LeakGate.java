package io.braidfs.common.testing;

import static org.assertj.core.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Fails tests that leak Netty buffers. As a launcher-session listener it installs, before any
 * buffer class loads, a leak-detector factory at PARANOID level that records every leak report
 * instead of only logging it; as an extension (autodetected, see junit-platform.properties) it
 * collects garbage after each test class, provokes the detector, and fails the class if a leak was
 * seen (per class rather than per test: the collections cost about 0.1 s each).
 *
 * <p>Thread-safety: thread-safe; reports may arrive on any thread.
 */
public final class LeakGate implements LauncherSessionListener, AfterAllCallback {
  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
  private static volatile boolean installed;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    install();
  }

  /** Installs the recording detector factory; idempotent. */
  public static synchronized void install() {
    if (installed) {
      return;
    }
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    installed = true;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    check(context.getDisplayName());
  }

  /**
   * Collects garbage and fails if any buffer was released by the collector rather than by its owner
   * since the last check.
   */
  public static void check(String where) {
    for (int i = 0; i < 3; i++) {
      System.gc();
      // A detector reports pending leaks when the next buffer is tracked.
      for (int j = 0; j < 8; j++) {
        ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
        a.release();
        b.release();
      }
    }
    if (!LEAKS.isEmpty()) {
      List<String> leaks = new ArrayList<>(LEAKS);
      LEAKS.clear();
      fail("%d Netty buffer leak(s) detected after %s:%n%s", leaks.size(), where, leaks.get(0));
    }
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval) {
      return new RecordingDetector<>(resource, samplingInterval);
    }

    @Override
    @SuppressWarnings("deprecation") // the abstract method every factory must still implement
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return new RecordingDetector<>(resource, samplingInterval);
    }
  }

  private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
    RecordingDetector(Class<?> resource, int samplingInterval) {
      super(resource, samplingInterval);
    }

    @Override
    protected boolean needReport() {
      return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      LEAKS.add(resourceType + " leaked:" + records);
      super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      LEAKS.add(resourceType + " leaked (no records)");
      super.reportUntracedLeak(resourceType);
    }
  }
}
