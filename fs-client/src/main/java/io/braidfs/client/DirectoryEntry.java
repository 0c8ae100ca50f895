package io.braidfs.client;

import org.jspecify.annotations.Nullable;

/**
 * One entry of a directory listing.
 *
 * <p>Thread-safety: immutable.
 *
 * @param name the entry's name (one component)
 * @param inodeId the entry's inode id
 * @param type the entry's type
 * @param attributes the entry's own attributes (a symlink's, not its target's); null when the
 *     listing asked for names only
 */
public record DirectoryEntry(
    String name, long inodeId, FileType type, @Nullable FileAttributes attributes) {}
