package io.braidfs.common.token;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * A capability: the MDS's grant to one client to read and/or write a range of chunks of one file
 * for a limited time (ha-meta-security.md section 5.3). This is the token's content; {@link
 * TokenSigner} turns it into signed bytes and {@link TokenVerifier} turns those back into a token
 * and checks a request against it.
 *
 * <p><b>Encoding</b> (version 1). Fixed length, big-endian, no padding; integers documented as u64
 * must be in {@code [0, Long.MAX_VALUE]}:
 *
 * <pre>
 * offset  size  field
 *      0     1  version            u8, = 1
 *      1     4  keyId              u32, the key of the ring that made the tag
 *      5     8  mdsEpoch           u64, epoch of the MDS leader that issued the token
 *     13    16  clientId           the client's 16-byte id
 *     29     8  fileId             u64, inode id (never reused)
 *     37     8  fileGeneration     u64, bumped when the file is truncated or recreated
 *     45     8  chunkFirst         u64, first global chunk index covered
 *     53     8  chunkLast          u64, last global chunk index covered (inclusive), &gt;= chunkFirst
 *     61     8  chunkVersionFloor  u64, replicas older than this must refuse writes
 *     69     1  modes              u8, READ = 1 | WRITE = 2, not 0, no other bits
 *     70     8  notBefore          u64, epoch milliseconds
 *     78     8  expiry             u64, epoch milliseconds, &gt;= notBefore
 *     86    32  tag                HMAC-SHA256(key[keyId], bytes 0..85), added by the signer
 *    118        end
 * </pre>
 *
 * <p>A change to this layout is a new version number; verifiers reject versions they do not know.
 *
 * <p>Thread-safety: immutable.
 */
public final class CapabilityToken {
  /** The encoding version this class reads and writes. */
  public static final int VERSION = 1;

  /** Mode bit: the holder may read the chunks. */
  public static final int READ = 1;

  /** Mode bit: the holder may write the chunks. */
  public static final int WRITE = 2;

  /** Bytes of the encoded token before the tag. */
  public static final int BODY_LENGTH = 86;

  /** Bytes of the HMAC-SHA256 tag. */
  public static final int TAG_LENGTH = TokenMac.TAG_LENGTH;

  /** Bytes of a signed token: the body and the tag. */
  public static final int SIGNED_LENGTH = BODY_LENGTH + TAG_LENGTH;

  private static final int ALL_MODES = READ | WRITE;

  private final int keyId;
  private final long mdsEpoch;
  private final ClientId clientId;
  private final long fileId;
  private final long fileGeneration;
  private final long chunkFirst;
  private final long chunkLast;
  private final long chunkVersionFloor;
  private final int modes;
  private final long notBefore;
  private final long expiry;

  /**
   * Assigns without validating: {@link Builder#build} and {@link #decodeBody} check {@link
   * #problem}.
   */
  private CapabilityToken(Builder b, ClientId clientId) {
    this.keyId = b.keyId;
    this.mdsEpoch = b.mdsEpoch;
    this.clientId = clientId;
    this.fileId = b.fileId;
    this.fileGeneration = b.fileGeneration;
    this.chunkFirst = b.chunkFirst;
    this.chunkLast = b.chunkLast;
    this.chunkVersionFloor = b.chunkVersionFloor;
    this.modes = b.modes;
    this.notBefore = b.notBefore;
    this.expiry = b.expiry;
  }

  /** A builder with every number 0 and no client id. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this token's fields, to derive a changed copy. */
  public Builder toBuilder() {
    return new Builder()
        .keyId(keyId)
        .mdsEpoch(mdsEpoch)
        .clientId(clientId)
        .fileId(fileId)
        .fileGeneration(fileGeneration)
        .chunks(chunkFirst, chunkLast)
        .chunkVersionFloor(chunkVersionFloor)
        .modes(modes)
        .validity(notBefore, expiry);
  }

  /** The encoding version, always {@value #VERSION}. */
  public int version() {
    return VERSION;
  }

  /** The id of the key that signs (or signed) this token, an unsigned 32-bit value. */
  public int keyId() {
    return keyId;
  }

