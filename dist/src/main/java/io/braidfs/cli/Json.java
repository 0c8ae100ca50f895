package io.braidfs.cli;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * JSON text (RFC 8259) of plain values, for the {@code --json} output of {@code braid admin}: maps
 * with string keys (written in their iteration order), lists, strings, numbers, booleans and null.
 * Only writing is needed, on one line; a parser would be a library's job (dist has none, and this
 * is too little to bring one in for).
 *
 * <p>Thread-safety: stateless.
 */
public final class Json {
  private Json() {}

  /**
   * {@code value} as JSON text.
   *
   * @throws IllegalArgumentException for a value of another type, or a non-finite number
   */
  public static String write(@Nullable Object value) {
    StringBuilder sb = new StringBuilder();
    append(sb, value);
    return sb.toString();
  }

  private static void append(StringBuilder sb, @Nullable Object value) {
    if (value == null) {
      sb.append("null");
    } else if (value instanceof String s) {
      string(sb, s);
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      sb.append(value);
    } else if (value instanceof Double d) {
      if (!Double.isFinite(d)) {
        throw new IllegalArgumentException("JSON has no " + d);
      }
      sb.append(d);
    } else if (value instanceof Map<?, ?> map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String key)) {
          throw new IllegalArgumentException("JSON keys are strings, not " + e.getKey());
        }
        if (!first) {
          sb.append(',');
        }
        first = false;
        string(sb, key);
        sb.append(':');
        append(sb, e.getValue());
      }
      sb.append('}');
    } else if (value instanceof List<?> list) {
      sb.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        append(sb, list.get(i));
      }
      sb.append(']');
    } else {
      throw new IllegalArgumentException("no JSON for a " + value.getClass().getName());
    }
  }

  /** A string with the escapes RFC 8259 requires: quote, backslash and control characters. */
  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
