package io.braidfs.mds.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.braidfs.common.token.ClientId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Key order equals logical order, for every key type: sorting logical values and sorting their
 * encoded keys bytewise (as RocksDB does) give the same sequence. Each property is checked on
 * boundary values and on thousands of random values from a fixed seed.
 */
class KeysTest {
  private static final long[] U64_EDGES = {
    0,
    1,
    2,
    127,
    128,
    255,
    256,
    257,
    65_535,
    65_536,
    0xFFFF_FFFFL,
    0x1_0000_0000L,
    Long.MAX_VALUE - 1,
    Long.MAX_VALUE,
    Long.MIN_VALUE,
    Long.MIN_VALUE + 1,
    -2,
    -1
  };

  private static final String[] NAME_EDGES = {
    "\u0000",
    "\u0000\u0000",
    "a",
    "a\u0000",
    "ab",
    "a\uFFFF",
    "b",
    "B",
    "z",
    "\u007F",
    "\u0080",
    "\u00E9",
    "\u07FF",
    "\u0800",
    "\uFF5E",
    "\uFFFF",
    "\uD800\uDC00",
    "\uD83D\uDE00",
    "\uDBFF\uDFFF",
    "\uDBFF\uDFFF\uDBFF\uDFFF",
    "file-10",
    "file-9",
    "a".repeat(255)
  };

  private final Random random = new Random(0x5EED);

  @Test
  void inode255SortsBefore256AndIdsCompareUnsigned() {
    assertThat(Keys.compare(Keys.inode(255), Keys.inode(256))).isNegative();
    assertThat(Keys.compare(Keys.inode(Long.MAX_VALUE), Keys.inode(Long.MIN_VALUE))).isNegative();
    assertThat(Keys.compare(Keys.inode(-2), Keys.inode(-1))).isNegative();
    assertSameOrder(u64Values(), Long::compareUnsigned, Keys::inode);
    for (long v : u64Values()) {
      assertThat(Keys.inodeOf(Keys.inode(v))).isEqualTo(v);
      assertThat(Keys.readU64(Keys.deletion(v), 0)).isEqualTo(v);
    }
  }

  @Test
  void dentriesSortByParentThenNameBytesWhichIsCodePointOrder() {
    record Dentry(long parent, String name) {}
    List<Dentry> values = new ArrayList<>();
    for (long parent : new long[] {0, 1, 2, 255, 256, Long.MAX_VALUE, -1}) {
      for (String name : NAME_EDGES) {
        values.add(new Dentry(parent, name));
      }
    }
    for (int i = 0; i < 5000; i++) {
      values.add(new Dentry(randomU64(), randomName()));
    }
    Comparator<Dentry> logical =
        (a, b) -> {
          int c = Long.compareUnsigned(a.parent(), b.parent());
          return c != 0 ? c : compareCodePoints(a.name(), b.name());
        };
    assertSameOrder(values, logical, d -> Keys.dentry(d.parent(), d.name()));
    for (Dentry d : values) {
      byte[] key = Keys.dentry(d.parent(), d.name());
      assertThat(Keys.dentryParent(key)).isEqualTo(d.parent());
      assertThat(Keys.dentryName(key)).isEqualTo(d.name());
      assertThat(Keys.startsWith(key, Keys.dentryPrefix(d.parent()))).isTrue();
    }
  }

  @Test
  void codePointOrderDiffersFromStringCompareToOutsideTheBmp() {
    String fullwidthTilde = "\uFF5E";
    String grinningFace = "\uD83D\uDE00";
    assertThat(grinningFace.compareTo(fullwidthTilde)).isNegative();
    assertThat(Keys.compare(Keys.dentry(1, fullwidthTilde), Keys.dentry(1, grinningFace)))
        .isNegative();
  }

  @Test
  void oneDirectorysEntriesNeverInterleaveWithAnothers() {
    for (long parent : U64_EDGES) {
      byte[] prefix = Keys.dentryPrefix(parent);
      byte[] end = Keys.prefixEnd(prefix);
      for (String name : NAME_EDGES) {
        byte[] key = Keys.dentry(parent, name);
        assertThat(Keys.compare(prefix, key)).isNegative();
        if (end != null) {
          assertThat(Keys.compare(key, end)).isNegative();
        }
      }
      if (parent != -1) {
        // The bound lies after every entry of this directory and before every one of the next
        // (it may be shorter than 8 bytes: 00..00ff ends at 00..01).
        byte[] largestHere = Keys.dentry(parent, "\uDBFF\uDFFF".repeat(64));
        byte[] smallestNext = Keys.dentry(parent + 1, "\u0000");
        assertThat(Keys.compare(largestHere, end)).isNegative();
        assertThat(Keys.compare(end, Keys.dentryPrefix(parent + 1))).isLessThanOrEqualTo(0);
        assertThat(Keys.compare(largestHere, smallestNext)).isNegative();
      } else {
        assertThat(end).isNull();
      }
    }
  }

