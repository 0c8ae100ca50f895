package io.braidfs.cli;

import io.braidfs.client.FileAttributes;
import io.braidfs.common.config.DataSize;
import io.braidfs.common.layout.Layout;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * How {@code braid fs} shows attributes to people: modes as {@code ls -l} does, times in the local
 * time zone, sizes in bytes or binary units, and columns padded to line up.
 *
 * <p>Thread-safety: stateless.
 */
final class FsFormat {
  private static final String[] LS_UNITS = {"K", "M", "G", "T", "P", "E"};
  private static final DateTimeFormatter MINUTES = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");
  private static final DateTimeFormatter FULL =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSSSS Z");

  private FsFormat() {}

  /** The {@code ls -l} mode string, such as {@code drwxr-xr-x} or {@code -rwsr-x--T}. */
  static String modeString(FileAttributes a) {
    int m = a.mode();
    char type =
        switch (a.type()) {
          case DIRECTORY -> 'd';
          case SYMLINK -> 'l';
          case FIFO -> 'p';
          case CHARACTER_DEVICE -> 'c';
          case BLOCK_DEVICE -> 'b';
          case SOCKET -> 's';
          case REGULAR, UNKNOWN -> '-';
        };
    StringBuilder sb = new StringBuilder(10).append(type);
    sb.append(rwx(m >> 6, (m & 04000) != 0, 's'));
    sb.append(rwx(m >> 3, (m & 02000) != 0, 's'));
    sb.append(rwx(m, (m & 01000) != 0, 't'));
    return sb.toString();
  }

  private static String rwx(int bits, boolean special, char mark) {
    boolean x = (bits & 1) != 0;
    char last = special ? (x ? mark : Character.toUpperCase(mark)) : (x ? 'x' : '-');
    return "" + ((bits & 4) != 0 ? 'r' : '-') + ((bits & 2) != 0 ? 'w' : '-') + last;
  }

  /**
   * The file type in words: {@code file}, {@code directory}, {@code symlink}, {@code fifo}, {@code
   * character device}, {@code block device} or {@code socket}.
   */
  static String typeName(FileAttributes a) {
    return switch (a.type()) {
      case DIRECTORY -> "directory";
      case SYMLINK -> "symlink";
      case FIFO -> "fifo";
      case CHARACTER_DEVICE -> "character device";
      case BLOCK_DEVICE -> "block device";
      case SOCKET -> "socket";
      case REGULAR, UNKNOWN -> "file";
    };
  }

  /**
   * A device number as {@code major,minor}, decoded as glibc's {@code major()} and {@code minor()}.
   */
  static String device(long rdev) {
    long major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & 0xfffff000L);
    long minor = (rdev & 0xff) | ((rdev >>> 12) & 0xffffff00L);
    return Long.toUnsignedString(major) + "," + Long.toUnsignedString(minor);
  }

  /** A time to the minute, in the local time zone, as {@code ls -l} shows it. */
  static String minutes(long epochNanos) {
    return MINUTES.format(instant(epochNanos).atZone(ZoneId.systemDefault()));
  }

  /** A time to the nanosecond with its zone offset, as {@code stat} shows it. */
  static String full(long epochNanos) {
    return FULL.format(instant(epochNanos).atZone(ZoneId.systemDefault()));
  }

  private static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(
        Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }

  /**
   * A byte count as {@code ls -h} shows it: bytes below 1 KiB, else one decimal and K, M, G, T, P
   * (powers of 1024), such as {@code 2.9K} or {@code 64.0M}.
   */
  static String human(long bytes) {
    // 1023.95 and up would print as 1024.0 of this unit: the next one says it better.
    return bytes < 1024 ? Long.toString(bytes) : scaled(bytes, 1023.95, "", LS_UNITS);
  }

  /**
   * {@code bytes}, at least 1024, with one decimal in the largest power of 1024 it reaches, then
   * {@code separator} and {@code units[i]}, the name of 1024^(i+1). The next unit is reached when
   * the value reaches {@code next} in this one. The one loop behind {@link #human} and {@link
   * AdminFormat#bytes}.
   */
  static String scaled(long bytes, double next, String separator, String[] units) {
    double v = bytes;
    int u = -1;
    while (v >= next && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(java.util.Locale.ROOT, "%.1f%s%s", v, separator, units[u]);
  }

  /** A byte count in the largest binary unit that holds it exactly, such as {@code 64MiB}. */
  static String size(long bytes) {
    return DataSize.ofBytes(bytes).toString();
  }

  /** A layout on one line: {@code stripe-unit=1MiB stripe-width=4 chunk-size=64MiB ...}. */
  static String layout(Layout l) {
    return "stripe-unit="
        + size(l.stripeUnit())
        + " stripe-width="
        + l.stripeWidth()
        + " chunk-size="
        + size(l.chunkSize())
        + " replication="
        + l.replication();
  }

  /**
   * Rows of cells as lines, each column padded to its widest cell; columns listed in {@code right}
   * are aligned right (numbers), the others left, and the last column is never padded.
   */
  static List<String> table(List<List<String>> rows, int... right) {
    int columns = 0;
    for (List<String> r : rows) {
      columns = Math.max(columns, r.size());
    }
    int[] width = new int[columns];
    for (List<String> r : rows) {
      for (int c = 0; c < r.size(); c++) {
        width[c] = Math.max(width[c], r.get(c).length());
      }
    }
    List<String> lines = new ArrayList<>(rows.size());
    for (List<String> r : rows) {
      StringBuilder sb = new StringBuilder();
      for (int c = 0; c < r.size(); c++) {
        String cell = r.get(c);
        boolean last = c == r.size() - 1;
        if (c > 0) {
          sb.append("  ");
        }
        if (isRight(right, c)) {
          sb.append(" ".repeat(width[c] - cell.length())).append(cell);
        } else {
          sb.append(cell);
          if (!last) {
            sb.append(" ".repeat(width[c] - cell.length()));
          }
        }
      }
      lines.add(sb.toString());
    }
    return lines;
  }

  private static boolean isRight(int[] right, int column) {
    for (int r : right) {
      if (r == column) {
        return true;
      }
    }
    return false;
  }
}