  /** The epoch of the MDS leader that issued the token. */
  public long mdsEpoch() {
    return mdsEpoch;
  }

  /** The only client that may present the token. */
  public ClientId clientId() {
    return clientId;
  }

  /** The inode id of the file. */
  public long fileId() {
    return fileId;
  }

  /** The generation of the file when the token was issued. */
  public long fileGeneration() {
    return fileGeneration;
  }

  /** The first global chunk index covered. */
  public long chunkFirst() {
    return chunkFirst;
  }

  /** The last global chunk index covered, inclusive. */
  public long chunkLast() {
    return chunkLast;
  }

  /** The lowest chunk version a replica may have for writes under this token. */
  public long chunkVersionFloor() {
    return chunkVersionFloor;
  }

  /** The granted mode bits, {@link #READ} and/or {@link #WRITE}. */
  public int modes() {
    return modes;
  }

  /** The first instant of validity, epoch milliseconds. */
  public long notBefore() {
    return notBefore;
  }

  /** The last instant of validity (inclusive), epoch milliseconds. */
  public long expiry() {
    return expiry;
  }

  /** Whether every bit of {@code mode} is granted. */
  public boolean allows(int mode) {
    return mode != 0 && (modes & mode) == mode;
  }

  /** Whether the global chunk index {@code chunkIndex} is in the covered range. */
  public boolean coversChunk(long chunkIndex) {
    return chunkIndex >= chunkFirst && chunkIndex <= chunkLast;
  }

  /** Writes the {@value #BODY_LENGTH}-byte body at {@code out}'s position, advancing it. */
  void encodeBody(ByteBuffer out) {
    out.put((byte) VERSION)
        .putInt(keyId)
        .putLong(mdsEpoch)
        .putLong(clientId.high())
        .putLong(clientId.low())
        .putLong(fileId)
        .putLong(fileGeneration)
        .putLong(chunkFirst)
        .putLong(chunkLast)
        .putLong(chunkVersionFloor)
        .put((byte) modes)
        .putLong(notBefore)
        .putLong(expiry);
  }

  /**
   * Reads a body written by {@link #encodeBody} from {@code in}'s position, advancing it by {@value
   * #BODY_LENGTH} bytes.
   *
   * @return null if the version is not {@value #VERSION} or a field is out of range
   * @throws java.nio.BufferUnderflowException if fewer than {@value #BODY_LENGTH} bytes remain
   */
  static @Nullable CapabilityToken decodeBody(ByteBuffer in) {
    int version = in.get() & 0xFF;
    Builder b = new Builder().keyId(in.getInt()).mdsEpoch(in.getLong());
    ClientId clientId = new ClientId(in.getLong(), in.getLong());
    b.fileId(in.getLong())
        .fileGeneration(in.getLong())
        .chunks(in.getLong(), in.getLong())
        .chunkVersionFloor(in.getLong())
        .modes(in.get() & 0xFF)
        .validity(in.getLong(), in.getLong());
    CapabilityToken token = new CapabilityToken(b, clientId);
    return version == VERSION && token.problem() == null ? token : null;
  }

