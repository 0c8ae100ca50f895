package io.braidfs.common.path;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The path rules of {@link BraidPath}: what parses, what is refused and why, and path algebra. */
class BraidPathTest {
  private static final String EMOJI = "\uD83D\uDE00"; // U+1F600, 2 chars, 4 bytes of UTF-8
  private static final String E_ACUTE = "\u00E9"; // 2 bytes of UTF-8
  private static final String KANJI = "\u65E5"; // 3 bytes of UTF-8

  // ---- accepted paths ----

  static Stream<Arguments> goodPaths() {
    return Stream.of(
        Arguments.of("/", List.of()),
        Arguments.of("/a", List.of("a")),
        Arguments.of("/a/b/c", List.of("a", "b", "c")),
        Arguments.of("/with space/ x /trailing ", List.of("with space", " x ", "trailing ")),
        Arguments.of(
            "/.../..a/a../.hidden/..hidden", List.of("...", "..a", "a..", ".hidden", "..hidden")),
        Arguments.of("/" + E_ACUTE + "/" + KANJI + "/" + EMOJI, List.of(E_ACUTE, KANJI, EMOJI)),
        Arguments.of("/a:b/c\\d/e\tf/%2F", List.of("a:b", "c\\d", "e\tf", "%2F")));
  }

  @ParameterizedTest
  @MethodSource("goodPaths")
  void parsesGoodPaths(String input, List<String> names) throws IOException {
    BraidPath p = BraidPath.parse(input);
    assertThat(p.components()).containsExactlyElementsOf(names);
    assertThat(p.depth()).isEqualTo(names.size());
    assertThat(p.toString()).isEqualTo(input);
    for (int i = 0; i < names.size(); i++) {
      assertThat(p.component(i)).isEqualTo(names.get(i));
    }
  }

