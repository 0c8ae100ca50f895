package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test that leaves a RocksDB native object open: after the test and its {@code @AfterEach}
 * methods (which close what the test opened), {@link ManagedNatives#leaks()} must be empty. The
 * report shows where each leaked object was created (surefire runs with assertions enabled).
 *
 * <p>Public for the tests of packages built on the store (the journal).
 *
 * <p>Thread-safety: stateless.
 */
public final class NoNativeLeaks implements AfterEachCallback {
  @Override
  public void afterEach(ExtensionContext context) {
    assertThat(ManagedNatives.leaks())
        .as("RocksDB natives left open by %s", context.getDisplayName())
        .isEmpty();
  }
}
