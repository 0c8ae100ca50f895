package io.braidfs.mds.store;

import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.rocksdb.AbstractNativeReference;

/**
 * One RocksDB native object, tracked by {@link ManagedNatives} from creation until {@link #close()}
 * (after Ozone's {@code ManagedObject}). Create it only through the factories of {@link
 * ManagedNatives}, and close it with try-with-resources or, for long-lived objects, in the owner's
 * {@code close()}.
 *
 * <p>Thread-safety: thread-safe; {@link #close()} frees the native memory exactly once. The owner
 * must make sure nothing uses the object while or after it is closed ({@link #get()} fails fast on
 * a closed object, but cannot stop a use that already started).
 *
 * @param <T> the RocksDB type
 */
final class ManagedNative<T extends AbstractNativeReference> implements AutoCloseable {
  private final T resource;
  private final String type;

  /** Runs before {@code resource.close()}, such as releasing a snapshot in its database. */
  private final @Nullable Runnable release;

  /** Where it was created, when {@link ManagedNatives#TRACE_OPENINGS}. */
  private final @Nullable Throwable openedAt;

  private final AtomicBoolean closed = new AtomicBoolean();

  ManagedNative(T resource, @Nullable Runnable release) {
    this.resource = resource;
    this.type = resource.getClass().getSimpleName();
    this.release = release;
    this.openedAt = ManagedNatives.TRACE_OPENINGS ? new Throwable(type + " opened here") : null;
  }

  /**
   * The native object; it stays owned by this wrapper.
   *
   * @throws IllegalStateException if this wrapper was closed
   */
  T get() {
    if (closed.get()) {
      throw new IllegalStateException(type + " used after close");
    }
    return resource;
  }

  /** The RocksDB class name, such as {@code ReadOptions}. */
  String type() {
    return type;
  }

  @Nullable Throwable openedAt() {
    return openedAt;
  }

  /** Frees the native object; idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      if (release != null) {
        release.run();
      }
      resource.close();
    } finally {
      ManagedNatives.untrack(this);
    }
  }

  @Override
  public String toString() {
    return "Managed[" + type + (closed.get() ? ", closed]" : "]");
  }
}
