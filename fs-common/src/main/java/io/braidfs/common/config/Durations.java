package io.braidfs.common.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and formats {@link Duration}s in configuration syntax: {@code 250ms}, {@code 30s}, {@code
 * 5m}, {@code 1h}, {@code 2d}, {@code 100us}.
 *
 * <p>Syntax accepted by {@link #parse(String)}: a non-negative whole number, optional whitespace,
 * then a unit, which is required: {@code ns}, {@code us} (also {@code µs}), {@code ms}, {@code s},
 * {@code m} (minutes), {@code h} or {@code d} (24 hours), matched without regard to case. A bare
 * number is rejected: whether {@code 30} meant seconds or milliseconds is exactly the ambiguity
 * that units in the value are meant to remove. Fractions ({@code 1.5s}), negative durations and
 * compound forms ({@code 1h30m}) are rejected too; write {@code 1500ms} or {@code 90m}.
 *
 * <p>{@link #format(Duration)} writes the largest unit that represents the duration exactly ({@code
 * 30000ms} becomes {@code 30s}, {@code 90s} stays {@code 90s}), so {@code
 * parse(format(d)).equals(d)} for every non-negative {@code d}.
 *
 * <p>Thread-safety: stateless; safe for concurrent use.
 */
public final class Durations {
  /** Human description of the accepted syntax, for error messages and the generated docs. */
  static final String SYNTAX =
      "a whole number with a unit ns, us, ms, s, m, h or d, such as 250ms, 30s or 5m";

  private static final Pattern PATTERN = Pattern.compile("(\\d+)\\s*([A-Za-z\\u00b5\\u03bc]*)");

  /** Units from largest to smallest, for formatting. */
  private static final ChronoUnit[] FORMAT_UNITS = {
    ChronoUnit.DAYS,
    ChronoUnit.HOURS,
    ChronoUnit.MINUTES,
    ChronoUnit.SECONDS,
    ChronoUnit.MILLIS,
    ChronoUnit.MICROS
  };

  private Durations() {}

  /**
   * Parses a duration such as {@code 30s}; surrounding whitespace is ignored. The syntax is in the
   * class javadoc.
   *
   * @throws IllegalArgumentException if {@code text} is not a valid duration; the message quotes
   *     the text and names the problem (empty, missing or unknown unit, fraction, negative,
   *     overflow)
   */
  public static Duration parse(String text) {
    String s = text.strip();
    if (s.isEmpty()) {
      throw invalid(text, "it is empty");
    }
    Matcher m = PATTERN.matcher(s);
    if (!m.matches()) {
      if (s.startsWith("-")) {
        throw invalid(text, "a duration cannot be negative");
      }
      if (s.matches("\\d*[.,]\\d+\\s*[A-Za-z\\u00b5\\u03bc]*")) {
        throw invalid(
            text, "fractions are not accepted; use a whole number of a smaller unit (1500ms)");
      }
      if (s.matches("(\\d+\\s*[A-Za-z\\u00b5\\u03bc]+\\s*){2,}")) {
        throw invalid(text, "compound durations are not accepted; use one unit (90m)");
      }
      throw invalid(text, "it must be " + SYNTAX);
    }
    String unitText = m.group(2);
    if (unitText.isEmpty()) {
      throw invalid(
          text,
          "the unit is missing; write for example " + m.group(1) + "ms or " + m.group(1) + "s");
    }
    ChronoUnit unit = unit(text, unitText);
    long amount;
    try {
      amount = Long.parseLong(m.group(1));
      return Duration.of(amount, unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw invalid(text, "the number is too large");
    }
  }

  private static ChronoUnit unit(String text, String unit) {
    return switch (unit.toLowerCase(Locale.ROOT)) {
      case "ns" -> ChronoUnit.NANOS;
      case "us", "\u00b5s", "\u03bcs" -> ChronoUnit.MICROS;
      case "ms" -> ChronoUnit.MILLIS;
      case "s" -> ChronoUnit.SECONDS;
      case "m" -> ChronoUnit.MINUTES;
      case "h" -> ChronoUnit.HOURS;
      case "d" -> ChronoUnit.DAYS;
      default ->
          throw invalid(text, "unknown unit '" + unit + "'; units are ns, us, ms, s, m, h and d");
    };
  }

  private static IllegalArgumentException invalid(String text, String problem) {
    return new IllegalArgumentException("invalid duration '" + text + "': " + problem);
  }

  /**
   * Formats {@code d} in the largest exact unit, without a space: {@code 0s}, {@code 250ms}, {@code
   * 90s}, {@code 2d}, {@code 1500ns}. Microseconds are written {@code us}.
   *
   * @throws IllegalArgumentException if {@code d} is negative, which the syntax cannot express
   */
  public static String format(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("cannot format a negative duration: " + d);
    }
    if (d.isZero()) {
      return "0s";
    }
    for (ChronoUnit unit : FORMAT_UNITS) {
      Duration unitLength = unit.getDuration();
      if (isMultipleOf(d, unitLength)) {
        return d.dividedBy(unitLength) + symbol(unit);
      }
    }
    try {
      return d.toNanos() + "ns";
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          "cannot format " + d + ": too long for nanosecond precision", e);
    }
  }

  private static boolean isMultipleOf(Duration d, Duration unit) {
    if (unit.getSeconds() > 0 && unit.getNano() == 0) {
      return d.getNano() == 0 && d.getSeconds() % unit.getSeconds() == 0;
    }
    // unit is below one second and divides one second exactly.
    return d.getNano() % unit.getNano() == 0;
  }

  private static String symbol(ChronoUnit unit) {
    return switch (unit) {
      case DAYS -> "d";
      case HOURS -> "h";
      case MINUTES -> "m";
      case SECONDS -> "s";
      case MILLIS -> "ms";
      case MICROS -> "us";
      default -> throw new AssertionError(unit);
    };
  }
}
