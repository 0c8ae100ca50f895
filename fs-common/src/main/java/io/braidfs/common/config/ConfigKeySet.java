package io.braidfs.common.config;

import java.util.List;

/**
 * The configuration keys of one component, such as {@code rpc} or {@code mds}. Each module that has
 * keys provides one implementation, with the keys as {@code public static final} {@link ConfigKey}
 * constants, and registers it for {@link java.util.ServiceLoader} in {@code
 * META-INF/services/io.braidfs.common.config.ConfigKeySet}. {@link ConfigKeyRegistry#discover()}
 * finds them all; from there they reach unknown-key detection in {@link BraidConfig} and the
 * generated {@code docs/configuration.md}.
 *
 * <p>Implementations need a public no-argument constructor (a ServiceLoader requirement).
 *
 * <p>Thread-safety: implementations are immutable.
 */
public interface ConfigKeySet {
  /**
   * The component name: the second segment of every key in {@link #keys()}, lowercase, such as
   * {@code rpc} for {@code braid.rpc.client.call-timeout}.
   */
  String component();

  /** Every key of the component, each exactly once; order does not matter. */
  List<ConfigKey<?>> keys();
}