  /** What is wrong with the fields, or null if they form a valid token. */
  private @Nullable String problem() {
    if (mdsEpoch < 0 || fileId < 0 || fileGeneration < 0 || chunkVersionFloor < 0) {
      return "mdsEpoch, fileId, fileGeneration and chunkVersionFloor must be >= 0: " + this;
    }
    if (chunkFirst < 0 || chunkLast < chunkFirst) {
      return "chunk range must satisfy 0 <= chunkFirst <= chunkLast: " + this;
    }
    if (modes == 0 || (modes & ~ALL_MODES) != 0) {
      return "modes must be READ, WRITE or both: " + modes;
    }
    if (notBefore < 0 || expiry < notBefore) {
      return "validity must satisfy 0 <= notBefore <= expiry: " + this;
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CapabilityToken)) {
      return false;
    }
    CapabilityToken t = (CapabilityToken) o;
    return keyId == t.keyId
        && mdsEpoch == t.mdsEpoch
        && clientId.equals(t.clientId)
        && fileId == t.fileId
        && fileGeneration == t.fileGeneration
        && chunkFirst == t.chunkFirst
        && chunkLast == t.chunkLast
        && chunkVersionFloor == t.chunkVersionFloor
        && modes == t.modes
        && notBefore == t.notBefore
        && expiry == t.expiry;
  }

  @Override
  public int hashCode() {
    int h = keyId;
    for (long v :
        new long[] {
          mdsEpoch,
          fileId,
          fileGeneration,
          chunkFirst,
          chunkLast,
          chunkVersionFloor,
          notBefore,
          expiry
        }) {
      h = 31 * h + Long.hashCode(v);
    }
    return 31 * (31 * h + clientId.hashCode()) + modes;
  }

  @Override
  public String toString() {
    return "CapabilityToken[keyId="
        + Integer.toUnsignedString(keyId)
        + ", mdsEpoch="
        + mdsEpoch
        + ", client="
        + clientId
        + ", file="
        + fileId
        + "/"
        + fileGeneration
        + ", chunks=["
        + chunkFirst
        + ", "
        + chunkLast
        + "], chunkVersionFloor="
        + chunkVersionFloor
        + ", modes="
        + ((modes & READ) != 0 ? "R" : "")
        + ((modes & WRITE) != 0 ? "W" : "")
        + ", valid=["
        + notBefore
        + ", "
        + expiry
        + "]]";
  }

  /**
   * Collects token fields; {@link #build} validates them together, so they may be set in any order.
   *
   * <p>Thread-safety: not thread-safe; confine a builder to one thread.
   */
  public static final class Builder {
    private int keyId;
    private long mdsEpoch;
    private @Nullable ClientId clientId;
    private long fileId;
    private long fileGeneration;
    private long chunkFirst;
    private long chunkLast;
    private long chunkVersionFloor;
    private int modes;
    private long notBefore;
    private long expiry;

    private Builder() {}

    /** The signing key's id (use {@link TokenSigner#keyId()}). */
    public Builder keyId(int keyId) {
      this.keyId = keyId;
      return this;
    }

    /** The issuing leader's epoch. */
    public Builder mdsEpoch(long mdsEpoch) {
      this.mdsEpoch = mdsEpoch;
      return this;
    }

    /** The client the token is for; required. */
    public Builder clientId(ClientId clientId) {
      this.clientId = clientId;
      return this;
    }

    /** The file's inode id. */
    public Builder fileId(long fileId) {
      this.fileId = fileId;
      return this;
    }

    /** The file's current generation. */
    public Builder fileGeneration(long fileGeneration) {
      this.fileGeneration = fileGeneration;
      return this;
    }

    /** The covered global chunk indices, {@code first} to {@code last} inclusive. */
    public Builder chunks(long first, long last) {
      this.chunkFirst = first;
      this.chunkLast = last;
      return this;
    }

    /** The lowest acceptable replica chunk version for writes. */
    public Builder chunkVersionFloor(long chunkVersionFloor) {
      this.chunkVersionFloor = chunkVersionFloor;
      return this;
    }

    /** The granted modes: {@link #READ}, {@link #WRITE} or both; required. */
    public Builder modes(int modes) {
      this.modes = modes;
      return this;
    }

    /** The validity interval in epoch milliseconds, both ends inclusive. */
    public Builder validity(long notBefore, long expiry) {
      this.notBefore = notBefore;
      this.expiry = expiry;
      return this;
    }

    /**
     * The token.
     *
     * @throws IllegalStateException if no client id was set
     * @throws IllegalArgumentException if mdsEpoch, fileId, fileGeneration or chunkVersionFloor is
     *     negative
     * @throws IllegalArgumentException unless {@code 0 <= chunkFirst <= chunkLast}
     * @throws IllegalArgumentException if modes is not READ, WRITE or READ | WRITE
     * @throws IllegalArgumentException unless {@code 0 <= notBefore <= expiry}
     */
    public CapabilityToken build() {
      ClientId client = clientId;
      if (client == null) {
        throw new IllegalStateException("clientId is not set");
      }
      CapabilityToken token = new CapabilityToken(this, client);
      String problem = token.problem();
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
      return token;
    }
  }
}
