package io.braidfs.cli;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The fields picocli injects into a command ({@code @Spec}, {@code @ParentCommand}), checked once
 * here: null only in a command not created by picocli, which is a bug.
 *
 * <p>Thread-safety: stateless.
 */
final class Picocli {
  private Picocli() {}

  /** The injected {@code @Spec}. */
  static CommandSpec spec(@Nullable CommandSpec spec) {
    if (spec == null) {
      throw new IllegalStateException("not created by picocli");
    }
    return spec;
  }

  /** The injected {@code @ParentCommand} of a subcommand of {@code braid}. */
  static Braid parent(@Nullable Braid parent) {
    if (parent == null) {
      throw new IllegalStateException("not run as a subcommand of braid");
    }
    return parent;
  }
}
