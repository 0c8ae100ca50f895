package io.braidfs.common.clock;

/**
 * The JVM's clocks.
 *
 * <p>Thread-safety: stateless.
 */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public long currentTimeMillis() {
    return System.currentTimeMillis();
  }
}
