package io.braidfs.client;

import java.util.List;

/**
 * One page of a directory listing, in byte order of the names.
 *
 * <p>Thread-safety: immutable.
 *
 * @param entries the entries
 * @param hasMore more entries follow: ask again after the last entry's name
 */
public record DirectoryPage(List<DirectoryEntry> entries, boolean hasMore) {
  public DirectoryPage {
    entries = List.copyOf(entries);
  }
}
