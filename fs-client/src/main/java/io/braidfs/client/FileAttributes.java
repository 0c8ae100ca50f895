package io.braidfs.client;

import io.braidfs.common.layout.Layout;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.LayoutSpec;

/**
 * The attributes of one inode, as the MDS answered them (stat, FUSE getattr, Hadoop FileStatus).
 *
 * <p>Thread-safety: immutable.
 */
public final class FileAttributes {
  private final Attributes proto;
  private final FileType type;

  FileAttributes(Attributes proto) {
    this.proto = proto;
    this.type = Protos.fileType(proto.getType());
  }

  /**
   * A builder of attributes that set nothing yet (0 and empty everywhere): for code that predicts
   * what the MDS will answer to a change it sent (the FUSE mount's attribute write-behind) and for
   * tests. Attributes read through the client come from the MDS.
   */
  public static Builder builder() {
    return new Builder(Attributes.newBuilder());
  }

  /** A builder that starts from these attributes. */
  public Builder toBuilder() {
    return new Builder(proto.toBuilder());
  }

  /** The wire form, for this package's conversions. */
  Attributes proto() {
    return proto;
  }

  /** The inode number: stable for the inode's life, never reused. */
  public long inodeId() {
    return proto.getInodeId();
  }

  public FileType type() {
    return type;
  }

  public boolean isFile() {
    return type == FileType.REGULAR;
  }

  public boolean isDirectory() {
    return type == FileType.DIRECTORY;
  }

  public boolean isSymlink() {
    return type == FileType.SYMLINK;
  }

  /** A named pipe (mkfifo): its bytes pass through the kernel of the machine that opens it. */
  public boolean isFifo() {
    return type == FileType.FIFO;
  }

  /** A character device node; {@link #rdev()} names the device. */
  public boolean isCharacterDevice() {
    return type == FileType.CHARACTER_DEVICE;
  }

  /** A block device node; {@link #rdev()} names the device. */
  public boolean isBlockDevice() {
    return type == FileType.BLOCK_DEVICE;
  }

  /** A unix domain socket's name. */
  public boolean isSocket() {
    return type == FileType.SOCKET;
  }

  /**
   * A FIFO, device node or socket ({@link BraidClient#mknod}): only its inode exists in Braid, with
   * size 0 and no contents; {@link BraidClient#open} refuses it.
   */
  public boolean isSpecial() {
    return isFifo() || isCharacterDevice() || isBlockDevice() || isSocket();
  }

  /**
   * A device node's number as Linux encodes it in {@code st_rdev} (glibc's {@code makedev}); 0 for
   * every other type.
   */
  public long rdev() {
    return proto.getRdev();
  }

  /** Whether the inode has an ACL beyond its mode (getfacl's "+"; its group bits are the mask). */
  public boolean hasAcl() {
    return proto.getHasAcl();
  }

  /** Permission bits only (07777). */
  public int mode() {
    return proto.getMode();
  }

  public String user() {
    return proto.getUser();
  }

  public String group() {
    return proto.getGroup();
  }

  public int uid() {
    return proto.getUid();
  }

  public int gid() {
    return proto.getGid();
  }

  /**
   * Length in bytes: a file's committed length, a symlink's target length, 0 for a directory or a
   * special file.
   */
  public long size() {
    return proto.getSize();
  }

  /**
   * A regular file's bytes held in chunks, one replica's worth (what {@code du} counts): its
   * chunks' committed lengths summed, so a hole of whole chunks counts nothing; 0 for other types.
   */
  public long allocatedBytes() {
    return proto.getAllocatedBytes();
  }

  /** Last access, nanoseconds since the epoch. */
  public long atimeNanos() {
    return proto.getAtimeNs();
  }

  /** Last modification of the contents, nanoseconds since the epoch. */
  public long mtimeNanos() {
    return proto.getMtimeNs();
  }

  /** Last change of the inode, nanoseconds since the epoch. */
  public long ctimeNanos() {
    return proto.getCtimeNs();
  }

  public int nlink() {
    return proto.getNlink();
  }

  /** Bumped whenever existing data is invalidated (truncate, overwrite in place). */
  public long generation() {
    return proto.getGeneration();
  }

