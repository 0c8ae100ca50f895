package io.braidfs.mds.namespace;

import io.braidfs.common.layout.Layout;
import io.braidfs.mds.store.proto.InodeRecord;
import io.braidfs.mds.store.proto.InodeType;
import io.braidfs.mds.store.proto.LayoutRecord;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.FileType;
import io.braidfs.proto.LayoutSpec;

/**
 * Conversions between the stored records (store.proto) and the wire messages (mds.proto), kept in
 * one place because the two formats evolve separately.
 *
 * <p>Thread-safety: stateless.
 */
final class Attrs {
  private Attrs() {}

  static FileType fileType(InodeType type) {
    return switch (type) {
      case INODE_TYPE_REGULAR -> FileType.FILE_TYPE_REGULAR;
      case INODE_TYPE_DIRECTORY -> FileType.FILE_TYPE_DIRECTORY;
      case INODE_TYPE_SYMLINK -> FileType.FILE_TYPE_SYMLINK;
      case INODE_TYPE_FIFO -> FileType.FILE_TYPE_FIFO;
      case INODE_TYPE_CHARACTER_DEVICE -> FileType.FILE_TYPE_CHARACTER_DEVICE;
      case INODE_TYPE_BLOCK_DEVICE -> FileType.FILE_TYPE_BLOCK_DEVICE;
      case INODE_TYPE_SOCKET -> FileType.FILE_TYPE_SOCKET;
      case INODE_TYPE_UNSPECIFIED, UNRECOGNIZED -> FileType.FILE_TYPE_UNSPECIFIED;
    };
  }

  /** The stored type of a wire type; {@code INODE_TYPE_UNSPECIFIED} for none or an unknown one. */
  static InodeType inodeType(FileType type) {
    return switch (type) {
      case FILE_TYPE_REGULAR -> InodeType.INODE_TYPE_REGULAR;
      case FILE_TYPE_DIRECTORY -> InodeType.INODE_TYPE_DIRECTORY;
      case FILE_TYPE_SYMLINK -> InodeType.INODE_TYPE_SYMLINK;
      case FILE_TYPE_FIFO -> InodeType.INODE_TYPE_FIFO;
      case FILE_TYPE_CHARACTER_DEVICE -> InodeType.INODE_TYPE_CHARACTER_DEVICE;
      case FILE_TYPE_BLOCK_DEVICE -> InodeType.INODE_TYPE_BLOCK_DEVICE;
      case FILE_TYPE_SOCKET -> InodeType.INODE_TYPE_SOCKET;
      case FILE_TYPE_UNSPECIFIED, UNRECOGNIZED -> InodeType.INODE_TYPE_UNSPECIFIED;
    };
  }

  /** The wire attributes of {@code inode}. */
  static Attributes of(Inode inode) {
    InodeRecord r = inode.record();
    Attributes.Builder a =
        Attributes.newBuilder()
            .setInodeId(inode.id())
            .setType(fileType(r.getType()))
            .setMode(r.getMode())
            .setUser(r.getUser())
            .setGroup(r.getGroup())
            .setUid(r.getUid())
            .setGid(r.getGid())
            .setSize(r.getSize())
            .setAtimeNs(r.getAtimeNs())
            .setMtimeNs(r.getMtimeNs())
            .setCtimeNs(r.getCtimeNs())
            .setNlink(r.getNlink())
            .setGeneration(r.getGeneration())
            .setSymlinkTarget(r.getSymlinkTarget())
            .setRdev(r.getRdev())
            .setHasAcl(r.getAclCount() > 0);
    if (r.getType() == InodeType.INODE_TYPE_REGULAR) {
      a.setAllocatedBytes(allocatedBytes(r));
    }
    if (r.hasLayout()) {
      LayoutRecord l = r.getLayout();
      a.setLayout(spec(l));
      // Hadoop's block: the size asked at create if any (kept exactly, so that DistCp's -pb
      // finds it again), else the span of one chunk set, the unit on one group of servers.
      a.setBlockSize(
          r.getBlockSize() != 0 ? r.getBlockSize() : l.getChunkSizeBytes() * l.getStripeWidth());
    }
    return a.build();
  }

  /**
   * A regular file's allocated bytes: its chunks' committed lengths summed. A record from before
   * {@code allocated_bytes} was kept shows its size, as it did then.
   */
  static long allocatedBytes(InodeRecord r) {
    return r.hasAllocatedBytes() ? r.getAllocatedBytes() : r.getSize();
  }

  static LayoutSpec spec(LayoutRecord l) {
    return LayoutSpec.newBuilder()
        .setStripeUnit(l.getStripeUnitBytes())
        .setStripeWidth(l.getStripeWidth())
        .setChunkSize(l.getChunkSizeBytes())
        .setReplication(l.getReplication())
        .build();
  }

  static LayoutRecord record(LayoutSpec s) {
    return LayoutRecord.newBuilder()
        .setStripeUnitBytes(s.getStripeUnit())
        .setStripeWidth(s.getStripeWidth())
        .setChunkSizeBytes(s.getChunkSize())
        .setReplication(s.getReplication())
        .build();
  }

  static LayoutRecord record(Layout l) {
    return LayoutRecord.newBuilder()
        .setStripeUnitBytes(l.stripeUnit())
        .setStripeWidth(l.stripeWidth())
        .setChunkSizeBytes(l.chunkSize())
        .setReplication(l.replication())
        .build();
  }

  static Layout layout(LayoutRecord l) {
    return Layout.of(
        l.getStripeUnitBytes(), l.getStripeWidth(), l.getChunkSizeBytes(), l.getReplication());
  }

  /** {@code over}'s non-zero fields, else {@code base}'s. */
  static LayoutRecord inherit(LayoutRecord over, LayoutRecord base) {
    return LayoutRecord.newBuilder()
        .setStripeUnitBytes(
            over.getStripeUnitBytes() != 0 ? over.getStripeUnitBytes() : base.getStripeUnitBytes())
        .setStripeWidth(over.getStripeWidth() != 0 ? over.getStripeWidth() : base.getStripeWidth())
        .setChunkSizeBytes(
            over.getChunkSizeBytes() != 0 ? over.getChunkSizeBytes() : base.getChunkSizeBytes())
        .setReplication(over.getReplication() != 0 ? over.getReplication() : base.getReplication())
        .build();
  }
}
