package io.braidfs.mds.store;

import io.braidfs.common.token.ClientId;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The key encodings of every column family, in one place. All numbers are unsigned and big-endian,
 * so that RocksDB's bytewise order is the logical order:
 *
 * <table>
 *   <caption>Keys by column family</caption>
 *   <tr><th>family</th><th>key</th><th>order</th></tr>
 *   <tr><td>inodes</td><td>{@code ino:u64}</td><td>by id (255 before 256)</td></tr>
 *   <tr><td>dentries</td><td>{@code parent:u64 || name:UTF-8}</td>
 *       <td>by parent, then by name bytes; one directory's entries are contiguous</td></tr>
 *   <tr><td>xattrs</td><td>{@code ino:u64 || name:UTF-8}</td><td>by inode, then name bytes</td></tr>
 *   <tr><td>chunks</td><td>{@code ino:u64 || index:u32}</td><td>by inode, then index</td></tr>
 *   <tr><td>retry</td><td>{@code clientId:16 bytes || callId:u64}</td>
 *       <td>by client, then call id</td></tr>
 *   <tr><td>deletions</td><td>{@code sequence:u64}</td><td>queue order</td></tr>
 *   <tr><td>journal</td><td>{@code index:u64}</td><td>journal order</td></tr>
 *   <tr><td>meta</td><td>{@code name:UTF-8}</td><td>by name</td></tr>
 * </table>
 *
 * <p>Names sort by their UTF-8 bytes, which is Unicode code point order. That differs from {@link
 * String#compareTo} (UTF-16 code units) for characters outside the Basic Multilingual Plane: the
 * store lists {@code "\uFF5E"} before {@code "\uD83D\uDE00"}, {@code String.compareTo} the reverse.
 * Ids, indexes and call ids compare as unsigned numbers ({@link Long#compareUnsigned}).
 *
 * <p>A prefix scan over one directory uses {@link #dentryPrefix} with {@link #prefixEnd} as the
 * exclusive upper bound; a paged scan resumes at {@link #successor} of the last key returned.
 *
 * <p>Name rules (length, forbidden characters) belong to the namespace layer; here a name only has
 * to be non-empty and well-formed UTF-16, so that it encodes to UTF-8 without loss.
 *
 * <p>Thread-safety: stateless; every method returns a new array.
 */
public final class Keys {
  /** Bytes in an encoded u64. */
  public static final int U64_BYTES = 8;

  /** Bytes in an encoded u32. */
  public static final int U32_BYTES = 4;

  /** The {@link ColumnFamily#META} key of the applied journal index, owned by the store. */
  static final String APPLIED_INDEX = "applied-index";

  /** {@link #meta} of {@link #APPLIED_INDEX}; never modified. */
  static final byte[] APPLIED_INDEX_KEY = APPLIED_INDEX.getBytes(StandardCharsets.UTF_8);

  private Keys() {}

  // ---- inodes ---------------------------------------------------------------------------------

  /** The {@link ColumnFamily#INODES} key of inode {@code ino}. */
  public static byte[] inode(long ino) {
    return u64(ino);
  }

  /**
   * The inode id in an {@link ColumnFamily#INODES} key.
   *
   * @throws IllegalArgumentException if {@code key} is not 8 bytes long
   */
  public static long inodeOf(byte[] key) {
    checkLength(key, U64_BYTES, "inode key");
    return readU64(key, 0);
  }

  // ---- dentries -------------------------------------------------------------------------------

  /**
   * The {@link ColumnFamily#DENTRIES} key of entry {@code name} in directory {@code parent}.
   *
   * @throws IllegalArgumentException if {@code name} is empty or not well-formed UTF-16
   */
  public static byte[] dentry(long parent, String name) {
    return withName(parent, name, "entry name");
  }

  /** The prefix every {@link #dentry} key of directory {@code parent} starts with. */
  public static byte[] dentryPrefix(long parent) {
    return u64(parent);
  }

  /**
   * The directory id in a {@link #dentry} key.
   *
   * @throws IllegalArgumentException if {@code key} has no name part
   */
  public static long dentryParent(byte[] key) {
    checkNamed(key, "dentry key");
    return readU64(key, 0);
  }

  /**
   * The entry name in a {@link #dentry} key.
   *
   * @throws IllegalArgumentException if {@code key} has no name part
   */
  public static String dentryName(byte[] key) {
    checkNamed(key, "dentry key");
    return new String(key, U64_BYTES, key.length - U64_BYTES, StandardCharsets.UTF_8);
  }

  // ---- xattrs ---------------------------------------------------------------------------------

  /**
   * The {@link ColumnFamily#XATTRS} key of attribute {@code name} of inode {@code ino}.
   *
   * @throws IllegalArgumentException if {@code name} is empty or not well-formed UTF-16
   */
  public static byte[] xattr(long ino, String name) {
    return withName(ino, name, "xattr name");
  }

  /** The prefix every {@link #xattr} key of inode {@code ino} starts with. */
  public static byte[] xattrPrefix(long ino) {
    return u64(ino);
  }

  /**
   * The attribute name in an {@link #xattr} key.
   *
   * @throws IllegalArgumentException if {@code key} has no name part
   */
  public static String xattrName(byte[] key) {
    checkNamed(key, "xattr key");
    return new String(key, U64_BYTES, key.length - U64_BYTES, StandardCharsets.UTF_8);
  }

  // ---- chunks ---------------------------------------------------------------------------------

  /**
   * The {@link ColumnFamily#CHUNKS} key of chunk {@code index} of inode {@code ino}. The index is
   * an unsigned 32-bit number: {@code -1} is chunk 4294967295, the last one.
   */
  public static byte[] chunk(long ino, int index) {
    byte[] key = new byte[U64_BYTES + U32_BYTES];
    writeU64(key, 0, ino);
    for (int i = 0; i < U32_BYTES; i++) {
      key[U64_BYTES + i] = (byte) (index >>> (24 - 8 * i));
    }
    return key;
  }

  /** The prefix every {@link #chunk} key of inode {@code ino} starts with. */
  public static byte[] chunkPrefix(long ino) {
    return u64(ino);
  }

  /**
   * The inode id in a {@link #chunk} key.
   *
   * @throws IllegalArgumentException if {@code key} is not 12 bytes long
   */
  public static long chunkInode(byte[] key) {
    checkLength(key, U64_BYTES + U32_BYTES, "chunk key");
    return readU64(key, 0);
  }

  /**
   * The chunk index in a {@link #chunk} key, as an unsigned 32-bit number held in an int.
   *
   * @throws IllegalArgumentException if {@code key} is not 12 bytes long
   */
  public static int chunkIndex(byte[] key) {
    checkLength(key, U64_BYTES + U32_BYTES, "chunk key");
    int value = 0;
    for (int i = 0; i < U32_BYTES; i++) {
      value = (value << 8) | (key[U64_BYTES + i] & 0xFF);
    }
    return value;
  }

  // ---- retry cache ----------------------------------------------------------------------------

  /**
   * The {@link ColumnFamily#RETRY} key of call {@code callId} (unsigned) of client {@code client}.
   */
  public static byte[] retry(ClientId client, long callId) {
    byte[] key = new byte[ClientId.LENGTH + U64_BYTES];
    writeU64(key, 0, client.high());
    writeU64(key, U64_BYTES, client.low());
    writeU64(key, ClientId.LENGTH, callId);
    return key;
  }

  /** The prefix every {@link #retry} key of {@code client} starts with. */
  public static byte[] retryPrefix(ClientId client) {
    return client.toBytes();
  }

  /**
   * The client id in a {@link #retry} key.
   *
   * @throws IllegalArgumentException if {@code key} is not 24 bytes long
   */
  public static ClientId retryClient(byte[] key) {
    checkLength(key, ClientId.LENGTH + U64_BYTES, "retry key");
    return new ClientId(readU64(key, 0), readU64(key, U64_BYTES));
  }

  /**
   * The call id in a {@link #retry} key.
   *
   * @throws IllegalArgumentException if {@code key} is not 24 bytes long
   */
  public static long retryCall(byte[] key) {
    checkLength(key, ClientId.LENGTH + U64_BYTES, "retry key");
    return readU64(key, ClientId.LENGTH);
  }

  // ---- deletion queue, journal and meta ---------------------------------------------------------

  /** The {@link ColumnFamily#DELETIONS} key of queue position {@code sequence} (unsigned). */
  public static byte[] deletion(long sequence) {
    return u64(sequence);
  }

  /** The {@link ColumnFamily#JOURNAL} key of journal record {@code index} (unsigned). */
  public static byte[] journal(long index) {
    return u64(index);
  }

  /**
   * The journal index in a {@link ColumnFamily#JOURNAL} key.
   *
   * @throws IllegalArgumentException if {@code key} is not 8 bytes long
   */
  public static long journalIndex(byte[] key) {
    checkLength(key, U64_BYTES, "journal key");
    return readU64(key, 0);
  }

  /**
   * The {@link ColumnFamily#META} key named {@code name}, such as {@code next-inode-id}. The name
   * {@code applied-index} belongs to the store: a {@link StoreBatch} cannot write it.
   *
   * @throws IllegalArgumentException if {@code name} is empty or not well-formed UTF-16
   */
  public static byte[] meta(String name) {
    return utf8(name, "meta key name");
  }

  // ---- numbers and ranges ---------------------------------------------------------------------

  /** {@code value} as 8 unsigned big-endian bytes. */
  public static byte[] u64(long value) {
    byte[] bytes = new byte[U64_BYTES];
    writeU64(bytes, 0, value);
    return bytes;
  }

  /**
   * The unsigned big-endian number in {@code bytes[offset..offset+8)}.
   *
   * @throws IllegalArgumentException if fewer than 8 bytes follow {@code offset}
   */
  public static long readU64(byte[] bytes, int offset) {
    if (offset < 0 || bytes.length - offset < U64_BYTES) {
      throw new IllegalArgumentException(
          "need 8 bytes at offset " + offset + " of " + bytes.length + " bytes");
    }
    long value = 0;
    for (int i = 0; i < U64_BYTES; i++) {
      value = (value << 8) | (bytes[offset + i] & 0xFF);
    }
    return value;
  }

  /**
   * The least key greater than every key that starts with {@code prefix}: the prefix with its last
   * byte that is not {@code 0xFF} incremented and the bytes after it dropped. Use it as the
   * exclusive upper bound of a prefix scan.
   *
   * @return the bound, or null if the prefix is empty or all {@code 0xFF} (no key is greater)
   */
  public static byte @Nullable [] prefixEnd(byte[] prefix) {
    for (int i = prefix.length - 1; i >= 0; i--) {
      if (prefix[i] != (byte) 0xFF) {
        byte[] end = Arrays.copyOf(prefix, i + 1);
        end[i]++;
        return end;
      }
    }
    return null;
  }

  /** The least key greater than {@code key}: {@code key} followed by one zero byte. */
  public static byte[] successor(byte[] key) {
    return Arrays.copyOf(key, key.length + 1);
  }

  /** Whether {@code key} starts with {@code prefix}. */
  public static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** The order RocksDB keeps keys in: bytewise, each byte unsigned. */
  public static int compare(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static byte[] withName(long id, String name, String what) {
    byte[] utf8 = utf8(name, what);
    byte[] key = new byte[U64_BYTES + utf8.length];
    writeU64(key, 0, id);
    System.arraycopy(utf8, 0, key, U64_BYTES, utf8.length);
    return key;
  }

  /** Strict UTF-8: an unpaired surrogate is an error, not a silent '?'. */
  private static byte[] utf8(String name, String what) {
    if (name.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
    try {
      ByteBuffer encoded =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(name));
      byte[] bytes = new byte[encoded.remaining()];
      encoded.get(bytes);
      return bytes;
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(what + " '" + name + "' is not well-formed UTF-16", e);
    }
  }

  private static void writeU64(byte[] bytes, int offset, long value) {
    for (int i = 0; i < U64_BYTES; i++) {
      bytes[offset + i] = (byte) (value >>> (56 - 8 * i));
    }
  }

  private static void checkLength(byte[] key, int length, String what) {
    if (key.length != length) {
      throw new IllegalArgumentException(
          "a " + what + " has " + length + " bytes, not " + key.length);
    }
  }

  private static void checkNamed(byte[] key, String what) {
    if (key.length <= U64_BYTES) {
      throw new IllegalArgumentException("a " + what + " has more than 8 bytes, not " + key.length);
    }
  }
}