  /**
   * A regular file's layout.
   *
   * @throws IllegalStateException if this is not a regular file
   */
  public Layout layout() {
    if (!isFile()) {
      throw new IllegalStateException("inode " + inodeId() + " is not a regular file");
    }
    return toLayout(proto.getLayout());
  }

  /** A symlink's target exactly as stored; empty for other types. */
  public String symlinkTarget() {
    return proto.getSymlinkTarget();
  }

  /**
   * Hadoop's block size: the one asked at create ({@link CreateOptions#blockSize()}) if any, else
   * the file bytes covered by one chunk set; 0 if not a file.
   */
  public long blockSize() {
    return proto.getBlockSize();
  }

  static Layout toLayout(LayoutSpec s) {
    return Layout.of(s.getStripeUnit(), s.getStripeWidth(), s.getChunkSize(), s.getReplication());
  }

  static LayoutSpec toSpec(Layout l) {
    return LayoutSpec.newBuilder()
        .setStripeUnit(l.stripeUnit())
        .setStripeWidth(l.stripeWidth())
        .setChunkSize(l.chunkSize())
        .setReplication(l.replication())
        .build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FileAttributes a && a.proto.equals(proto);
  }

  @Override
  public int hashCode() {
    return proto.hashCode();
  }

  @Override
  public String toString() {
    return "FileAttributes{inode="
        + inodeId()
        + ", type="
        + type()
        + ", mode="
        + Integer.toOctalString(mode())
        + ", owner="
        + user()
        + ":"
        + group()
        + ", size="
        + size()
        + "}";
  }

  /**
   * Builds {@link FileAttributes}; each setter replaces what it set before. Nothing is checked: the
   * attributes are what the caller says.
   *
   * <p>Thread-safety: not thread-safe.
   */
  public static final class Builder {
    private final Attributes.Builder proto;

    private Builder(Attributes.Builder proto) {
      this.proto = proto;
    }

    public Builder inodeId(long inodeId) {
      proto.setInodeId(inodeId);
      return this;
    }

    /** The type; {@link FileType#UNKNOWN} is stored as no type. */
    public Builder type(FileType type) {
      proto.setType(Protos.toProto(type));
      return this;
    }

    /** Permission bits only (07777). */
    public Builder mode(int mode) {
      proto.setMode(mode);
      return this;
    }

    public Builder user(String user) {
      proto.setUser(user);
      return this;
    }

    public Builder group(String group) {
      proto.setGroup(group);
      return this;
    }

    public Builder uid(int uid) {
      proto.setUid(uid);
      return this;
    }

    public Builder gid(int gid) {
      proto.setGid(gid);
      return this;
    }

    /** Length in bytes. */
    public Builder size(long size) {
      proto.setSize(size);
      return this;
    }

    /** Bytes held in chunks, one replica's worth. */
    public Builder allocatedBytes(long bytes) {
      proto.setAllocatedBytes(bytes);
      return this;
    }

    /** Last access, nanoseconds since the epoch. */
    public Builder atimeNanos(long nanos) {
      proto.setAtimeNs(nanos);
      return this;
    }

    /** Last modification, nanoseconds since the epoch. */
    public Builder mtimeNanos(long nanos) {
      proto.setMtimeNs(nanos);
      return this;
    }

    /** Last change of the inode, nanoseconds since the epoch. */
    public Builder ctimeNanos(long nanos) {
      proto.setCtimeNs(nanos);
      return this;
    }

    public Builder nlink(int nlink) {
      proto.setNlink(nlink);
      return this;
    }

    public Builder generation(long generation) {
      proto.setGeneration(generation);
      return this;
    }

    /** A regular file's layout. */
    public Builder layout(Layout layout) {
      proto.setLayout(toSpec(layout));
      return this;
    }

    public Builder symlinkTarget(String target) {
      proto.setSymlinkTarget(target);
      return this;
    }

    /** Hadoop's block size in bytes. */
    public Builder blockSize(long bytes) {
      proto.setBlockSize(bytes);
      return this;
    }

    /** A device's number as Linux encodes it in {@code st_rdev}. */
    public Builder rdev(long rdev) {
      proto.setRdev(rdev);
      return this;
    }

    public FileAttributes build() {
      return new FileAttributes(proto.build());
    }
  }
}
