package io.braidfs.common.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * One typed configuration key: its name, value type, default, one-line description and validator.
 * Each key is declared once, as a {@code public static final} constant of the component's {@link
 * ConfigKeySet}, with the default and the description beside it; {@link BraidConfig#get} reads it.
 *
 * <p>Names follow {@code braid.<component>.<area>.<name>} (the area may be omitted): segments of
 * lowercase letters and digits, starting with a letter, with single dashes between words, such as
 * {@code braid.rpc.client.call-timeout}. Units belong in the value type ({@code 30s}, {@code
 * 64MiB}), never in the name.
 *
 * <p>Raw values are parsed by {@link #parse(String)}: surrounding whitespace is ignored, then the
 * type's syntax applies ({@link Durations} for durations, {@link DataSize} for sizes, decimal
 * integers, {@code true}/{@code false}, enum constant names without regard to case, and
 * comma-separated lists). Every error is an {@link IllegalArgumentException} whose message names
 * the key, quotes the bad value and says what was expected.
 *
 * <p>Thread-safety: immutable.
 *
 * @param <T> the value type
 */
public final class ConfigKey<T> {
  /**
   * The value types a key can have.
   *
   * <p>Thread-safety: immutable.
   */
  public enum Type {
    DURATION,
    DATA_SIZE,
    INT,
    LONG,
    BOOLEAN,
    STRING,
    ENUM,
    STRING_LIST
  }

  private static final Pattern NAME = Pattern.compile("braid(\\.[a-z][a-z0-9]*(-[a-z0-9]+)*){2,}");

  private final String name;
  private final Type type;
  private final String typeDescription;
  private final String expectation;
  private final T defaultValue;
  private final String description;
  private final Function<String, T> parser;
  private final Function<T, String> formatter;

  /** Returns why a parsed or typed value is unacceptable, or null if it is fine. */
  private final Function<T, @Nullable String> validator;

  private ConfigKey(
      String name,
      Type type,
      String typeDescription,
      String expectation,
      T defaultValue,
      String description,
      Function<String, T> parser,
      Function<T, String> formatter,
      Function<T, @Nullable String> validator) {
    this.name = checkName(name);
    this.type = type;
    this.typeDescription = typeDescription;
    this.expectation = expectation;
    this.description = checkDescription(name, description);
    this.parser = parser;
    this.formatter = formatter;
    this.validator = validator;
    this.defaultValue = validate(Objects.requireNonNull(defaultValue, name + ": default"));
  }

  // ---- factories ----------------------------------------------------------------------------

  /**
   * A duration key accepting any non-negative duration.
   *
   * @throws IllegalArgumentException if the name, the description or the default is invalid
   */
  public static ConfigKey<Duration> duration(String name, Duration def, String description) {
    return duration(name, def, Duration.ZERO, null, description);
  }

  /**
   * A duration key accepting values from {@code min} to {@code max}, inclusive.
   *
   * @param max the largest value accepted, or null for no upper bound
   * @throws IllegalArgumentException if the name, the description, the range or the default is
   *     invalid
   */
  public static ConfigKey<Duration> duration(
      String name, Duration def, Duration min, @Nullable Duration max, String description) {
    checkRange(name, min.isNegative() || (max != null && max.compareTo(min) < 0), min, max);
    String lo = min.isZero() ? null : Durations.format(min);
    String hi = max == null ? null : Durations.format(max);
    return new ConfigKey<>(
        name,
        Type.DURATION,
        typeText("duration", lo, hi),
        expectationText("a duration", rangeText(lo, hi)),
        def,
        description,
        Durations::parse,
        Durations::format,
        v ->
            v.isNegative() || v.compareTo(min) < 0 || (max != null && v.compareTo(max) > 0)
                ? "out of range"
                : null);
  }

  /**
   * A data-size key accepting any size.
   *
   * @throws IllegalArgumentException if the name, the description or the default is invalid
   */
  public static ConfigKey<DataSize> dataSize(String name, DataSize def, String description) {
    return dataSize(name, def, DataSize.ZERO, null, description);
  }

  /**
   * A data-size key accepting sizes from {@code min} to {@code max}, inclusive.
   *
   * @param max the largest size accepted, or null for no upper bound
   * @throws IllegalArgumentException if the name, the description, the range or the default is
   *     invalid
   */
  public static ConfigKey<DataSize> dataSize(
      String name, DataSize def, DataSize min, @Nullable DataSize max, String description) {
    checkRange(name, max != null && max.compareTo(min) < 0, min, max);
    String lo = min.toBytes() == 0 ? null : min.toString();
    String hi = max == null ? null : max.toString();
    return new ConfigKey<>(
        name,
        Type.DATA_SIZE,
        typeText("data size", lo, hi),
        expectationText("a data size", rangeText(lo, hi)),
        def,
        description,
        DataSize::parse,
        DataSize::toString,
        v -> v.compareTo(min) < 0 || (max != null && v.compareTo(max) > 0) ? "out of range" : null);
  }

  /**
   * An {@code int} key accepting values from {@code min} to {@code max}, inclusive. The bounds
   * {@link Integer#MIN_VALUE} and {@link Integer#MAX_VALUE} mean unbounded in the docs.
   *
   * @throws IllegalArgumentException if the name, the description, the range or the default is
   *     invalid
   */
  public static ConfigKey<Integer> integer(
      String name, int def, int min, int max, String description) {
    checkRange(name, max < min, min, max);
    String lo = min == Integer.MIN_VALUE ? null : Integer.toString(min);
    String hi = max == Integer.MAX_VALUE ? null : Integer.toString(max);
    return new ConfigKey<>(
        name,
        Type.INT,
        typeText("int", lo, hi),
        expectationText("an integer", rangeText(lo, hi)),
        def,
        description,
        raw -> parseNumber(raw, "integer", Integer::valueOf),
        v -> Integer.toString(v),
        v -> v < min || v > max ? "out of range" : null);
  }

  /**
   * A {@code long} key accepting values from {@code min} to {@code max}, inclusive. The bounds
   * {@link Long#MIN_VALUE} and {@link Long#MAX_VALUE} mean unbounded in the docs.
   *
   * @throws IllegalArgumentException if the name, the description, the range or the default is
   *     invalid
   */
  public static ConfigKey<Long> longKey(
      String name, long def, long min, long max, String description) {
    checkRange(name, max < min, min, max);
    String lo = min == Long.MIN_VALUE ? null : Long.toString(min);
    String hi = max == Long.MAX_VALUE ? null : Long.toString(max);
    return new ConfigKey<>(
        name,
        Type.LONG,
        typeText("long", lo, hi),
        expectationText("an integer", rangeText(lo, hi)),
        def,
        description,
        raw -> parseNumber(raw, "integer", Long::valueOf),
        v -> Long.toString(v),
        v -> v < min || v > max ? "out of range" : null);
  }

  /**
   * A boolean key; the raw value is {@code true} or {@code false}, without regard to case.
   *
   * @throws IllegalArgumentException if the name or the description is invalid
   */
  public static ConfigKey<Boolean> bool(String name, boolean def, String description) {
    return new ConfigKey<>(
        name,
        Type.BOOLEAN,
        "boolean",
        "true or false",
        def,
        description,
        raw -> {
          if (raw.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
          }
          if (raw.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
          }
          throw new IllegalArgumentException("invalid boolean '" + raw + "'");
        },
        v -> Boolean.toString(v),
        v -> null);
  }

  /**
   * A string key; any value is accepted (surrounding whitespace is removed).
   *
   * @throws IllegalArgumentException if the name or the description is invalid, or the default has
   *     surrounding whitespace
   */
  public static ConfigKey<String> string(String name, String def, String description) {
    return new ConfigKey<>(
        name,
        Type.STRING,
        "string",
        "a string",
        def,
        description,
        raw -> raw,
        v -> v,
        v -> v.strip().equals(v) ? null : "has surrounding whitespace");
  }

  /**
   * An enum key; the raw value is a constant's name, without regard to case.
   *
   * @throws IllegalArgumentException if the name or the description is invalid
   */
  public static <E extends Enum<E>> ConfigKey<E> enumKey(String name, E def, String description) {
    Class<E> enumType = def.getDeclaringClass();
    E[] constants = enumType.getEnumConstants();
    String names = Arrays.stream(constants).map(Enum::name).collect(Collectors.joining(", "));
    return new ConfigKey<>(
        name,
        Type.ENUM,
        "enum: " + names,
        "one of " + names + " (case-insensitive)",
        def,
        description,
        raw -> {
          for (E e : constants) {
            if (e.name().equalsIgnoreCase(raw)) {
              return e;
            }
          }
          throw new IllegalArgumentException("invalid value '" + raw + "'");
        },
        Enum::name,
        v -> null);
  }

  /**
   * A list-of-strings key. The raw value is comma-separated; elements are stripped of surrounding
   * whitespace and empty elements are dropped, so {@code "a, b,"} is {@code [a, b]} and the empty
   * string is the empty list.
   *
   * @throws IllegalArgumentException if the name or the description is invalid, or an element of
   *     the default is empty, contains a comma, or has surrounding whitespace
   */
  public static ConfigKey<List<String>> stringList(
      String name, List<String> def, String description) {
    return new ConfigKey<>(
        name,
        Type.STRING_LIST,
        "list of strings",
        "a comma-separated list",
        List.copyOf(def),
        description,
        raw -> {
          List<String> out = new ArrayList<>();
          for (String part : raw.split(",", -1)) {
            String element = part.strip();
            if (!element.isEmpty()) {
              out.add(element);
            }
          }
          return List.copyOf(out);
        },
        v -> String.join(",", v),
        v -> {
          for (String element : v) {
            if (element.isEmpty() || element.contains(",") || !element.strip().equals(element)) {
              return "element '" + element + "' is empty, contains a comma or has spaces around it";
            }
          }
          return null;
        });
  }

  // ---- accessors ----------------------------------------------------------------------------

  /** The full key name, such as {@code braid.rpc.client.call-timeout}. */
  public String name() {
    return name;
  }

  /** The value type. */
  public Type type() {
    return type;
  }

  /**
   * A short description of the type and accepted range for the generated docs, such as {@code int,
   * 1 to 65536} or {@code enum: AUTO, EPOLL, NIO}.
   */
  public String typeDescription() {
    return typeDescription;
  }

  /** The value used when the key is not set; always valid for this key. */
  public T defaultValue() {
    return defaultValue;
  }

  /** The one-line description, as it appears in {@code docs/configuration.md}. */
  public String description() {
    return description;
  }

  /**
   * Parses and validates a raw value. Surrounding whitespace is ignored.
   *
   * @throws IllegalArgumentException if the value does not parse or is out of range; the message
   *     names this key, quotes {@code raw} and says what was expected
   */
  public T parse(String raw) {
    String stripped = raw.strip();
    T value;
    try {
      value = parser.apply(stripped);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          name + ": " + e.getMessage() + "; expected " + expectation, e);
    }
    String problem = validator.apply(value);
    if (problem != null) {
      throw new IllegalArgumentException(
          name + ": invalid value '" + stripped + "': " + problem + "; expected " + expectation);
    }
    return value;
  }

  /**
   * Formats a value in the syntax {@link #parse(String)} accepts, so that {@code
   * parse(format(v)).equals(v)}.
   *
   * @throws IllegalArgumentException if {@code value} is not valid for this key
   */
  public String format(T value) {
    return formatter.apply(validate(value));
  }

  /**
   * Checks a typed value against this key's type and range.
   *
   * @return {@code value}
   * @throws IllegalArgumentException if it is out of range; the message names this key
   * @throws NullPointerException if {@code value} is null
   */
  public T validate(T value) {
    Objects.requireNonNull(value, name);
    String problem = validator.apply(value);
    if (problem != null) {
      throw new IllegalArgumentException(
          name
              + ": invalid value '"
              + describe(value)
              + "': "
              + problem
              + "; expected "
              + expectation);
    }
    return value;
  }

  /** The key name. */
  @Override
  public String toString() {
    return name;
  }

  // ---- helpers ------------------------------------------------------------------------------

  private String describe(T value) {
    try {
      return formatter.apply(value);
    } catch (RuntimeException e) {
      return String.valueOf(value);
    }
  }

  private static String checkName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "invalid config key name '"
              + name
              + "': expected braid.<component>.<area>.<name>, with segments of lowercase letters"
              + " and digits that start with a letter, joined by dots, words joined by single"
              + " dashes");
    }
    return name;
  }

  private static String checkDescription(String name, String description) {
    if (description.isBlank() || description.contains("\n") || description.contains("\r")) {
      throw new IllegalArgumentException(
          name + ": the description must be one non-empty line, was '" + description + "'");
    }
    return description.strip();
  }

  private static void checkRange(String name, boolean invalid, Object min, @Nullable Object max) {
    if (invalid) {
      throw new IllegalArgumentException(
          name + ": invalid range [" + min + ", " + (max == null ? "unbounded" : max) + "]");
    }
  }

  /** The range for error messages: "from 1 to 10", "of at least 1", or "" if unbounded. */
  private static String rangeText(@Nullable String min, @Nullable String max) {
    if (min == null && max == null) {
      return "";
    }
    if (max == null) {
      return "of at least " + min;
    }
    if (min == null) {
      return "of at most " + max;
    }
    return "from " + min + " to " + max;
  }

  /** The type column of the docs: "int", "int, 1 to 10", "int, at least 1". */
  private static String typeText(String type, @Nullable String min, @Nullable String max) {
    if (min == null && max == null) {
      return type;
    }
    if (max == null) {
      return type + ", at least " + min;
    }
    if (min == null) {
      return type + ", at most " + max;
    }
    return type + ", " + min + " to " + max;
  }

  private static String expectationText(String what, String range) {
    return range.isEmpty() ? what : what + " " + range;
  }

  private static <N> N parseNumber(String raw, String what, Function<String, N> parse) {
    try {
      return parse.apply(raw);
    } catch (NumberFormatException e) {
      String problem =
          raw.matches("[+-]?\\d+") ? "the number is too large" : "not a decimal " + what;
      throw new IllegalArgumentException("invalid " + what + " '" + raw + "': " + problem, e);
    }
  }
}
