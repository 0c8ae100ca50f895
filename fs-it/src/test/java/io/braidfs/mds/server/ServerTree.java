package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.braidfs.common.rpc.RpcClient;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.mds.model.NamespaceModel;
import io.braidfs.proto.Attributes;
import io.braidfs.proto.DirEntry;
import io.braidfs.proto.FileType;
import io.braidfs.proto.GetAttrRequest;
import io.braidfs.proto.ListXattrsRequest;
import io.braidfs.proto.ReadDirRequest;
import io.braidfs.proto.ReadDirResponse;
import io.braidfs.proto.ReadLinkRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a whole namespace back over RPC, the way a client would: paged {@code ReadDir} from the
 * root down, {@code GetAttr} of every entry, {@code ReadLink} of every symlink and {@code
 * ListXattrs} of everything, into lines in the format of {@link NamespaceModel#dump()}, so a server
 * tree compares with a model tree (or with itself before and after a refused call).
 *
 * <p>Thread-safety: stateless.
 */
final class ServerTree {
  private ServerTree() {}

  /**
   * One entry of the tree as the server reports it.
   *
   * @param path the entry's absolute path
   * @param attributes from {@code GetAttr} (a symlink's own)
   * @param target from {@code ReadLink} for a symlink; null otherwise
   * @param xattrs from {@code ListXattrs}
   */
  record Entry(String path, Attributes attributes, String target, List<String> xattrs) {
    NamespaceModel.Type type() {
      return ServerTree.type(attributes.getType());
    }

    /** This entry as a line of {@link NamespaceModel#dump()}. */
    String describe() {
      boolean dir = type() == NamespaceModel.Type.DIRECTORY;
      return NamespaceModel.describe(
          path,
          type(),
          attributes.getMode(),
          dir ? 0 : attributes.getSize(),
          dir ? 0 : attributes.getNlink(),
          target,
          xattrs.toArray(new String[0]));
    }
  }

  /** The model's name for a wire file type. */
  static NamespaceModel.Type type(FileType type) {
    return switch (type) {
      case FILE_TYPE_DIRECTORY -> NamespaceModel.Type.DIRECTORY;
      case FILE_TYPE_REGULAR -> NamespaceModel.Type.FILE;
      case FILE_TYPE_SYMLINK -> NamespaceModel.Type.SYMLINK;
      // The model makes no special files (MknodRpcTest covers them), so none may appear.
      case FILE_TYPE_FIFO,
          FILE_TYPE_CHARACTER_DEVICE,
          FILE_TYPE_BLOCK_DEVICE,
          FILE_TYPE_SOCKET,
          FILE_TYPE_UNSPECIFIED,
          UNRECOGNIZED ->
          throw new AssertionError("the server reported file type " + type);
    };
  }

  /** The child's path in directory {@code dir}. */
  static String child(String dir, String name) {
    return dir.equals("/") ? "/" + name : dir + "/" + name;
  }

  /** The whole tree in {@link NamespaceModel#dump()} format, read with pages of two entries. */
  static List<String> dump(RpcClient client, InetSocketAddress at) throws IOException {
    return walk(client, at, 2).stream().map(Entry::describe).toList();
  }

  /**
   * Every entry below the root, depth first in name order (the order of {@link
   * NamespaceModel#dump()}), read with ReadDir pages of at most {@code pageSize} entries. Checks on
   * the way that each listed entry's inode id and type are those GetAttr reports.
   */
  static List<Entry> walk(RpcClient client, InetSocketAddress at, int pageSize) throws IOException {
    List<Entry> out = new ArrayList<>();
    walk(client, at, "/", pageSize, out);
    return out;
  }

  private static void walk(
      RpcClient client, InetSocketAddress at, String dir, int pageSize, List<Entry> out)
      throws IOException {
    for (DirEntry e : readDir(client, at, dir, pageSize, false)) {
      String path = child(dir, e.getName());
      Attributes a =
          client
              .callSync(at, RpcMethod.GET_ATTR, GetAttrRequest.newBuilder().setPath(path).build())
              .getAttributes();
      assertThat(a.getInodeId())
          .as("inode id of %s: ReadDir vs GetAttr", path)
          .isEqualTo(e.getInodeId());
      assertThat(a.getType()).as("type of %s: ReadDir vs GetAttr", path).isEqualTo(e.getType());
      String target = null;
      if (a.getType() == FileType.FILE_TYPE_SYMLINK) {
        target =
            client
                .callSync(
                    at, RpcMethod.READ_LINK, ReadLinkRequest.newBuilder().setPath(path).build())
                .getTarget();
      }
      List<String> xattrs =
          client
              .callSync(
                  at, RpcMethod.LIST_XATTRS, ListXattrsRequest.newBuilder().setPath(path).build())
              .getNamesList();
      out.add(new Entry(path, a, target, List.copyOf(xattrs)));
      if (a.getType() == FileType.FILE_TYPE_DIRECTORY) {
        walk(client, at, path, pageSize, out);
      }
    }
  }

  /**
   * All entries of a directory, read page by page with at most {@code pageSize} entries a page;
   * checks that pages respect the size, follow in strictly increasing name order and end.
   *
   * @throws IOException the first page's failure (a later page's failure fails the test)
   */
  static List<DirEntry> readDir(
      RpcClient client, InetSocketAddress at, String path, int pageSize, boolean namesOnly)
      throws IOException {
    List<DirEntry> all = new ArrayList<>();
    String after = "";
    for (int page = 0; ; page++) {
      ReadDirRequest request =
          ReadDirRequest.newBuilder()
              .setPath(path)
              .setStartAfter(after)
              .setMaxEntries(pageSize)
              .setNamesOnly(namesOnly)
              .build();
      ReadDirResponse r;
      if (page == 0) {
        r = client.callSync(at, RpcMethod.READ_DIR, request);
      } else {
        try {
          r = client.callSync(at, RpcMethod.READ_DIR, request);
        } catch (IOException e) {
          throw new AssertionError("ReadDir " + path + " page " + page + " failed", e);
        }
      }
      assertThat(r.getEntriesCount())
          .as("ReadDir %s page %d: at most max_entries=%d", path, page, pageSize)
          .isLessThanOrEqualTo(pageSize);
      for (DirEntry e : r.getEntriesList()) {
        assertThat(e.getName())
            .as("ReadDir %s page %d: names in increasing order after '%s'", path, page, after)
            .isGreaterThan(after);
        assertThat(e.hasAttributes())
            .as("ReadDir %s: attributes present unless names_only", path)
            .isEqualTo(!namesOnly);
        all.add(e);
        after = e.getName();
      }
      if (!r.getHasMore()) {
        return all;
      }
      assertThat(r.getEntriesCount())
          .as("ReadDir %s page %d: an empty page that claims more", path, page)
          .isPositive();
      assertThat(page).as("ReadDir %s: pages", path).isLessThan(10_000);
    }
  }
}
