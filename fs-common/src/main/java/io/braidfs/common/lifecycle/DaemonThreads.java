package io.braidfs.common.lifecycle;

import java.util.concurrent.ThreadFactory;

/**
 * Thread factories for a service's own background threads: daemon threads, so a service that failed
 * to close never keeps the JVM alive, named so a thread dump tells whose they are.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** Makes daemon threads all named {@code name} (for single-thread executors). */
  public static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