  @Test
  void chunksSortByInodeThenUnsignedIndex() {
    record Chunk(long ino, int index) {}
    List<Chunk> values = new ArrayList<>();
    int[] indexEdges = {0, 1, 255, 256, 65_536, Integer.MAX_VALUE, Integer.MIN_VALUE, -1};
    for (long ino : U64_EDGES) {
      for (int index : indexEdges) {
        values.add(new Chunk(ino, index));
      }
    }
    for (int i = 0; i < 5000; i++) {
      values.add(new Chunk(randomU64(), random.nextInt(4) == 0 ? random.nextInt() : i));
    }
    Comparator<Chunk> logical =
        (a, b) -> {
          int c = Long.compareUnsigned(a.ino(), b.ino());
          return c != 0 ? c : Integer.compareUnsigned(a.index(), b.index());
        };
    assertSameOrder(values, logical, c -> Keys.chunk(c.ino(), c.index()));
    for (Chunk c : values) {
      byte[] key = Keys.chunk(c.ino(), c.index());
      assertThat(Keys.chunkInode(key)).isEqualTo(c.ino());
      assertThat(Keys.chunkIndex(key)).isEqualTo(c.index());
      assertThat(Keys.startsWith(key, Keys.chunkPrefix(c.ino()))).isTrue();
    }
    assertThat(Keys.compare(Keys.chunk(7, -1), Keys.chunk(8, 0))).isNegative();
  }

