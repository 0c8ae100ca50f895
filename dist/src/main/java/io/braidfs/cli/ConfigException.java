package io.braidfs.cli;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * A configuration the command line cannot use: an unreadable {@code --conf} file, an unknown key or
 * an invalid value. A usage error (exit code {@link Braid#EXIT_USAGE}), reported without the
 * pointer to {@code --help}, which does not list configuration keys.
 *
 * <p>Thread-safety: immutable once thrown.
 */
final class ConfigException extends ParameterException {
  private static final long serialVersionUID = 1L;

  ConfigException(CommandLine cmd, String message, @Nullable Throwable cause) {
    super(cmd, message, cause);
  }
}
