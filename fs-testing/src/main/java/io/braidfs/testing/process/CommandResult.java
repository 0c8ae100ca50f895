package io.braidfs.testing.process;

import java.util.List;

/**
 * How a command that ran to its end ended.
 *
 * <p>Thread-safety: immutable.
 *
 * @param exitCode its exit code
 * @param stdout what it wrote to stdout (UTF-8), without trailing white space
 * @param stderr what it wrote to stderr; empty when merged into stdout
 */
public record CommandResult(int exitCode, String stdout, String stderr) {
  /** Every line of {@link #stdout}. */
  public List<String> lines() {
    return stdout.isEmpty() ? List.of() : stdout.lines().toList();
  }
}
