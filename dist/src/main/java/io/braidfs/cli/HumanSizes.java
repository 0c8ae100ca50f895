package io.braidfs.cli;

import picocli.CommandLine.Option;

/**
 * {@code -h} for sizes in K, M, G (as in ls(1), du(1), df(1) and {@code hdfs dfs}); the command's
 * help is then {@code --help} alone. A picocli mixin.
 *
 * <p>Thread-safety: set by picocli before the command runs; read on that thread.
 */
final class HumanSizes {
  @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Option(
      names = {"-V", "--version"},
      versionHelp = true,
      description = "Print version information and exit.")
  boolean version;

  @Option(
      names = {"-h", "--human-readable"},
      description = "Sizes in K, M, G, T (powers of 1024).")
  boolean human;

  /** {@code bytes} as asked: {@link FsFormat#human} with -h, else the exact count. */
  String format(long bytes) {
    return human ? FsFormat.human(bytes) : Long.toUnsignedString(bytes);
  }
}