  @Test
  void canonicalInputIsKeptAsIs() throws IOException {
    // The allocation promise: a canonical input is not copied.
    String input = new String("/a/b/c");
    assertThat(BraidPath.parse(input).toString()).isSameAs(input);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "//", "///", "////////"})
  void everyRootSpellingIsTheRootInstance(String input) throws IOException {
    assertThat(BraidPath.parse(input)).isSameAs(BraidPath.ROOT);
  }

  @ParameterizedTest
  @CsvSource({
    "/a/, /a",
    "/a//, /a",
    "//a, /a",
    "//a//b//, /a/b",
    "/a///b/c/, /a/b/c",
    "/a/b///////////c, /a/b/c",
  })
  void collapsesRepeatedAndTrailingSlashes(String input, String canonical) throws IOException {
    BraidPath p = BraidPath.parse(input);
    assertThat(p.toString()).isEqualTo(canonical);
    assertThat(p)
        .isEqualTo(BraidPath.parse(canonical))
        .hasSameHashCodeAs(BraidPath.parse(canonical));
    assertThat(p.components()).containsExactlyElementsOf(BraidPath.parse(canonical).components());
  }

  // ---- UTF-8 lengths: names ----

  static Stream<String> namesOfExactly255Bytes() {
    return Stream.of(
        "a".repeat(255),
        KANJI.repeat(85),
        E_ACUTE.repeat(127) + "a",
        // 126 chars: would be too short to fail if chars were counted, too long if each
        // surrogate were counted as 3 bytes (CESU-8).
        EMOJI.repeat(63) + "abc",
        EMOJI + KANJI + E_ACUTE + "a".repeat(246));
  }

  @ParameterizedTest
  @MethodSource("namesOfExactly255Bytes")
  void acceptsNamesOfExactly255Bytes(String name) throws IOException {
    assertThat(name.getBytes(UTF_8)).hasSize(BraidPath.MAX_NAME_BYTES);
    BraidPath.validateName(name);
    assertThat(BraidPath.parse("/x/" + name).name()).isEqualTo(name);
    assertThat(BraidPath.ROOT.child(name).name()).isEqualTo(name);
  }

  static Stream<String> namesOf256Bytes() {
    return Stream.of(
        "a".repeat(256),
        KANJI.repeat(85) + "a",
        E_ACUTE.repeat(128),
        EMOJI.repeat(64), // 128 chars: only byte counting refuses it
        EMOJI.repeat(63) + "abcd");
  }

  @ParameterizedTest
  @MethodSource("namesOf256Bytes")
  void refusesNamesOf256Bytes(String name) {
    assertThat(name.getBytes(UTF_8)).hasSize(BraidPath.MAX_NAME_BYTES + 1);
    assertFails(() -> BraidPath.validateName(name), Status.NAME_TOO_LONG, "256 bytes");
    assertFails(
        () -> BraidPath.parse("/x/" + name + "/y"),
        Status.NAME_TOO_LONG,
        "name too long",
        "256 bytes",
        "at index 3");
    assertFails(() -> BraidPath.ROOT.child(name), Status.NAME_TOO_LONG, "256 bytes");
  }

  // ---- UTF-8 lengths: whole paths ----

  /**
   * A canonical path of exactly {@code bytes} bytes of UTF-8: names of {@code unitsPerName} copies
   * of {@code unit} (at most 255 bytes in all), then filler names of 'z' to make up the length.
   */
  private static String pathOfBytes(int bytes, String unit, int unitsPerName) {
    String full = unit.repeat(unitsPerName);
    int fullBytes = full.getBytes(UTF_8).length;
    StringBuilder b = new StringBuilder();
    int remaining = bytes;
    while (remaining > 0) {
      String name;
      if (remaining >= fullBytes + 3) {
        name = full; // leaves room for at least "/z"
      } else if (remaining <= 1 + BraidPath.MAX_NAME_BYTES) {
        name = "z".repeat(remaining - 1);
      } else {
        name = "z".repeat(100);
      }
      b.append('/').append(name);
      remaining -= 1 + name.getBytes(UTF_8).length;
    }
    String path = b.toString();
    assertThat(path.getBytes(UTF_8)).hasSize(bytes);
    return path;
  }

  static Stream<String> pathsOfExactly4096Bytes() {
    return Stream.of(
        pathOfBytes(4096, "a", 100),
        pathOfBytes(4096, "a", 255),
        pathOfBytes(4096, EMOJI, 63),
        pathOfBytes(4096, KANJI, 85),
        // 16 names of 255 bytes: 16 * (1 + 255) = 4096 exactly, no filler.
        String.join("", Collections.nCopies(16, "/" + EMOJI.repeat(63) + "abc")));
  }

  @ParameterizedTest
  @MethodSource("pathsOfExactly4096Bytes")
  void acceptsPathsOfExactly4096Bytes(String path) throws IOException {
    assertThat(path.getBytes(UTF_8)).hasSize(BraidPath.MAX_PATH_BYTES);
    BraidPath p = BraidPath.parse(path);
    assertThat(p.toString()).isEqualTo(path);
    // The limit is on the canonical form: extra slashes do not count.
    assertThat(BraidPath.parse("/" + path.replace("/", "//") + "///")).isEqualTo(p);
    // child() and parent() keep the byte count they were given, without rescanning.
    BraidPath parent = p.parent();
    assertThat(parent).isNotNull();
    assertThat(parent.child(p.name())).isEqualTo(p);
  }

  static Stream<String> pathsOf4097Bytes() {
    return Stream.of(
        pathOfBytes(4097, "a", 100),
        pathOfBytes(4097, "a", 255),
        pathOfBytes(4097, EMOJI, 60), // 2057 chars: only byte counting refuses it
        pathOfBytes(4097, KANJI, 85));
  }

  @ParameterizedTest
  @MethodSource("pathsOf4097Bytes")
  void refusesPathsOf4097Bytes(String path) {
    assertThat(path.getBytes(UTF_8)).hasSize(BraidPath.MAX_PATH_BYTES + 1);
    assertFails(
        () -> BraidPath.parse(path),
        Status.NAME_TOO_LONG,
        "path too long",
        "4097 bytes",
        path.substring(0, 100));
  }

  @Test
  void refusesAChildThatWouldPassThePathLimit() throws IOException {
    BraidPath p = BraidPath.parse(pathOfBytes(4094, "a", 255));
    assertThat(p.child("b").toString().getBytes(UTF_8)).hasSize(4096); // '/' + 1 byte
    assertFails(() -> p.child("bc"), Status.NAME_TOO_LONG, "path too long", "4097 bytes");
    assertFails(() -> p.child(E_ACUTE), Status.NAME_TOO_LONG, "4097 bytes");
  }

  @ParameterizedTest
  @MethodSource("pathsOfExactly4096Bytes")
  void childCountsBytesLikeParse(String path) throws IOException {
    // Built name by name from the root, the path reaches exactly the limit and not one byte more.
    BraidPath built = BraidPath.ROOT;
    for (String name : BraidPath.parse(path).components()) {
      built = built.child(name);
    }
    assertThat(built).isEqualTo(BraidPath.parse(path));
    BraidPath full = built;
    assertFails(() -> full.child("z"), Status.NAME_TOO_LONG, "4098 bytes");
  }

  @Test
  void measuresTheCanonicalFormNotTheInput() throws IOException {
    // A megabyte of slashes collapses to a short path: accepted.
    String input = "/" + "a".repeat(200) + "/".repeat(1 << 20) + "b".repeat(200) + "/";
    assertThat(BraidPath.parse(input).toString()).hasSize(402);
  }

  @Test
  void abbreviatesHugeInputsInMessages() {
    String tooLong = pathOfBytes(8000, "k", 200);
    IOException e = assertFails(() -> BraidPath.parse(tooLong), Status.NAME_TOO_LONG, "8000 bytes");
    assertThat(e.getMessage())
        .contains(
            tooLong.substring(0, 300), tooLong.substring(8000 - 90), "\"...\"", "(8000 chars)")
        .hasSizeLessThan(700);
    // The cut after the head falls inside a surrogate pair (chars 383 and 384); it must move.
    String emoji = "/" + EMOJI.repeat(300);
    e = assertFails(() -> BraidPath.parse(emoji), Status.NAME_TOO_LONG, "1200 bytes");
    assertThat(e.getMessage()).doesNotContain("\\u").contains("(601 chars)");
    String slashes = "/".repeat(1 << 20) + "\0";
    e = assertFails(() -> BraidPath.parse(slashes), Status.INVALID_ARGUMENT, "NUL character");
    assertThat(e.getMessage())
        .endsWith("\\u0000\" (1048577 chars): NUL character at index 1048576");
    assertThat(e.getMessage()).hasSizeLessThan(700);
  }

  // ---- refusals ----

  static Stream<Arguments> badPaths() {
    return Stream.of(
        Arguments.of("", Status.INVALID_ARGUMENT, "empty"),
        Arguments.of("a/b", Status.INVALID_ARGUMENT, "not absolute"),
        Arguments.of("a", Status.INVALID_ARGUMENT, "not absolute"),
        Arguments.of(" /a", Status.INVALID_ARGUMENT, "not absolute"),
        Arguments.of("./a", Status.INVALID_ARGUMENT, "not absolute"),
        Arguments.of("braid://host/a", Status.INVALID_ARGUMENT, "not absolute"),
        Arguments.of("/.", Status.INVALID_ARGUMENT, "\".\" component at index 1"),
        Arguments.of("/..", Status.INVALID_ARGUMENT, "\"..\" component at index 1"),
        Arguments.of("/a/./b", Status.INVALID_ARGUMENT, "\".\" component at index 3"),
        Arguments.of("/a/../b", Status.INVALID_ARGUMENT, "\"..\" component at index 3"),
        Arguments.of("/a/b/.", Status.INVALID_ARGUMENT, "\".\" component at index 5"),
        Arguments.of("/a/b/../", Status.INVALID_ARGUMENT, "\"..\" component at index 5"),
        Arguments.of("/a//..//b", Status.INVALID_ARGUMENT, "\"..\" component at index 4"),
        Arguments.of("/a\0b", Status.INVALID_ARGUMENT, "NUL character at index 2"),
        Arguments.of("/\0", Status.INVALID_ARGUMENT, "NUL character at index 1"),
        Arguments.of("/a/b\0", Status.INVALID_ARGUMENT, "NUL character at index 4"),
        Arguments.of("/a\uD83D", Status.INVALID_ARGUMENT, "unpaired surrogate \\uD83D at index 2"),
        Arguments.of(
            "/a\uD83D/b", Status.INVALID_ARGUMENT, "unpaired surrogate \\uD83D at index 2"),
        Arguments.of("/\uDE00a", Status.INVALID_ARGUMENT, "unpaired surrogate \\uDE00 at index 1"),
        Arguments.of("/\uDE00\uD83D", Status.INVALID_ARGUMENT, "unpaired surrogate \\uDE00"),
        Arguments.of(
            "/\uD83D\uD83D\uDE00", Status.INVALID_ARGUMENT, "surrogate \\uD83D at index 1"),
        Arguments.of(
            "/a/" + "n".repeat(256), Status.NAME_TOO_LONG, "256 bytes of UTF-8 at index 3"),
        Arguments.of("/" + "n".repeat(1000) + "/", Status.NAME_TOO_LONG, "1000 bytes"));
  }

  @ParameterizedTest
  @MethodSource("badPaths")
  void refusesBadPaths(String path, Status status, String rule) {
    IOException e = assertFails(() -> BraidPath.parse(path), status, rule);
    assertThat(e.getMessage()).contains("path " + BraidPath.quote(path));
  }

  @Test
  void refusesNull() {
    assertFails(() -> BraidPath.parse(null), Status.INVALID_ARGUMENT, "invalid path: null");
    assertFails(() -> BraidPath.validateName(null), Status.INVALID_ARGUMENT, "invalid name: null");
    assertFails(() -> BraidPath.ROOT.child(null), Status.INVALID_ARGUMENT, "null in \"/\"");
  }

  @Test
  void messagesEscapeWhatWouldBreakALogLine() {
    IOException e = assertFails(() -> BraidPath.parse("/a\"b\\c\nd\0"), Status.INVALID_ARGUMENT);
    assertThat(e.getMessage())
        .isEqualTo("invalid path \"/a\\\"b\\\\c\\u000Ad\\u0000\": NUL character at index 8");
    e = assertFails(() -> BraidPath.parse("/" + EMOJI + "\uDC00"), Status.INVALID_ARGUMENT);
    assertThat(e.getMessage())
        .isEqualTo(
            "invalid path \"/"
                + EMOJI
                + "\\uDC00\": unpaired surrogate \\uDC00 at index 3 (not UTF-16)");
  }

  static Stream<Arguments> badNames() {
    return Stream.of(
        Arguments.of("", Status.INVALID_ARGUMENT, "empty"),
        Arguments.of(".", Status.INVALID_ARGUMENT, "\".\" is not a name"),
        Arguments.of("..", Status.INVALID_ARGUMENT, "\"..\" is not a name"),
        Arguments.of("/", Status.INVALID_ARGUMENT, "'/' at index 0"),
        Arguments.of("a/b", Status.INVALID_ARGUMENT, "'/' at index 1"),
        Arguments.of("a/", Status.INVALID_ARGUMENT, "'/' at index 1"),
        Arguments.of("a\0", Status.INVALID_ARGUMENT, "NUL character at index 1"),
        Arguments.of("\uD83D", Status.INVALID_ARGUMENT, "unpaired surrogate \\uD83D at index 0"),
        Arguments.of("x\uDE00", Status.INVALID_ARGUMENT, "unpaired surrogate \\uDE00 at index 1"),
        Arguments.of("n".repeat(256), Status.NAME_TOO_LONG, "is 256 bytes of UTF-8"));
  }

  @ParameterizedTest
  @MethodSource("badNames")
  void refusesBadNames(String name, Status status, String rule) throws IOException {
    IOException e = assertFails(() -> BraidPath.validateName(name), status, rule);
    assertThat(e.getMessage()).contains("name " + BraidPath.quote(name));
    BraidPath dir = BraidPath.parse("/dir");
    e = assertFails(() -> dir.child(name), status, rule);
    assertThat(e.getMessage()).contains("name " + BraidPath.quote(name) + " in \"/dir\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "...", ".hidden", "..x", "x..", "with space", "a:b", "\\", " "})
  void acceptsOrdinaryNames(String name) throws IOException {
    BraidPath.validateName(name);
    assertThat(BraidPath.parse("/d").child(name).toString()).isEqualTo("/d/" + name);
  }

  // ---- structure ----

  @ParameterizedTest
  @CsvSource({
    "/a/b/c, /a/b, c, 3",
    "/a/b, /a, b, 2",
    "/a, /, a, 1",
    "/" + E_ACUTE + "/" + EMOJI + ", /" + E_ACUTE + ", " + EMOJI + ", 2",
  })
  void parentNameAndDepth(String path, String parent, String name, int depth) throws IOException {
    BraidPath p = BraidPath.parse(path);
    assertThat(p.parent()).isEqualTo(BraidPath.parse(parent));
    assertThat(p.name()).isEqualTo(name);
    assertThat(p.depth()).isEqualTo(depth);
    assertThat(p.isRoot()).isFalse();
    assertThat(p.parent().child(name)).isEqualTo(p);
  }

  @Test
  void rootHasNoParentAndNoName() throws IOException {
    BraidPath root = BraidPath.parse("/");
    assertThat(root.isRoot()).isTrue();
    assertThat(root.parent()).isNull();
    assertThat(root.name()).isEmpty();
    assertThat(root.depth()).isZero();
    assertThat(root.components()).isEmpty();
    assertThat(BraidPath.parse("/a").parent()).isSameAs(BraidPath.ROOT);
  }

  @Test
  void childBuildsCanonicalPaths() throws IOException {
    BraidPath a = BraidPath.ROOT.child("a");
    assertThat(a.toString()).isEqualTo("/a");
    BraidPath ab = a.child("b");
    assertThat(ab.toString()).isEqualTo("/a/b");
    assertThat(ab).isEqualTo(BraidPath.parse("/a/b"));
    assertThat(ab.components()).containsExactly("a", "b");
    assertThat(a.components()).containsExactly("a"); // the parent is untouched
    assertThat(ab.parent()).isEqualTo(a);
  }

  @Test
  void componentsAreReadOnly() throws IOException {
    BraidPath p = BraidPath.parse("/a/b");
    List<String> names = p.components();
    assertThatThrownBy(() -> names.set(0, "x")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> names.add("x")).isInstanceOf(UnsupportedOperationException.class);
    assertThat(p.toString()).isEqualTo("/a/b");
    assertThat(p.components()).containsExactly("a", "b");
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 2, Integer.MAX_VALUE})
  void componentChecksItsIndex(int index) throws IOException {
    BraidPath p = BraidPath.parse("/a/b");
    assertThatThrownBy(() -> p.component(index)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @ParameterizedTest
  @CsvSource({
    "/, /a, true",
    "/, /a/b, true",
    "/, /, false",
    "/a, /a, false",
    "/a, /a/b, true",
    "/a, /a/b/c, true",
    "/a, /ab, false",
    "/a, /ab/c, false",
    "/a/b, /a, false",
    "/a/b, /a/bc/d, false",
    "/ab, /a/b, false",
    "/a/b, /a/c/b, false",
    "/a, /, false",
  })
  void isAncestorOfComparesWholeNames(String a, String b, boolean expected) throws IOException {
    assertThat(BraidPath.parse(a).isAncestorOf(BraidPath.parse(b))).isEqualTo(expected);
  }

  // ---- value semantics and order ----

  static Stream<String> samplePaths() {
    return Stream.concat(
        goodPaths().map(a -> (String) a.get()[0]),
        Stream.of("//a//b/", "/x/y/", pathOfBytes(4096, EMOJI, 63)));
  }

  @ParameterizedTest
  @MethodSource("samplePaths")
  void roundTripsThroughToString(String input) throws IOException {
    BraidPath p = BraidPath.parse(input);
    BraidPath again = BraidPath.parse(p.toString());
    assertThat(again).isEqualTo(p).hasSameHashCodeAs(p);
    assertThat(again.toString()).isEqualTo(p.toString());
    assertThat(again.components()).isEqualTo(p.components());
    assertThat(again.compareTo(p)).isZero();
  }

  @Test
  void equalityIsByCanonicalForm() throws IOException {
    assertThat(BraidPath.parse("/a/b")).isEqualTo(BraidPath.parse("//a/b//"));
    assertThat(BraidPath.parse("/a/b")).isNotEqualTo(BraidPath.parse("/a/b/c"));
    assertThat(BraidPath.parse("/a/b")).isNotEqualTo(BraidPath.parse("/a/B"));
    assertThat(BraidPath.parse("/a/b")).isNotEqualTo(BraidPath.parse("/ab"));
    assertThat(BraidPath.parse("/a/b")).isNotEqualTo("/a/b");
    // No Unicode normalisation: precomposed and decomposed e-acute are different names.
    assertThat(BraidPath.parse("/" + E_ACUTE)).isNotEqualTo(BraidPath.parse("/e\u0301"));
  }

  @Test
  void sortsNameByNameInCodePointOrder() throws IOException {
    List<String> sorted =
        List.of(
            "/",
            "/a",
            "/a/b", // descendants of /a come before its later siblings
            "/a/b/c",
            "/a/c",
            "/a b", // ' ' (U+0020) after "a" as a prefix, though ' ' < '/' in plain string order
            "/a-b",
            "/ab",
            "/b",
            "/" + E_ACUTE,
            "/\uE000", // private use, U+E000
            "/\uFFFD",
            "/" + EMOJI); // U+1F600: after U+FFFD, although its first char 0xD83D is smaller
    List<BraidPath> paths = new ArrayList<>();
    for (String s : sorted) {
      paths.add(BraidPath.parse(s));
    }
    List<BraidPath> shuffled = new ArrayList<>(paths);
    Collections.shuffle(shuffled, new Random(42));
    Collections.sort(shuffled);
    assertThat(shuffled).containsExactlyElementsOf(paths);
  }

  @Test
  void orderMatchesUtf8BytesOfEachName() throws IOException {
    // Against a reference that encodes: the MDS lists a directory in UTF-8 byte order.
    String[] alphabet = {"a", "b", "/", E_ACUTE, KANJI, "\uE000", "\uFFFD", EMOJI, "\uD83C\uDF00"};
    Random random = new Random(7);
    for (int round = 0; round < 5_000; round++) {
      BraidPath x = BraidPath.parse(randomPath(random, alphabet));
      BraidPath y = BraidPath.parse(randomPath(random, alphabet));
      assertThat(Integer.signum(x.compareTo(y)))
          .as("%s vs %s", x, y)
          .isEqualTo(Integer.signum(referenceCompare(x, y)))
          .isEqualTo(-Integer.signum(y.compareTo(x)));
      assertThat(x.compareTo(y) == 0).isEqualTo(x.equals(y));
    }
  }

  private static String randomPath(Random random, String[] alphabet) {
    StringBuilder b = new StringBuilder("/");
    int length = random.nextInt(8);
    for (int i = 0; i < length; i++) {
      b.append(alphabet[random.nextInt(alphabet.length)]);
    }
    return b.toString();
  }

  private static int referenceCompare(BraidPath x, BraidPath y) {
    for (int i = 0; i < Math.min(x.depth(), y.depth()); i++) {
      int c =
          Arrays.compareUnsigned(x.component(i).getBytes(UTF_8), y.component(i).getBytes(UTF_8));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.depth(), y.depth());
  }

  // ---- helpers ----

  /**
   * Runs {@code call}, which must fail with an exception made by {@link StatusExceptions} for
   * {@code status} whose message contains each fragment.
   */
  private static IOException assertFails(
      ThrowingRunnable call, Status status, String... fragments) {
    Throwable t = catchThrowable(call::run);
    assertThat(t).as("expected %s", status).isInstanceOf(IOException.class);
    assertThat(StatusExceptions.statusOf(t)).isEqualTo(status);
    for (String fragment : fragments) {
      assertThat(t.getMessage()).contains(fragment);
    }
    return (IOException) t;
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
