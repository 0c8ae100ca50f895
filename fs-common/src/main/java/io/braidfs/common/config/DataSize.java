package io.braidfs.common.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An amount of data in bytes, written with binary units: {@code 512}, {@code 512B}, {@code 4KiB},
 * {@code 64MiB}, {@code 1GiB}, {@code 2TiB}.
 *
 * <p>Syntax accepted by {@link #parse(String)}: a non-negative whole number, optional whitespace,
 * then an optional unit. Units are {@code B}, {@code KiB} (2<sup>10</sup> bytes), {@code MiB}
 * (2<sup>20</sup>), {@code GiB} (2<sup>30</sup>) and {@code TiB} (2<sup>40</sup>), matched without
 * regard to case; a bare number is bytes. The decimal-looking units {@code KB}, {@code MB}, {@code
 * GB}, {@code TB} and the one-letter {@code K}, {@code M}, {@code G}, {@code T} are rejected,
 * because readers disagree whether they mean powers of 1000 or 1024; the error message names the
 * binary unit to use instead. Fractions ({@code 1.5GiB}) and negative sizes are rejected too.
 *
 * <p>{@link #toString()} formats back with the largest unit that represents the size exactly
 * ({@code 4194304} becomes {@code 4MiB}, {@code 1536} stays {@code 1536B}), so {@code
 * parse(s.toString()).equals(s)} always holds.
 *
 * <p>Thread-safety: immutable value type.
 */
public final class DataSize implements Comparable<DataSize> {
  /** No bytes. */
  public static final DataSize ZERO = new DataSize(0);

  /** The units, smallest first, with their names as formatted. */
  private static final String[] UNIT_NAMES = {"B", "KiB", "MiB", "GiB", "TiB"};

  /** Human description of the accepted syntax, for error messages and the generated docs. */
  static final String SYNTAX =
      "a whole number of bytes with an optional binary unit B, KiB, MiB, GiB or TiB,"
          + " such as 512, 4KiB or 64MiB";

  private static final Pattern PATTERN = Pattern.compile("(\\d+)\\s*([A-Za-z]*)");

  private final long bytes;

  private DataSize(long bytes) {
    this.bytes = bytes;
  }

  /**
   * A size of {@code bytes} bytes.
   *
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  public static DataSize ofBytes(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("data size must not be negative: " + bytes);
    }
    return bytes == 0 ? ZERO : new DataSize(bytes);
  }

  /**
   * A size of {@code kib} × 1024 bytes.
   *
   * @throws IllegalArgumentException if negative or too large for a {@code long}
   */
  public static DataSize ofKiB(long kib) {
    return ofUnits(kib, 1);
  }

  /**
   * A size of {@code mib} × 2<sup>20</sup> bytes.
   *
   * @throws IllegalArgumentException if negative or too large for a {@code long}
   */
  public static DataSize ofMiB(long mib) {
    return ofUnits(mib, 2);
  }

  /**
   * A size of {@code gib} × 2<sup>30</sup> bytes.
   *
   * @throws IllegalArgumentException if negative or too large for a {@code long}
   */
  public static DataSize ofGiB(long gib) {
    return ofUnits(gib, 3);
  }

  /**
   * A size of {@code tib} × 2<sup>40</sup> bytes.
   *
   * @throws IllegalArgumentException if negative or too large for a {@code long}
   */
  public static DataSize ofTiB(long tib) {
    return ofUnits(tib, 4);
  }

  private static DataSize ofUnits(long amount, int unitIndex) {
    if (amount < 0) {
      throw new IllegalArgumentException(
          "data size must not be negative: " + amount + UNIT_NAMES[unitIndex]);
    }
    int shift = 10 * unitIndex;
    if (amount > (Long.MAX_VALUE >>> shift)) {
      throw new IllegalArgumentException(
          "data size " + amount + UNIT_NAMES[unitIndex] + " does not fit in a long of bytes");
    }
    return ofBytes(amount << shift);
  }

  /**
   * Parses a size such as {@code 64MiB}, {@code 4 KiB} or {@code 512}; surrounding whitespace is
   * ignored. The syntax is in the class javadoc.
   *
   * @throws IllegalArgumentException if {@code text} is not a valid size; the message quotes the
   *     text and names the problem (empty, fraction, negative, unknown or ambiguous unit, overflow)
   */
  public static DataSize parse(String text) {
    String s = text.strip();
    if (s.isEmpty()) {
      throw invalid(text, "it is empty");
    }
    Matcher m = PATTERN.matcher(s);
    if (!m.matches()) {
      if (s.startsWith("-")) {
        throw invalid(text, "a data size cannot be negative");
      }
      if (s.matches("\\d*[.,]\\d+\\s*[A-Za-z]*")) {
        throw invalid(text, "fractions are not accepted; use a whole number of a smaller unit");
      }
      throw invalid(text, "it must be " + SYNTAX);
    }
    String unit = m.group(2);
    int unitIndex = unitIndex(text, unit);
    long amount;
    try {
      amount = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw invalid(text, "the number is too large");
    }
    int shift = 10 * unitIndex;
    if (amount > (Long.MAX_VALUE >>> shift)) {
      throw invalid(text, "the number is too large");
    }
    return ofBytes(amount << shift);
  }

  private static int unitIndex(String text, String unit) {
    if (unit.isEmpty()) {
      return 0;
    }
    for (int i = 0; i < UNIT_NAMES.length; i++) {
      if (UNIT_NAMES[i].equalsIgnoreCase(unit)) {
        return i;
      }
    }
    String upper = unit.toUpperCase(Locale.ROOT);
    String binary =
        switch (upper) {
          case "K", "KB" -> "KiB";
          case "M", "MB" -> "MiB";
          case "G", "GB" -> "GiB";
          case "T", "TB" -> "TiB";
          default -> null;
        };
    if (binary != null) {
      throw invalid(
          text,
          "the unit '"
              + unit
              + "' is ambiguous (1000 or 1024?); write the binary unit "
              + binary
              + " instead");
    }
    throw invalid(text, "unknown unit '" + unit + "'; units are B, KiB, MiB, GiB and TiB");
  }

  private static IllegalArgumentException invalid(String text, String problem) {
    return new IllegalArgumentException("invalid data size '" + text + "': " + problem);
  }

  /** The size in bytes, never negative. */
  public long toBytes() {
    return bytes;
  }

  /**
   * The size in bytes as an {@code int}, for buffer and frame limits.
   *
   * @throws ArithmeticException if the size is 2 GiB or more
   */
  public int toIntBytes() {
    return Math.toIntExact(bytes);
  }

  @Override
  public int compareTo(DataSize other) {
    return Long.compare(bytes, other.bytes);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof DataSize other && other.bytes == bytes;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(bytes);
  }

  /**
   * The size in the largest exact unit, without a space: {@code 0B}, {@code 1536B}, {@code 4MiB}.
   */
  @Override
  public String toString() {
    if (bytes == 0) {
      return "0B";
    }
    int unit = 0;
    long amount = bytes;
    while (unit < UNIT_NAMES.length - 1 && (amount & 1023) == 0) {
      amount >>>= 10;
      unit++;
    }
    return amount + UNIT_NAMES[unit];
  }
}
