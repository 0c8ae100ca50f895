package io.braidfs.cli;

import java.io.PrintWriter;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How the {@code braid} command reports what went wrong: always one line on stderr, prefixed with
 * the command that failed ({@code braid mds: ...}), and an exit code from {@link Braid}.
 *
 * <p>Thread-safety: stateless.
 */
final class Errors {
  private static final Logger LOG = LoggerFactory.getLogger(Errors.class);

  private Errors() {}

  /**
   * A usage error (picocli's or ours): the message and, unless it is about configuration, where to
   * find help; exit code 2.
   */
  static int usage(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    String name = cmd.getCommandSpec().qualifiedName();
    PrintWriter err = cmd.getErr();
    String hint = e instanceof ConfigException ? "" : " (see " + name + " --help)";
    err.println(name + ": " + oneLine(e.getMessage()) + suggestion(e) + hint);
    err.flush();
    return Braid.EXIT_USAGE;
  }

  /** For an unknown command or option, the nearest ones picocli knows: "; did you mean ...?". */
  private static String suggestion(ParameterException e) {
    if (!(e instanceof UnmatchedArgumentException u)) {
      return "";
    }
    List<String> near = u.getSuggestions();
    if (near.isEmpty()) {
      return "";
    }
    List<String> quoted = near.stream().limit(3).map(s -> "'" + s + "'").toList();
    return "; did you mean " + String.join(" or ", quoted) + "?";
  }

  /**
   * An exception out of a command's work that the command did not turn into an exit code itself: a
   * bug. One line on stderr, the stack trace in the log; exit code 1.
   */
  static int failure(Exception e, CommandLine cmd, ParseResult parseResult) {
    String name = cmd.getCommandSpec().qualifiedName();
    LOG.error("{}: unexpected failure", name, e);
    cmd.getErr().println(name + ": failed: " + describe(e));
    cmd.getErr().flush();
    return Braid.EXIT_FAILURE;
  }

  /**
   * The messages of {@code t} and its causes on one line, outermost first. A wrapper without a
   * message of its own (whose message is its cause's {@code toString()}) is left out, and so is a
   * cause whose message the previous one already contains.
   */
  static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder();
    String previous = "";
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      Throwable cause = c.getCause();
      String message = c.getMessage();
      if (cause != null && cause != c && String.valueOf(cause).equals(message)) {
        continue;
      }
      if (message == null || message.isBlank()) {
        message = c.getClass().getSimpleName();
      }
      message = oneLine(message);
      if (!previous.contains(message)) {
        if (sb.length() > 0) {
          sb.append(": ");
        }
        sb.append(message);
      }
      previous = message;
    }
    return sb.toString();
  }

  private static String oneLine(@Nullable String s) {
    return s == null ? "" : s.strip().replaceAll("\\s*[\\r\\n]+\\s*", "; ");
  }
}
