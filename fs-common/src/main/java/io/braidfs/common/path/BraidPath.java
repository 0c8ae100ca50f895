package io.braidfs.common.path;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An absolute path in the Braid namespace: validated, canonical and immutable. These are the path
 * rules for the whole system; the MDS, the client, the Hadoop file system and the FUSE mount all
 * parse through this class, so a path is accepted or refused the same way everywhere.
 *
 * <ul>
 *   <li>A path is absolute: it starts with {@code /}. The root is {@code /}.
 *   <li>Repeated slashes and a trailing slash are collapsed: {@code //a//b/} is {@code /a/b}. HDFS
 *       rejects {@code //}; POSIX collapses it, FUSE and Hadoop users type it, and refusing it
 *       would only push the same normalisation into every caller. A leading {@code //} means
 *       nothing special (POSIX leaves it implementation-defined).
 *   <li>{@code .} and {@code ..} components are refused: the MDS resolves no relative components
 *       (resolving {@code ..} after a symlink is the client's job), so clients normalise before
 *       sending. Names that only contain dots, such as {@code ...}, {@code .hidden} or {@code
 *       a..b}, are ordinary names.
 *   <li>A name is a non-empty sequence of characters other than {@code /} and NUL, in valid UTF-16
 *       (no unpaired surrogate), of at most {@value #MAX_NAME_BYTES} bytes of UTF-8. A character
 *       outside the Basic Multilingual Plane, such as an emoji, is 2 Java {@code char}s and 4
 *       bytes.
 *   <li>The canonical path is at most {@value #MAX_PATH_BYTES} bytes of UTF-8, measured after
 *       collapsing slashes, so every {@code BraidPath} fits the wire limit ({@code
 *       docs/protocol.md} section 5).
 *   <li>There is no Unicode normalisation and no case folding: as on Linux, a precomposed and a
 *       decomposed "é" are different names.
 * </ul>
 *
 * <p>Failures are {@link IOException}s made by {@link StatusExceptions#toIOException}: {@link
 * Status#NAME_TOO_LONG} for the two length limits, {@link Status#INVALID_ARGUMENT} for the rest.
 * The message quotes the offending path or name (control characters and unpaired surrogates escaped
 * as {@code \}{@code uXXXX}, the middle of very long inputs elided) and states the rule broken. It
 * does not name the operation; a caller that knows it may prefix it.
 *
 * <p>Cost: {@link #parse} makes one validating pass over the input and one pass to cut out the
 * names, with no regular expressions and no encoding to bytes. An input that is already canonical
 * becomes the {@link #toString()} form as is, so a parse allocates the path, its name array and the
 * names, nothing else. {@link #component(int)} and {@link #depth()} allocate nothing.
 *
 * <p>Order: {@link #compareTo} compares name by name, each by Unicode code point, which is the
 * unsigned byte order of UTF-8. So siblings sort as a directory listing does (the MDS keys entries
 * by their UTF-8 bytes), and a directory sorts directly before its descendants.
 *
 * <p>Thread-safety: immutable; safe to share between threads.
 */
public final class BraidPath implements Comparable<BraidPath> {
  /** The most bytes of UTF-8 in one name (path component). */
  public static final int MAX_NAME_BYTES = 255;

  /** The most bytes of UTF-8 in a whole canonical path, the leading {@code /} included. */
  public static final int MAX_PATH_BYTES = 4096;

  /**
   * The root directory, {@code /}; {@link #parse} returns this instance for every root spelling.
   */
  public static final BraidPath ROOT = new BraidPath("/", new String[0], 1);

  // Messages quote inputs up to this many chars whole; longer ones keep a head and a tail, so a
  // megabyte of slashes cannot turn into a megabyte of log line or error reply.
  private static final int QUOTE_LIMIT = 512;
  private static final int QUOTE_HEAD = 384;
  private static final int QUOTE_TAIL = 96;

  /** Canonical form: "/" or "/" + names joined by "/". Equality and hashing use it alone. */
  private final String path;

  /** The names, root first; never handed out, so the path stays immutable. */
  private final String[] names;

  /** UTF-8 length of {@link #path}, kept so that {@link #child} checks the limit without a scan. */
  private final int utf8Length;

  private BraidPath(String path, String[] names, int utf8Length) {
    this.path = path;
    this.names = names;
    this.utf8Length = utf8Length;
  }

  /**
   * Parses and validates an absolute path, collapsing repeated slashes and a trailing slash.
   *
   * <p>Cost is linear in the input's length. The result's {@link #toString()} is the input itself
   * when the input is already canonical.
   *
   * @param path the path as a user or a request gave it, such as {@code /a/b} or {@code //a/b/}
   * @return the canonical path; {@link #ROOT} for {@code /}, {@code //} and so on
   * @throws IOException with {@link Status#INVALID_ARGUMENT} if {@code path} is null or empty
   * @throws IOException with {@link Status#INVALID_ARGUMENT} if {@code path} does not start with
   *     {@code /}
   * @throws IOException with {@link Status#INVALID_ARGUMENT} if a component is {@code .} or {@code
   *     ..}
   * @throws IOException with {@link Status#INVALID_ARGUMENT} if {@code path} contains a NUL
   *     character or an unpaired surrogate
   * @throws IOException with {@link Status#NAME_TOO_LONG} if a component is over {@value
   *     #MAX_NAME_BYTES} bytes of UTF-8
   * @throws IOException with {@link Status#NAME_TOO_LONG} if the canonical path is over {@value
   *     #MAX_PATH_BYTES} bytes of UTF-8
   */
  public static BraidPath parse(@Nullable String path) throws IOException {
    if (path == null) {
      throw StatusExceptions.toIOException(Status.INVALID_ARGUMENT, "invalid path: null");
    }
    int n = path.length();
    if (n == 0) {
      throw invalid(path, false, null, "empty");
    }
    if (path.charAt(0) != '/') {
      throw invalid(path, false, null, "not absolute; a path starts with '/'");
    }
    // Pass 1: validate every name and measure the canonical form (empty names are the collapsed
    // slashes). The canonical form only drops slashes, so it equals the input iff the char counts
    // are equal.
    int count = 0;
    int canonicalChars = 1;
    long canonicalBytes = 1;
    for (int start = 1; start < n; ) {
      int end = endOfName(path, start);
      if (end > start) {
        long bytes = checkName(path, start, end, false, null);
        int separator = count == 0 ? 0 : 1;
        canonicalChars += separator + (end - start);
        canonicalBytes += separator + bytes;
        count++;
      }
      start = end + 1;
    }
    if (canonicalBytes > MAX_PATH_BYTES) {
      throw pathTooLong(path, canonicalBytes, canonicalChars != n);
    }
    return count == 0 ? ROOT : cut(path, count, canonicalChars, (int) canonicalBytes);
  }

  /**
   * Checks one name (path component), as given to create, mkdir, rename, link or symlink.
   *
   * @param name the name, without any {@code /}
   * @throws IOException with {@link Status#INVALID_ARGUMENT} if {@code name} is null or empty, is
   *     {@code .} or {@code ..}, or contains {@code /}, a NUL character or an unpaired surrogate
   * @throws IOException with {@link Status#NAME_TOO_LONG} if {@code name} is over {@value
   *     #MAX_NAME_BYTES} bytes of UTF-8
   */
  public static void validateName(@Nullable String name) throws IOException {
    nameBytes(name, null);
  }

  /**
   * The path of the entry {@code name} in this directory.
   *
   * @param name the child's name, validated as by {@link #validateName}
   * @return a new path, one deeper than this one
   * @throws IOException with {@link Status#INVALID_ARGUMENT} or {@link Status#NAME_TOO_LONG} if
   *     {@link #validateName} refuses {@code name}
   * @throws IOException with {@link Status#NAME_TOO_LONG} if the child's path would be over {@value
   *     #MAX_PATH_BYTES} bytes of UTF-8
   */
  public BraidPath child(@Nullable String name) throws IOException {
    long bytes = utf8Length + (isRoot() ? 0 : 1) + nameBytes(name, this);
    String childPath = isRoot() ? "/" + name : path + "/" + name;
    if (bytes > MAX_PATH_BYTES) {
      throw pathTooLong(childPath, bytes, false);
    }
    String[] childNames = Arrays.copyOf(names, names.length + 1);
    childNames[names.length] = Objects.requireNonNull(name);
    return new BraidPath(childPath, childNames, (int) bytes);
  }

  /**
   * The names from the root down, read-only; empty for the root. Each call wraps the internal array
   * in a new read-only view; {@link #component(int)} reads one name without allocating.
   */
  public List<String> components() {
    return Collections.unmodifiableList(Arrays.asList(names));
  }

  /**
   * One name of this path, counted from the root.
   *
   * @param index 0 for the name just below the root, up to {@code depth() - 1}
   * @throws IndexOutOfBoundsException if {@code index} is not in [0, {@link #depth()})
   */
  public String component(int index) {
    Objects.checkIndex(index, names.length);
    return names[index];
  }

  /** The number of names in this path: 0 for the root, 2 for {@code /a/b}. */
  public int depth() {
    return names.length;
  }

  /** The last name: {@code b} for {@code /a/b}, and the empty string for the root. */
  public String name() {
    return names.length == 0 ? "" : names[names.length - 1];
  }

  /** Whether this is the root, {@code /}. */
  public boolean isRoot() {
    return names.length == 0;
  }

  /** The directory holding this path ({@code /a} for {@code /a/b}), or null for the root. */
  public @Nullable BraidPath parent() {
    int depth = names.length;
    if (depth <= 1) {
      return depth == 0 ? null : ROOT;
    }
    String last = names[depth - 1];
    return new BraidPath(
        path.substring(0, path.length() - last.length() - 1),
        Arrays.copyOf(names, depth - 1),
        utf8Length - 1 - utf8Length(last));
  }

  /**
   * Whether {@code other} lies strictly below this path, comparing whole names: {@code /a} is an
   * ancestor of {@code /a/b} and {@code /a/b/c}, but not of {@code /a} itself nor of {@code /ab}.
   * The root is an ancestor of every path except itself.
   *
   * @throws NullPointerException if {@code other} is null
   */
  public boolean isAncestorOf(BraidPath other) {
    Objects.requireNonNull(other, "other");
    if (other.names.length <= names.length) {
      return false;
    }
    if (isRoot()) {
      return true;
    }
    // Both are canonical, so a string prefix ending at a separator is a prefix of whole names;
    // "/a" is a string prefix of "/ab" too, hence the separator check.
    return other.path.startsWith(path) && other.path.charAt(path.length()) == '/';
  }

  /**
   * Compares name by name from the root, each name by Unicode code point (the unsigned byte order
   * of UTF-8); a path sorts before its descendants. Consistent with {@link #equals}.
   *
   * @throws NullPointerException if {@code other} is null
   */
  @Override
  public int compareTo(BraidPath other) {
    int common = Math.min(names.length, other.names.length);
    for (int i = 0; i < common; i++) {
      int c = compareCodePoints(names[i], other.names[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(names.length, other.names.length);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o instanceof BraidPath other && path.equals(other.path);
  }

  @Override
  public int hashCode() {
    return path.hashCode();
  }

  /** The canonical form, which {@link #parse} maps back to an equal path. */
  @Override
  public String toString() {
    return path;
  }

  private static int endOfName(String path, int start) {
    int end = path.indexOf('/', start);
    return end < 0 ? path.length() : end;
  }

  /** Pass 2 of {@link #parse}: cuts the names out of a validated input. */
  private static BraidPath cut(String input, int count, int canonicalChars, int utf8Length) {
    String[] names = new String[count];
    StringBuilder canonical =
        canonicalChars == input.length() ? null : new StringBuilder(canonicalChars);
    int i = 0;
    for (int start = 1; i < count; ) {
      int end = endOfName(input, start);
      if (end > start) {
        String name = input.substring(start, end);
        names[i++] = name;
        if (canonical != null) {
          canonical.append('/').append(name);
        }
      }
      start = end + 1;
    }
    return new BraidPath(canonical == null ? input : canonical.toString(), names, utf8Length);
  }

  /** Validates a lone name (for {@link #validateName} and {@link #child}); its UTF-8 length. */
  private static long nameBytes(@Nullable String name, @Nullable BraidPath parent)
      throws IOException {
    if (name == null) {
      String where = parent == null ? "" : " in " + quote(parent.path);
      throw StatusExceptions.toIOException(Status.INVALID_ARGUMENT, "invalid name: null" + where);
    }
    if (name.isEmpty()) {
      throw invalid(name, true, parent, "empty");
    }
    int slash = name.indexOf('/');
    if (slash >= 0) {
      throw invalid(name, true, parent, "'/' at index " + slash + "; a name has no separators");
    }
    return checkName(name, 0, name.length(), true, parent);
  }

  /**
   * Validates the non-empty name {@code s[start, end)}, which is a whole name if {@code isName} and
   * a component of the path {@code s} otherwise, and returns its UTF-8 length.
   */
  private static long checkName(
      String s, int start, int end, boolean isName, @Nullable BraidPath parent) throws IOException {
    long bytes = 0;
    for (int i = start; i < end; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        if (c == 0) {
          throw invalid(s, isName, parent, "NUL character at index " + i);
        }
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (!Character.isSurrogate(c)) {
        bytes += 3;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < end
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4; // one supplementary code point, two chars
        i++;
      } else {
        throw invalid(
            s, isName, parent, "unpaired surrogate " + hex(c) + " at index " + i + " (not UTF-16)");
      }
    }
    if (s.charAt(start) == '.'
        && (end - start == 1 || (end - start == 2 && s.charAt(end - 1) == '.'))) {
      String dots = s.substring(start, end);
      throw invalid(
          s,
          isName,
          parent,
          isName
              ? "\"" + dots + "\" is not a name"
              : "\"" + dots + "\" component at index " + start + "; normalise the path first");
    }
    if (bytes > MAX_NAME_BYTES) {
      throw nameTooLong(s, start, bytes, isName, parent);
    }
    return bytes;
  }

  /** UTF-8 length of an already validated string. */
  private static int utf8Length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      // In valid UTF-16 each half of a surrogate pair stands for 2 of the code point's 4 bytes.
      bytes += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
    }
    return bytes;
  }

  /** Code point order of two valid UTF-16 strings, without decoding them (String sorts by char). */
  private static int compareCodePoints(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        if (x >= Character.MIN_SURROGATE && y >= Character.MIN_SURROGATE) {
          // Surrogates (U+D800..DFFF) encode code points above U+FFFF, so they must sort after
          // U+E000..FFFF: rotate them to the top of the char range before comparing.
          x = rotateSurrogates(x);
          y = rotateSurrogates(y);
        }
        return x - y;
      }
    }
    return a.length() - b.length();
  }

  private static char rotateSurrogates(char c) {
    return (char) (c >= 0xE000 ? c - 0x800 : c + 0x2000);
  }

  private static IOException invalid(
      String s, boolean isName, @Nullable BraidPath parent, String rule) {
    return StatusExceptions.toIOException(
        Status.INVALID_ARGUMENT, "invalid " + describe(s, isName, parent) + ": " + rule);
  }

  private static IOException nameTooLong(
      String s, int start, long bytes, boolean isName, @Nullable BraidPath parent) {
    String detail =
        isName
            ? describe(s, true, parent) + " is " + bytes + " bytes of UTF-8"
            : describe(s, false, null)
                + " has a name of "
                + bytes
                + " bytes of UTF-8 at index "
                + start;
    return StatusExceptions.toIOException(
        Status.NAME_TOO_LONG,
        "name too long: " + detail + ", over the " + MAX_NAME_BYTES + "-byte limit");
  }

  private static IOException pathTooLong(String path, long bytes, boolean collapsed) {
    return StatusExceptions.toIOException(
        Status.NAME_TOO_LONG,
        "path too long: "
            + describe(path, false, null)
            + " is "
            + bytes
            + " bytes of UTF-8"
            + (collapsed ? " after collapsing slashes" : "")
            + ", over the "
            + MAX_PATH_BYTES
            + "-byte limit");
  }

  private static String describe(String s, boolean isName, @Nullable BraidPath parent) {
    if (!isName) {
      return "path " + quote(s);
    }
    return parent == null ? "name " + quote(s) : "name " + quote(s) + " in " + quote(parent.path);
  }

  /**
   * {@code s} in double quotes for a message: quotes, backslashes, control characters and unpaired
   * surrogates escaped, so a hostile name cannot forge or break a log line; the middle elided if
   * {@code s} is over {@value #QUOTE_LIMIT} chars.
   */
  static String quote(String s) {
    int n = s.length();
    StringBuilder b = new StringBuilder(Math.min(n, QUOTE_LIMIT) + 32).append('"');
    if (n <= QUOTE_LIMIT) {
      escape(s, 0, n, b);
      return b.append('"').toString();
    }
    escape(s, 0, keepPair(s, QUOTE_HEAD), b);
    b.append("\"...\"");
    escape(s, keepPair(s, n - QUOTE_TAIL), n, b);
    return b.append("\" (").append(n).append(" chars)").toString();
  }

  /** Moves a cut at {@code i} back by one if it would split a surrogate pair. */
  private static int keepPair(String s, int i) {
    boolean splitsPair =
        Character.isHighSurrogate(s.charAt(i - 1)) && Character.isLowSurrogate(s.charAt(i));
    return splitsPair ? i - 1 : i;
  }

  private static void escape(String s, int from, int to, StringBuilder b) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
        b.append(c).append(s.charAt(++i));
      } else if (c < 0x20 || c == 0x7F || Character.isSurrogate(c)) {
        b.append(hex(c));
      } else {
        if (c == '"' || c == '\\') {
          b.append('\\');
        }
        b.append(c);
      }
    }
  }

  private static String hex(char c) {
    return String.format("\\u%04X", (int) c);
  }
}