  @Test
  void xattrsSortByInodeThenName() {
    record Xattr(long ino, String name) {}
    List<Xattr> values = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      values.add(new Xattr(random.nextInt(4) == 0 ? randomU64() : random.nextInt(3), randomName()));
    }
    for (String name : NAME_EDGES) {
      values.add(new Xattr(1, name));
    }
    Comparator<Xattr> logical =
        (a, b) -> {
          int c = Long.compareUnsigned(a.ino(), b.ino());
          return c != 0 ? c : compareCodePoints(a.name(), b.name());
        };
    assertSameOrder(values, logical, x -> Keys.xattr(x.ino(), x.name()));
    for (Xattr x : values) {
      byte[] key = Keys.xattr(x.ino(), x.name());
      assertThat(Keys.xattrName(key)).isEqualTo(x.name());
      assertThat(Keys.startsWith(key, Keys.xattrPrefix(x.ino()))).isTrue();
    }
  }

  @Test
  void retryKeysSortByClientThenUnsignedCallId() {
    record Retry(ClientId client, long call) {}
    List<Retry> values = new ArrayList<>();
    for (long high : new long[] {0, 1, Long.MAX_VALUE, -1}) {
      for (long low : new long[] {0, 255, 256, -1}) {
        for (long call : U64_EDGES) {
          values.add(new Retry(new ClientId(high, low), call));
        }
      }
    }
    for (int i = 0; i < 3000; i++) {
      ClientId client = new ClientId(random.nextInt(3), randomU64());
      values.add(new Retry(client, random.nextBoolean() ? i : randomU64()));
    }
    Comparator<Retry> logical =
        (a, b) -> {
          int c = Long.compareUnsigned(a.client().high(), b.client().high());
          c = c != 0 ? c : Long.compareUnsigned(a.client().low(), b.client().low());
          return c != 0 ? c : Long.compareUnsigned(a.call(), b.call());
        };
    assertSameOrder(values, logical, r -> Keys.retry(r.client(), r.call()));
    for (Retry r : values) {
      byte[] key = Keys.retry(r.client(), r.call());
      assertThat(key).hasSize(24).startsWith(r.client().toBytes());
      assertThat(Keys.retryClient(key)).isEqualTo(r.client());
      assertThat(Keys.retryCall(key)).isEqualTo(r.call());
      assertThat(Keys.startsWith(key, Keys.retryPrefix(r.client()))).isTrue();
    }
  }

  @Test
  void encodingsAreBigEndian() {
    HexFormat hex = HexFormat.of();
    assertThat(hex.formatHex(Keys.inode(0x0102030405060708L))).isEqualTo("0102030405060708");
    assertThat(hex.formatHex(Keys.chunk(1, 0x0A0B0C0D))).isEqualTo("00000000000000010a0b0c0d");
    assertThat(hex.formatHex(Keys.dentry(2, "é"))).isEqualTo("0000000000000002c3a9");
    assertThat(hex.formatHex(Keys.meta("next-inode-id")))
        .isEqualTo(hex.formatHex("next-inode-id".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void journalKeysAreUnsignedBigEndianIndexes() {
    assertThat(HexFormat.of().formatHex(Keys.journal(258))).isEqualTo("0000000000000102");
    assertThat(Keys.journalIndex(Keys.journal(-2))).isEqualTo(-2);
    assertThat(Keys.compare(Keys.journal(255), Keys.journal(256))).isNegative();
    assertThat(Keys.compare(Keys.journal(Long.MAX_VALUE), Keys.journal(Long.MIN_VALUE)))
        .isNegative();
    assertThatThrownBy(() -> Keys.journalIndex(new byte[9]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal key");
  }

  @Test
  void columnFamilyIdsAreStableAndDistinct() {
    // Stored in journal records: these numbers may never change (store.proto JournalOp.family).
    assertThat(ColumnFamily.values())
        .extracting(ColumnFamily::id)
        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8)
        .doesNotHaveDuplicates();
    for (ColumnFamily family : ColumnFamily.values()) {
      assertThat(ColumnFamily.byId(family.id())).isSameAs(family);
    }
    assertThat(ColumnFamily.byId(0)).isNull();
    assertThat(ColumnFamily.byId(9)).isNull();
    assertThat(ColumnFamily.byId(-1)).isNull();
  }

  @Test
  void prefixEndAndSuccessorBoundRanges() {
    HexFormat hex = HexFormat.of();
    assertThat(Keys.prefixEnd(new byte[0])).isNull();
    assertThat(Keys.prefixEnd(hex.parseHex("ffff"))).isNull();
    assertThat(Keys.prefixEnd(hex.parseHex("01ff"))).isEqualTo(hex.parseHex("02"));
    assertThat(Keys.prefixEnd(hex.parseHex("0102"))).isEqualTo(hex.parseHex("0103"));
    assertThat(Keys.prefixEnd(hex.parseHex("01feff"))).isEqualTo(hex.parseHex("01ff"));
    byte[] key = Keys.dentry(5, "a");
    byte[] next = Keys.successor(key);
    assertThat(Keys.compare(key, next)).isNegative();
    // Nothing fits between a key and its successor.
    assertThat(Keys.compare(next, Keys.dentry(5, "a\u0000"))).isZero();
  }

  @Test
  void invalidNamesAndKeysAreRejected() {
    assertThatThrownBy(() -> Keys.dentry(1, "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Keys.dentry(1, "a\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not well-formed");
    assertThatThrownBy(() -> Keys.xattr(1, "\uDC00x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Keys.meta("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Keys.inodeOf(new byte[7]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Keys.dentryName(Keys.inode(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Keys.chunkIndex(new byte[8]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Keys.retryCall(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Keys.readU64(new byte[8], 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- helpers --------------------------------------------------------------------------------

  /**
   * Sorts {@code values} logically and checks that their keys strictly increase between logically
   * distinct neighbours and are equal between equal ones; by transitivity the two orders agree.
   */
  private static <T> void assertSameOrder(
      List<T> values, Comparator<? super T> logical, Function<T, byte[]> encode) {
    List<T> sorted = new ArrayList<>(values);
    sorted.sort(logical);
    for (int i = 1; i < sorted.size(); i++) {
      T a = sorted.get(i - 1);
      T b = sorted.get(i);
      int expected = Integer.signum(logical.compare(a, b));
      int actual = Integer.signum(Keys.compare(encode.apply(a), encode.apply(b)));
      assertThat(actual).as("key order of %s and %s", a, b).isEqualTo(expected);
    }
    // And the other way round: sorting the keys gives the logical order.
    List<T> byKey = new ArrayList<>(values);
    byKey.sort((a, b) -> Keys.compare(encode.apply(a), encode.apply(b)));
    for (int i = 0; i < sorted.size(); i++) {
      assertThat(logical.compare(byKey.get(i), sorted.get(i))).isZero();
    }
  }

  private List<Long> u64Values() {
    List<Long> values = new ArrayList<>();
    for (long v : U64_EDGES) {
      values.add(v);
    }
    for (int i = 0; i < 5000; i++) {
      values.add(randomU64());
    }
    return values;
  }

  /** Mostly small ids (as real inode ids are), sometimes any 64 bits. */
  private long randomU64() {
    return switch (random.nextInt(4)) {
      case 0 -> random.nextLong();
      case 1 -> random.nextInt(1 << 16);
      default -> random.nextInt(600);
    };
  }

  /** 1 to 8 code points from ASCII, Latin, the rest of the BMP and the supplementary planes. */
  private String randomName() {
    StringBuilder name = new StringBuilder();
    int length = 1 + random.nextInt(8);
    for (int i = 0; i < length; i++) {
      int cp =
          switch (random.nextInt(5)) {
            case 0, 1 -> 'a' + random.nextInt(4); // few letters: many shared prefixes
            case 2 -> random.nextInt(0x800);
            case 3 -> {
              int c = random.nextInt(0x10000);
              yield Character.isSurrogate((char) c) ? 0xFF5E : c;
            }
            default -> 0x10000 + random.nextInt(0x100000);
          };
      name.appendCodePoint(cp);
    }
    return name.toString();
  }

  private static int compareCodePoints(String a, String b) {
    int[] x = a.codePoints().toArray();
    int[] y = b.codePoints().toArray();
    return Arrays.compare(x, y);
  }
}
