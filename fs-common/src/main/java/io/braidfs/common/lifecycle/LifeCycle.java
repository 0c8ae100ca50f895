package io.braidfs.common.lifecycle;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The state of a {@link Service}, with validated transitions: {@code NEW -> STARTING -> RUNNING ->
 * CLOSING -> CLOSED}, and {@code FAILED} from {@code STARTING}. Any state may move to {@code
 * CLOSING} once. After Ratis's {@code LifeCycle}.
 *
 * <p>Thread-safety: thread-safe; transitions are atomic compare-and-set.
 */
public final class LifeCycle {
  /** The states a service passes through. */
  public enum State {
    NEW,
    STARTING,
    RUNNING,
    FAILED,
    CLOSING,
    CLOSED
  }

  private final String name;
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);

  /** A life cycle for the component named {@code name} (used in error messages). */
  public LifeCycle(String name) {
    this.name = name;
  }

  public State state() {
    // Never null (it starts NEW); NullAway outside JSpecify mode takes AtomicReference.get() as
    // nullable.
    return requireNonNull(state.get());
  }

  /**
   * Moves from {@code NEW} to {@code STARTING}.
   *
   * @throws IllegalStateException if the service was already started or closed
   */
  public void startTransition() {
    if (!state.compareAndSet(State.NEW, State.STARTING)) {
      throw new IllegalStateException(name + ": cannot start in state " + state.get());
    }
  }

  /** Moves from {@code STARTING} to {@code RUNNING}; false if the service was closed meanwhile. */
  public boolean running() {
    return state.compareAndSet(State.STARTING, State.RUNNING);
  }

  /** Moves from {@code STARTING} to {@code FAILED}. */
  public void failed() {
    state.compareAndSet(State.STARTING, State.FAILED);
  }

  /**
   * Moves to {@code CLOSING} from any state but {@code CLOSING} and {@code CLOSED}.
   *
   * @return true if this call owns the close (it was the first), false if another call did
   */
  public boolean closeTransition() {
    while (true) {
      State s = state.get();
      if (s == State.CLOSING || s == State.CLOSED) {
        return false;
      }
      if (state.compareAndSet(s, State.CLOSING)) {
        return true;
      }
    }
  }

  /** Moves from {@code CLOSING} to {@code CLOSED}. */
  public void closed() {
    state.set(State.CLOSED);
  }

  /**
   * Fails unless the service is running.
   *
   * @throws IllegalStateException naming the service and its state
   */
  public void assertRunning() {
    State s = state.get();
    if (s != State.RUNNING) {
      throw new IllegalStateException(name + " is " + s + ", not RUNNING");
    }
  }

  public boolean isRunning() {
    return state.get() == State.RUNNING;
  }

  @Override
  public String toString() {
    return name + ":" + state.get();
  }
}
