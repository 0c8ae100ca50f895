package io.braidfs.client;

import io.braidfs.proto.SetAttrRequest;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A change of one inode's attributes, applied at once by {@link BraidClient#setAttr(String,
 * AttrChange)}: any subset of mode, owner, times and size (the setattr family: chmod, chown,
 * utimensat, truncate). What is not set is left as it is; the MDS refuses conflicting fields (a
 * user name with a uid, a time with "now" for the same time, a mode with {@link
 * Builder#killSetid()}) with INVALID_ARGUMENT.
 *
 * <pre>{@code
 * client.setAttr("/data/a", AttrChange.builder().mode(0640).mtimeNow().build());
 * }</pre>
 *
 * <p>Thread-safety: immutable; its {@link Builder} is not thread-safe.
 */
public final class AttrChange {
  private static final AttrChange NONE = new AttrChange(SetAttrRequest.getDefaultInstance());

  /** The change as sent, without a path or inode id. */
  private final SetAttrRequest proto;

  private AttrChange(SetAttrRequest proto) {
    this.proto = proto;
  }

  /** A builder of a change that sets nothing yet. */
  public static Builder builder() {
    return new Builder(SetAttrRequest.newBuilder());
  }

  /** A builder that starts from this change. */
  public Builder toBuilder() {
    return new Builder(proto.toBuilder());
  }

  /** A change that sets nothing (the answer is the inode's attributes as they are). */
  public static AttrChange none() {
    return NONE;
  }

  /** The new permission bits (07777), if set. */
  public OptionalInt mode() {
    return proto.hasMode() ? OptionalInt.of(proto.getMode()) : OptionalInt.empty();
  }

  /** The new owner by user name, if set. */
  public Optional<String> user() {
    return proto.hasUser() ? Optional.of(proto.getUser()) : Optional.empty();
  }

  /** The new group by name, if set. */
  public Optional<String> group() {
    return proto.hasGroup() ? Optional.of(proto.getGroup()) : Optional.empty();
  }

  /** The new owner by numeric user id, if set. */
  public OptionalInt uid() {
    return proto.hasUid() ? OptionalInt.of(proto.getUid()) : OptionalInt.empty();
  }

  /** The new group by numeric group id, if set. */
  public OptionalInt gid() {
    return proto.hasGid() ? OptionalInt.of(proto.getGid()) : OptionalInt.empty();
  }

  /** The new access time in nanoseconds since the epoch, if set. */
  public OptionalLong atimeNanos() {
    return proto.hasAtimeNs() ? OptionalLong.of(proto.getAtimeNs()) : OptionalLong.empty();
  }

  /** The new modification time in nanoseconds since the epoch, if set. */
  public OptionalLong mtimeNanos() {
    return proto.hasMtimeNs() ? OptionalLong.of(proto.getMtimeNs()) : OptionalLong.empty();
  }

  /** Whether the access time becomes the MDS's current time (UTIME_NOW). */
  public boolean atimeNow() {
    return proto.getAtimeNow();
  }

  /** Whether the modification time becomes the MDS's current time (UTIME_NOW). */
  public boolean mtimeNow() {
    return proto.getMtimeNow();
  }

  /** The new length in bytes (truncate, or extend with a hole), if set. */
  public OptionalLong size() {
    return proto.hasSize() ? OptionalLong.of(proto.getSize()) : OptionalLong.empty();
  }

  /** Whether set-id bits are cleared as the kernel clears them after a non-owner's write. */
  public boolean killSetid() {
    return proto.getKillSetid();
  }

  /** The wire form, without a path or inode id; for {@link BraidClient}. */
  SetAttrRequest proto() {
    return proto;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AttrChange c && c.proto.equals(proto);
  }

  @Override
  public int hashCode() {
    return proto.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("AttrChange{");
    mode().ifPresent(m -> b.append(" mode=").append(Integer.toOctalString(m)));
    user().ifPresent(u -> b.append(" user=").append(u));
    group().ifPresent(g -> b.append(" group=").append(g));
    uid().ifPresent(u -> b.append(" uid=").append(u));
    gid().ifPresent(g -> b.append(" gid=").append(g));
    atimeNanos().ifPresent(t -> b.append(" atime=").append(t));
    mtimeNanos().ifPresent(t -> b.append(" mtime=").append(t));
    if (atimeNow()) {
      b.append(" atime=now");
    }
    if (mtimeNow()) {
      b.append(" mtime=now");
    }
    size().ifPresent(s -> b.append(" size=").append(s));
    if (killSetid()) {
      b.append(" kill-setid");
    }
    return b.append(" }").toString();
  }

  /**
   * Builds an {@link AttrChange}; each setter replaces what it set before.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final SetAttrRequest.Builder proto;

    private Builder(SetAttrRequest.Builder proto) {
      this.proto = proto;
    }

    /** chmod: the new permission bits (07777; type bits are refused). */
    public Builder mode(int mode) {
      proto.setMode(mode);
      return this;
    }

    /** chown by name: the new owner. */
    public Builder user(String user) {
      proto.setUser(user);
      return this;
    }

    /** chown by name: the new group. */
    public Builder group(String group) {
      proto.setGroup(group);
      return this;
    }

    /** chown by number: the new owner's user id. */
    public Builder uid(int uid) {
      proto.setUid(uid);
      return this;
    }

    /** chown by number: the new group id. */
    public Builder gid(int gid) {
      proto.setGid(gid);
      return this;
    }

    /** The new access time, nanoseconds since the epoch. */
    public Builder atimeNanos(long nanos) {
      proto.setAtimeNs(nanos);
      return this;
    }

    /** The new modification time, nanoseconds since the epoch. */
    public Builder mtimeNanos(long nanos) {
      proto.setMtimeNs(nanos);
      return this;
    }

    /** Sets the access time to the MDS's current time (UTIME_NOW). */
    public Builder atimeNow() {
      proto.setAtimeNow(true);
      return this;
    }

    /** Sets the modification time to the MDS's current time (UTIME_NOW). */
    public Builder mtimeNow() {
      proto.setMtimeNow(true);
      return this;
    }

    /**
     * The new length of a regular file in bytes: cuts it, or extends it with a hole. {@link
     * BraidClient#truncate(String, long, WriteToken)} checks it against an open for writing.
     */
    public Builder size(long bytes) {
      proto.setSize(bytes);
      return this;
    }

    /**
     * Clears set-id bits as the kernel does when a non-owner writes, truncates or chowns a file
     * (S_ISUID, and S_ISGID if the group may execute); allowed to anyone who may write the file.
     */
    public Builder killSetid() {
      proto.setKillSetid(true);
      return this;
    }

    /**
     * Adds a later change to this one: what {@code later} sets replaces what this builder set, and
     * a flag ({@code atimeNow}, {@code mtimeNow}, {@code killSetid}) set in either stays set. For a
     * caller that sends several changes as one.
     */
    public Builder merge(AttrChange later) {
      proto.mergeFrom(later.proto);
      return this;
    }

    public AttrChange build() {
      return new AttrChange(proto.build());
    }
  }
}
