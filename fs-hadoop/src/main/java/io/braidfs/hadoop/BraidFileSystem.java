package io.braidfs.hadoop;

import static java.util.Objects.requireNonNull;

import io.braidfs.client.BraidClient;
import io.braidfs.client.BraidInputStream;
import io.braidfs.client.BraidOutputStream;
import io.braidfs.client.ChunkLocation;
import io.braidfs.client.ChunkLocations;
import io.braidfs.client.ChunkSetLocation;
import io.braidfs.client.CreateOptions;
import io.braidfs.client.DelegationToken;
import io.braidfs.client.DirectoryEntry;
import io.braidfs.client.DirectoryPage;
import io.braidfs.client.FileAttributes;
import io.braidfs.client.FileSystemStats;
import io.braidfs.client.LayoutPolicy;
import io.braidfs.client.RenameSemantics;
import io.braidfs.client.ReplicaLocation;
import io.braidfs.client.XattrSetMode;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.error.Status;
import io.braidfs.common.security.Security;
import io.braidfs.hadoop.HadoopErrors.Op;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.BlockStoragePolicySpi;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.CompositeCrcFileChecksum;
import org.apache.hadoop.fs.ContentSummary;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.fs.impl.PathCapabilitiesSupport;
import org.apache.hadoop.fs.permission.AclEntry;
import org.apache.hadoop.fs.permission.AclEntryScope;
import org.apache.hadoop.fs.permission.AclEntryType;
import org.apache.hadoop.fs.permission.AclStatus;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.apache.hadoop.util.DataChecksum;
import org.apache.hadoop.util.Progressable;
import org.jspecify.annotations.Nullable;

/**
 * Braid as a Hadoop {@link FileSystem}, scheme {@code braid}: {@code braid://mds-host:7400/path}.
 * Metadata goes to the MDS, data straight to the data servers, through one {@link BraidClient} per
 * instance (Hadoop caches instances per scheme, authority and user). The caller's identity is
 * Hadoop's current user and groups. Semantics follow HDFS, including its exceptions (mapped in
 * {@link HadoopErrors}) and its rename, which returns false rather than throwing when the source is
 * missing or the destination exists.
 *
 * <p>Why it is long: Hadoop's {@link FileSystem} is a broad abstract class, so every operation
 * Braid supports, and every one it refuses by name (ACLs, snapshots, storage policies), is an
 * override here, each a few lines that count statistics, qualify the path, call {@link BraidClient}
 * and map its errors; the streams, the error mapping, the settings and bulk delete are already
 * classes of their own.
 *
 * <p>Thread-safety: safe for concurrent use, as Hadoop's FileSystem cache requires; only the
 * working directory is unsynchronised per-instance state, as in every FileSystem.
 */
public class BraidFileSystem extends FileSystem implements LeaseRecoverable {
  /** The URI scheme. */
  public static final String SCHEME = "braid";

  static {
    // Binds FileContext to BraidFs with no configuration, as HDFS adds hdfs-default.xml: loading
    // this class (Hadoop does, through META-INF/services) makes it a default resource.
    Configuration.addDefaultResource("braid-default.xml");
  }

  /** Entries per listing page: big enough to amortise a round trip, small enough to stream. */
  private static final int LIST_PAGE = 1000;

  /** Entries per listing call; tests lower it to exercise paging. */
  int listPage = LIST_PAGE;

  private URI uri;
  private BraidConfig config;
  private BraidClient client;
  private Path workingDir;
  private ExecutorService parallel;
  private long defaultBlockSize;
  private short defaultReplication;

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
    BraidConfig config;
    try {
      config = HadoopSettings.toBraidConfig(name, conf);
    } catch (IllegalArgumentException e) {
      throw new IOException("braid: " + e.getMessage(), e);
    }
    this.uri = URI.create(SCHEME + "://" + name.getAuthority());
    this.config = config;
    UserGroupInformation ugi = UserGroupInformation.getCurrentUser();
    BraidClient.Builder b =
        BraidClient.builder(config)
            .user(ugi.getShortUserName())
            .groups(Arrays.asList(ugi.getGroupNames()))
            .name("hadoop " + uri);
    String service = getCanonicalServiceName();
    Token<? extends TokenIdentifier> token =
        service == null ? null : ugi.getCredentials().getToken(new Text(service));
    if (token != null && BraidTokenIdentifier.KIND.equals(token.getKind())) {
      // A job's task: the token its submitter collected stands in for a Kerberos ticket. Looked
      // up again at each connection, so a token the job replaces (Spark's renewal) is used.
      Text key = new Text(service);
      DelegationToken first = new DelegationToken(token.getIdentifier(), token.getPassword(), 0);
      b.delegationTokens(
          () -> {
            Token<? extends TokenIdentifier> now = ugi.getCredentials().getToken(key);
            return now == null || !BraidTokenIdentifier.KIND.equals(now.getKind())
                ? first
                : new DelegationToken(now.getIdentifier(), now.getPassword(), 0);
          });
    }
    this.client = b.build();
    LayoutPolicy defaults = client.serverDefaults().defaultLayout();
    this.defaultBlockSize = defaults.chunkSize() * defaults.stripeWidth();
    this.defaultReplication = (short) defaults.replication();
    this.parallel = parallelPool(uri);
    this.workingDir = getHomeDirectory();
  }

  /**
   * Threads for calls issued together (vectored read ranges, bulk deletes): each waits on one call,
   * so the data path and the MDS's group commit overlap them.
   */
  private static ExecutorService parallelPool(URI uri) {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            16,
            16,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "braid-parallel-" + n.incrementAndGet() + " " + uri);
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  @Override
  public URI getUri() {
    return uri;
  }

  @Override
  protected int getDefaultPort() {
    return HadoopSettings.DEFAULT_PORT;
  }

  @Override
  public @Nullable String getCanonicalServiceName() {
    // Only a Kerberos cluster issues tokens; computed without a call, as tasks look their token up
    // before they connect. "braid:" and the URI's authority, as HDFS's "ha-hdfs:<nameservice>".
    return Security.kerberos(config) ? SCHEME + ":" + uri.getAuthority() : null;
  }

  /**
   * A delegation token for this file system's user (who must have authenticated with Kerberos), for
   * a job's tasks; Hadoop's {@code addDelegationTokens} files it under {@link
   * #getCanonicalServiceName}.
   *
   * @param renewer who may renew it (a principal or a short name); null or empty for this user
   */
  @Override
  public @Nullable Token<BraidTokenIdentifier> getDelegationToken(@Nullable String renewer)
      throws IOException {
    String service = getCanonicalServiceName();
    if (service == null) {
      return null; // simple authentication: tasks need no token
    }
    DelegationToken t;
    try {
      t =
          client.getDelegationToken(
              renewer == null || renewer.isEmpty() ? "" : Security.shortUserName(config, renewer));
    } catch (IOException e) {
      throw HadoopErrors.translate(e, HadoopErrors.Op.PATH);
    } catch (IllegalArgumentException e) {
      throw new IOException("braid: renewer " + renewer + ": " + e.getMessage(), e);
    }
    return new Token<>(t.identifier(), t.password(), BraidTokenIdentifier.KIND, new Text(service));
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDir;
  }

  @Override
  public void setWorkingDirectory(Path dir) {
    workingDir = makeQualified(dir);
  }

  @Override
  public long getDefaultBlockSize() {
    return defaultBlockSize;
  }

  @Override
  public short getDefaultReplication() {
    return defaultReplication;
  }

  /** The client this file system talks through (for tests and tools). */
  public BraidClient client() {
    return client;
  }

  // ---- reading ---------------------------------------------------------------------------------

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    statistics.incrementReadOps(1);
    BraidInputStream in;
    try {
      in = client.open(pathOf(f));
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.OPEN);
    }
    return new FSDataInputStream(new BraidFsInputStream(in, statistics, parallel));
  }

  // ---- writing ---------------------------------------------------------------------------------

  @Override
  public FSDataOutputStream create(
      Path f,
      FsPermission permission,
      boolean overwrite,
      int bufferSize,
      short replication,
      long blockSize,
      @Nullable Progressable progress)
      throws IOException {
    return create(f, permission, overwrite, true, replication, blockSize, progress);
  }

  @Override
  public FSDataOutputStream createNonRecursive(
      Path f,
      FsPermission permission,
      EnumSet<CreateFlag> flags,
      int bufferSize,
      short replication,
      long blockSize,
      @Nullable Progressable progress)
      throws IOException {
    if (flags.contains(CreateFlag.APPEND)) {
      try {
        return append(f, bufferSize, progress);
      } catch (FileNotFoundException e) {
        if (!flags.contains(CreateFlag.CREATE)) {
          throw e;
        }
      }
    }
    return create(
        f,
        permission,
        flags.contains(CreateFlag.OVERWRITE),
        false,
        replication,
        blockSize,
        progress);
  }

  private FSDataOutputStream create(
      Path f,
      FsPermission permission,
      boolean overwrite,
      boolean createParents,
      short replication,
      long blockSize,
      @Nullable Progressable progress)
      throws IOException {
    statistics.incrementWriteOps(1);
    String path = pathOf(f);
    CreateOptions options =
        CreateOptions.defaults()
            .withMode(permission.toShort() & 07777)
            .withOverwrite(overwrite)
            .withCreateParents(createParents)
            .withLayout(layoutFor(path, replication, blockSize))
            // Kept with the file and reported exactly, though the layout's chunk set may span a
            // little less (whole stripe units times the width): DistCp -pb compares block sizes.
            .withBlockSize(blockSize > 0 && blockSize != defaultBlockSize ? blockSize : 0);
    BraidOutputStream out;
    try {
      out = client.create(path, options);
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.CREATE);
    }
    return new FSDataOutputStream(new BraidFsOutputStream(out, progress), statistics);
  }

  /**
   * The per-file layout that comes nearest Hadoop's replication and block size; fields left 0
   * inherit the directory's policy. A block is one chunk set, so a block size sets the chunk size
   * to the block divided by the stripe width the file would get, in whole stripe units (the file
   * still reports the block size asked, see {@link CreateOptions#blockSize()}).
   */
  private LayoutPolicy layoutFor(String path, short replication, long blockSize)
      throws IOException {
    LayoutPolicy b = LayoutPolicy.inherit();
    if (replication > 0 && replication != defaultReplication) {
      b = b.withReplication(replication);
    }
    if (blockSize > 0 && blockSize != defaultBlockSize) {
      LayoutPolicy effective = effectiveLayout(path);
      long unit = effective.stripeUnit();
      long chunk = blockSize / Math.max(1, effective.stripeWidth()) / unit * unit;
      b = b.withChunkSize(Math.max(unit, chunk));
    }
    return b;
  }

  /** The layout a new file at {@code path} would get from its nearest existing ancestor. */
  private LayoutPolicy effectiveLayout(String path) throws IOException {
    String dir = parentOf(path);
    while (true) {
      try {
        return client.layoutPolicy(dir).effective();
      } catch (IOException e) {
        if (!HadoopErrors.is(e, Status.NOT_FOUND) || dir.equals("/")) {
          throw HadoopErrors.translate(e, Op.CREATE);
        }
        dir = parentOf(dir); // parents will be created: they inherit from above
      }
    }
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, @Nullable Progressable progress)
      throws IOException {
    statistics.incrementWriteOps(1);
    BraidOutputStream out;
    try {
      out = client.append(pathOf(f));
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.OPEN);
    }
    return new FSDataOutputStream(new BraidFsOutputStream(out, progress), statistics, out.getPos());
  }

  @Override
  public boolean truncate(Path f, long newLength) throws IOException {
    statistics.incrementWriteOps(1);
    try {
      client.truncate(pathOf(f), newLength);
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.PATH);
    }
    return true; // done at once: no block recovery to wait for
  }

  @Override
  public void concat(Path trg, Path[] psrcs) throws IOException {
    statistics.incrementWriteOps(1);
    List<String> sources = new ArrayList<>(psrcs.length);
    for (Path p : psrcs) {
      sources.add(pathOf(p));
    }
    try {
      client.concat(pathOf(trg), sources);
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.PATH);
    }
  }

  // ---- namespace -------------------------------------------------------------------------------

  /**
   * HDFS's rename: a missing source or an existing destination file gives false; an existing
   * destination directory receives the source inside it.
   */
  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    statistics.incrementWriteOps(1);
    String from = pathOf(src);
    String to = pathOf(dst);
    if (from.equals("/")) {
      return false; // the root cannot move
    }
    try {
      client.rename(from, to, RenameSemantics.HADOOP, false, false);
      return true;
    } catch (IOException e) {
      if (HadoopErrors.is(e, Status.NOT_FOUND)
          || HadoopErrors.is(e, Status.ALREADY_EXISTS)
          || HadoopErrors.is(e, Status.NOT_DIRECTORY)) {
        return false;
      }
      throw HadoopErrors.translate(e, Op.PATH);
    }
  }

  /**
   * FileContext's rename (and FileSystem's with options): POSIX semantics, atomically; without
   * {@link Options.Rename#OVERWRITE} an existing destination is refused.
   */
  @Override
  protected void rename(Path src, Path dst, Options.Rename... options) throws IOException {
    statistics.incrementWriteOps(1);
    boolean overwrite = Arrays.asList(options).contains(Options.Rename.OVERWRITE);
    try {
      client.rename(pathOf(src), pathOf(dst), RenameSemantics.POSIX, !overwrite, false);
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.PATH);
    }
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    statistics.incrementWriteOps(1);
    String path = pathOf(f);
    if (path.equals("/")) {
      return deleteRoot(recursive);
    }
    try {
      client.delete(path, recursive);
      return true;
    } catch (IOException e) {
      if (HadoopErrors.is(e, Status.NOT_FOUND)) {
        return false;
      }
      throw HadoopErrors.translate(e, Op.PATH);
    }
  }

  /**
   * As HDFS: the root is never deleted, so this returns false, but a non-recursive delete of a
   * non-empty root still says why it would have failed.
   */
  private boolean deleteRoot(boolean recursive) throws IOException {
    if (!recursive) {
      DirectoryPage children;
      try {
        children = client.list("/", "", 1, true);
      } catch (IOException e) {
        throw HadoopErrors.translate(e, Op.PATH);
      }
      if (!children.entries().isEmpty()) {
        throw new PathIsNotEmptyDirectoryException("delete /: the root directory is not empty");
      }
    }
    return false;
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    statistics.incrementWriteOps(1);
    try {
      client.mkdirs(pathOf(f), permission.toShort() & 07777);
      return true;
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.CREATE);
    }
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    statistics.incrementReadOps(1);
    Path q = makeQualified(f);
    return HadoopErrors.call(Op.PATH, () -> toStatus(client.stat(pathOf(q)), q));
  }

  @Override
  public FileStatus getFileLinkStatus(Path f) throws IOException {
    statistics.incrementReadOps(1);
    Path q = makeQualified(f);
    return HadoopErrors.call(Op.PATH, () -> toStatus(client.lstat(pathOf(q)), q));
  }

  @Override
  public boolean supportsSymlinks() {
    return true;
  }

  @Override
  public void createSymlink(Path target, Path link, boolean createParent) throws IOException {
    statistics.incrementWriteOps(1);
    // A qualified target must be on this file system; a relative one stays relative.
    String t = target.toUri().getScheme() != null ? pathOf(target) : target.toUri().getPath();
    HadoopErrors.run(Op.CREATE, () -> client.symlink(t, pathOf(link), createParent));
  }

  @Override
  public Path getLinkTarget(Path f) throws IOException {
    statistics.incrementReadOps(1);
    return HadoopErrors.call(Op.PATH, () -> new Path(client.readLink(pathOf(f))));
  }

  @Override
  protected Path resolveLink(Path f) throws IOException {
    return getLinkTarget(f);
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    List<FileStatus> all = new ArrayList<>();
    RemoteIterator<FileStatus> it = listStatusIterator(f);
    while (it.hasNext()) {
      all.add(it.next());
    }
    return all.toArray(new FileStatus[0]);
  }

  /**
   * Pages through a directory, {@value #LIST_PAGE} entries per MDS call, so a huge directory
   * streams; each page is consistent, the whole listing is not (as HDFS). A file lists as itself.
   */
  @Override
  public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
    Path dir = makeQualified(f);
    String path = pathOf(dir);
    DirectoryPage first;
    statistics.incrementReadOps(1);
    try {
      first = client.list(path, "", listPage, false);
    } catch (IOException e) {
      if (HadoopErrors.is(e, Status.NOT_DIRECTORY)) {
        // listStatus(file) is [status(file)]; the path may also run through a file (then FNF).
        FileStatus self = getFileStatus(dir);
        if (!self.isDirectory()) {
          return singleton(self);
        }
      }
      throw HadoopErrors.translate(e, Op.PATH);
    }
    return new Listing(dir, path, first);
  }

  private static RemoteIterator<FileStatus> singleton(FileStatus s) {
    return new RemoteIterator<>() {
      private boolean done;

      @Override
      public boolean hasNext() {
        return !done;
      }

      @Override
      public FileStatus next() {
        if (done) {
          throw new NoSuchElementException();
        }
        done = true;
        return s;
      }
    };
  }

  /** A paged listing: the next page is fetched after the last entry of the current one. */
  private final class Listing implements RemoteIterator<FileStatus> {
    private final Path dir;
    private final String path;
    private DirectoryPage page;
    private int next;

    Listing(Path dir, String path, DirectoryPage first) {
      this.dir = dir;
      this.path = path;
      this.page = first;
    }

    @Override
    public boolean hasNext() throws IOException {
      while (next == page.entries().size()) {
        if (!page.hasMore() || page.entries().isEmpty()) {
          return false;
        }
        String after = page.entries().get(page.entries().size() - 1).name();
        statistics.incrementReadOps(1);
        statistics.incrementLargeReadOps(1);
        try {
          page = client.list(path, after, listPage, false);
        } catch (IOException e) {
          throw HadoopErrors.translate(e, Op.PATH);
        }
        next = 0;
      }
      return true;
    }

    @Override
    public FileStatus next() throws IOException {
      if (!hasNext()) {
        throw new NoSuchElementException("no more entries in " + dir);
      }
      DirectoryEntry e = page.entries().get(next++);
      FileAttributes a = e.attributes();
      if (a == null) {
        throw new IllegalStateException("listing of " + path + " came without attributes");
      }
      return toStatus(a, new Path(dir, e.name()));
    }
  }

  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    statistics.incrementWriteOps(1);
    try {
      client.setPermission(pathOf(p), permission.toShort() & 07777);
    } catch (IOException e) {
      throw HadoopErrors.translate(e, Op.PATH);
    }
  }

  /**
   * Asks the MDS, which answers with the check every call makes: the superuser and supergroup pass
   * (execute on a file still needs an x bit), and search is needed on every directory on the way.
   * Hadoop's default decides from the file status alone and knows no superuser. A refusal is an
   * {@link org.apache.hadoop.security.AccessControlException}, a missing path a {@link
   * FileNotFoundException}, as with HDFS.
   */
  @Override
  public void access(Path path, FsAction mode) throws IOException {
    statistics.incrementReadOps(1);
    int mask =
        (mode.implies(FsAction.READ) ? 4 : 0)
            | (mode.implies(FsAction.WRITE) ? 2 : 0)
            | (mode.implies(FsAction.EXECUTE) ? 1 : 0);
    HadoopErrors.run(Op.PATH, () -> client.access(pathOf(path), mask));
  }

  @Override
  public void setOwner(Path p, @Nullable String username, @Nullable String groupname)
      throws IOException {
    statistics.incrementWriteOps(1);
    HadoopErrors.run(Op.PATH, () -> client.setOwner(pathOf(p), username, groupname));
  }

  /** Times in milliseconds; -1 leaves one unchanged, as the specification says. */
  @Override
  public void setTimes(Path p, long mtime, long atime) throws IOException {
    statistics.incrementWriteOps(1);
    HadoopErrors.run(
        Op.PATH,
        () ->
            client.setTimes(
                pathOf(p),
                mtime < 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(mtime),
                atime < 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(atime)));
  }

  /**
   * Sets a file's replication, as HDFS does: the file's status reports it at once, and the MDS
   * copies chunks to further data servers (or removes extra replicas) in the background, after
   * which {@link #getFileBlockLocations} names the new replicas; a file open for writing gets it
   * when closed.
   *
   * @return true for a file; false for a directory, which has no replication (as HDFS)
   * @throws FileNotFoundException if {@code src} does not exist
   * @throws org.apache.hadoop.security.AccessControlException without write access to the file
   * @throws IOException a replication below 1, above the cluster's maximum or above the number of
   *     live data servers
   */
  @Override
  public boolean setReplication(Path src, short replication) throws IOException {
    statistics.incrementWriteOps(1);
    return HadoopErrors.call(Op.PATH, () -> client.setReplication(pathOf(src), replication));
  }

  @Override
  public ContentSummary getContentSummary(Path f) throws IOException {
    statistics.incrementReadOps(1);
    io.braidfs.client.ContentSummary r =
        HadoopErrors.call(Op.PATH, () -> client.contentSummary(pathOf(f)));
    return new ContentSummary.Builder()
        .length(r.length())
        .fileCount(r.fileCount())
        .directoryCount(r.directoryCount())
        .spaceConsumed(r.spaceConsumed())
        .quota(-1)
        .spaceQuota(-1)
        .build();
  }

  /**
   * Raw capacity, used and remaining bytes, every replica counted, as HDFS's {@code getStatus}
   * reports them (so {@code hadoop fs -df} reads as it does on HDFS, beside {@code -du}'s space
   * consumed, which counts replicas too); a disk several data servers share counts once.
   */
  @Override
  public FsStatus getStatus(@Nullable Path p) throws IOException {
    statistics.incrementReadOps(1);
    FileSystemStats r = HadoopErrors.call(Op.PATH, () -> client.statFs());
    return new FsStatus(r.rawCapacityBytes(), r.rawUsedBytes(), r.rawAvailableBytes());
  }

  // ---- checksums -------------------------------------------------------------------------------

  /**
   * HDFS's COMPOSITE-CRC32C: the CRC32C of the whole file, composed by the client from the CRCs the
   * data servers keep beside each replica (no data is read). It depends only on the bytes, so it
   * matches across layouts, and HDFS's own composite CRC of the same bytes: DistCp can compare.
   */
  @Override
  public FileChecksum getFileChecksum(Path f) throws IOException {
    statistics.incrementReadOps(1);
    io.braidfs.client.FileChecksum c = HadoopErrors.call(Op.OPEN, () -> client.checksum(pathOf(f)));
    return new CompositeCrcFileChecksum(
        c.crc32c(), DataChecksum.Type.CRC32C, client.serverDefaults().checksumBlockSize());
  }

  /** The checksum of the first {@code length} bytes: only whole files are supported (else null). */
  @Override
  public @Nullable FileChecksum getFileChecksum(Path f, long length) throws IOException {
    if (length < getFileStatus(f).getLen()) {
      return null;
    }
    return getFileChecksum(f);
  }

  // ---- locality --------------------------------------------------------------------------------

  /**
   * One location per chunk set (a block of the layout) overlapping the range, naming every data
   * server holding a replica of one of its chunks, those holding the most chunks first: a task
   * placed there reads most of its split locally. Names ({@code host:port}), hosts and topology
   * paths ({@code /rack/host:port}) have one entry per data server, in the same order, as HDFS's.
   */
  @Override
  public BlockLocation @Nullable [] getFileBlockLocations(
      @Nullable FileStatus file, long start, long len) throws IOException {
    if (file == null) {
      return null;
    }
    if (start < 0 || len < 0) {
      throw new IllegalArgumentException(
          "getFileBlockLocations " + file.getPath() + ": negative start or length");
    }
    if (!file.isFile() || start >= file.getLen() || len == 0) {
      return new BlockLocation[0];
    }
    statistics.incrementReadOps(1);
    ChunkLocations r =
        HadoopErrors.call(Op.PATH, () -> client.locations(pathOf(file.getPath()), start, len));
    // A location covers one chunk set, whose span need not be the block size the file reports.
    LayoutPolicy layout = r.layout();
    long span =
        layout.chunkSize() > 0
            ? layout.chunkSize() * Math.max(1, layout.stripeWidth())
            : file.getBlockSize() > 0 ? file.getBlockSize() : defaultBlockSize;
    long fileLength = Math.max(r.fileLength(), file.getLen());
    List<BlockLocation> out = new ArrayList<>(r.chunkSets().size());
    for (ChunkSetLocation set : r.chunkSets()) {
      long offset = set.fileOffset();
      long length = Math.min(span, fileLength - offset);
      if (length <= 0) {
        continue;
      }
      Map<String, Integer> held = new LinkedHashMap<>();
      Map<String, String> racks = new TreeMap<>();
      for (ChunkLocation chunk : set.chunks()) {
        for (ReplicaLocation replica : chunk.replicas()) {
          String name = replica.host() + ":" + replica.port();
          held.merge(name, 1, Integer::sum);
          racks.put(name, replica.rack().isEmpty() ? "/default-rack" : replica.rack());
        }
      }
      List<String> names = new ArrayList<>(held.keySet());
      // Most replicas first; every name is a key of held.
      names.sort((a, b) -> requireNonNull(held.get(b)) - requireNonNull(held.get(a)));
      // One entry per replica in all three arrays, index for index, as HDFS gives them: callers
      // such as CombineFileInputFormat pair hosts[i] with topologyPaths[i]. Data servers sharing a
      // host name repeat it, as DataNodes on one machine do.
      String[] hosts = new String[names.size()];
      String[] topology = new String[names.size()];
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        hosts[i] = name.substring(0, name.lastIndexOf(':'));
        topology[i] = racks.get(name) + "/" + name;
      }
      out.add(new BlockLocation(names.toArray(new String[0]), hosts, topology, offset, length));
    }
    return out.toArray(new BlockLocation[0]);
  }

  // ---- extended attributes ---------------------------------------------------------------------

  @Override
  public void setXAttr(Path path, String name, byte[] value, EnumSet<XAttrSetFlag> flag)
      throws IOException {
    statistics.incrementWriteOps(1);
    boolean create = flag.contains(XAttrSetFlag.CREATE);
    boolean replace = flag.contains(XAttrSetFlag.REPLACE);
    XattrSetMode mode =
        create == replace
            ? XattrSetMode.CREATE_OR_REPLACE
            : create ? XattrSetMode.CREATE : XattrSetMode.REPLACE;
    HadoopErrors.run(Op.PATH, () -> client.setXattr(pathOf(path), name, value, mode));
  }

  @Override
  public byte[] getXAttr(Path path, String name) throws IOException {
    statistics.incrementReadOps(1);
    Optional<byte[]> value = HadoopErrors.call(Op.PATH, () -> client.getXattr(pathOf(path), name));
    return value.orElseThrow(
        () -> new IOException("getXAttr " + path + ": no attribute named " + name));
  }

  @Override
  public Map<String, byte[]> getXAttrs(Path path) throws IOException {
    return getXAttrs(path, listXAttrs(path));
  }

  @Override
  public Map<String, byte[]> getXAttrs(Path path, List<String> names) throws IOException {
    Map<String, byte[]> values = new TreeMap<>();
    for (String name : names) {
      statistics.incrementReadOps(1);
      HadoopErrors.run(
          Op.PATH, () -> client.getXattr(pathOf(path), name).ifPresent(v -> values.put(name, v)));
    }
    return values;
  }

  @Override
  public List<String> listXAttrs(Path path) throws IOException {
    statistics.incrementReadOps(1);
    return HadoopErrors.call(Op.PATH, () -> client.listXattrs(pathOf(path)));
  }

  @Override
  public void removeXAttr(Path path, String name) throws IOException {
    statistics.incrementWriteOps(1);
    HadoopErrors.run(Op.PATH, () -> client.removeXattr(pathOf(path), name));
  }

  @Override
  public BulkDelete createBulkDelete(Path path) throws IOException {
    return new BraidBulkDelete(client, makeQualified(path), parallel);
  }

  // ---- ACLs -------------------------------------------------------------------------------------

  @Override
  public void modifyAclEntries(Path path, List<AclEntry> aclSpec) throws IOException {
    changeAcl(path, io.braidfs.client.AclChange.MODIFY, aclSpec);
  }

  @Override
  public void removeAclEntries(Path path, List<AclEntry> aclSpec) throws IOException {
    changeAcl(path, io.braidfs.client.AclChange.REMOVE_ENTRIES, aclSpec);
  }

  @Override
  public void removeDefaultAcl(Path path) throws IOException {
    changeAcl(path, io.braidfs.client.AclChange.REMOVE_DEFAULT, List.of());
  }

  @Override
  public void removeAcl(Path path) throws IOException {
    changeAcl(path, io.braidfs.client.AclChange.REMOVE, List.of());
  }

  @Override
  public void setAcl(Path path, List<AclEntry> aclSpec) throws IOException {
    changeAcl(path, io.braidfs.client.AclChange.SET, aclSpec);
  }

  @Override
  public AclStatus getAclStatus(Path path) throws IOException {
    io.braidfs.client.AclStatus s;
    try {
      s = client.getAcl(pathOf(path));
    } catch (IOException e) {
      throw HadoopErrors.translate(e, HadoopErrors.Op.PATH);
    }
    List<AclEntry> entries = new ArrayList<>();
    for (io.braidfs.common.acl.AclEntry e : s.entries()) {
      AclEntry.Builder b =
          new AclEntry.Builder()
              .setScope(e.defaultScope() ? AclEntryScope.DEFAULT : AclEntryScope.ACCESS)
              .setType(AclEntryType.valueOf(e.type().name()))
              .setPermission(FsAction.values()[e.permission()]);
      if (!e.name().isEmpty()) {
        b.setName(e.name());
      }
      entries.add(b.build());
    }
    FsPermission permission = new FsPermission((short) (s.mode() & 07777));
    return new AclStatus.Builder()
        .owner(s.owner())
        .group(s.group())
        .stickyBit(permission.getStickyBit())
        .setPermission(permission)
        .addEntries(entries)
        .build();
  }

  private void changeAcl(Path path, io.braidfs.client.AclChange change, List<AclEntry> spec)
      throws IOException {
    List<io.braidfs.common.acl.AclEntry> entries = new ArrayList<>(spec.size());
    for (AclEntry e : spec) {
      entries.add(
          new io.braidfs.common.acl.AclEntry(
              e.getScope() == AclEntryScope.DEFAULT,
              io.braidfs.common.acl.AclEntry.Type.valueOf(e.getType().name()),
              e.getName() == null ? "" : e.getName(),
              e.getPermission() == null ? 0 : e.getPermission().ordinal()));
    }
    try {
      client.setAcl(pathOf(path), change, entries);
    } catch (IOException e) {
      throw HadoopErrors.translate(e, HadoopErrors.Op.PATH);
    }
  }

  // ---- what Braid does not have ----------------------------------------------------------------

  private static final String SNAPSHOTS = "snapshots";
  private static final String STORAGE_POLICIES = "storage policies";

  /** The refusal of {@code op} on {@code path} (the file system itself if null). */
  private IOException unsupported(String op, @Nullable Path path, String feature) {
    return HadoopErrors.unsupported(
        op, path == null ? uri.toString() : makeQualified(path).toString(), feature);
  }

  @Override
  public Path createSnapshot(Path path, @Nullable String snapshotName) throws IOException {
    throw unsupported("createSnapshot", path, SNAPSHOTS);
  }

  @Override
  public void renameSnapshot(Path path, String snapshotOldName, String snapshotNewName)
      throws IOException {
    throw unsupported("renameSnapshot", path, SNAPSHOTS);
  }

  @Override
  public void deleteSnapshot(Path path, String snapshotName) throws IOException {
    throw unsupported("deleteSnapshot", path, SNAPSHOTS);
  }

  @Override
  public void setStoragePolicy(Path src, String policyName) throws IOException {
    throw unsupported("setStoragePolicy", src, STORAGE_POLICIES);
  }

  @Override
  public void unsetStoragePolicy(Path src) throws IOException {
    throw unsupported("unsetStoragePolicy", src, STORAGE_POLICIES);
  }

  @Override
  public BlockStoragePolicySpi getStoragePolicy(Path src) throws IOException {
    throw unsupported("getStoragePolicy", src, STORAGE_POLICIES);
  }

  @Override
  public void satisfyStoragePolicy(Path path) throws IOException {
    throw unsupported("satisfyStoragePolicy", path, STORAGE_POLICIES);
  }

  @Override
  public Collection<? extends BlockStoragePolicySpi> getAllStoragePolicies() throws IOException {
    throw unsupported("getAllStoragePolicies", null, STORAGE_POLICIES);
  }

  // ---- leases ----------------------------------------------------------------------------------

  @Override
  public boolean recoverLease(Path file) throws IOException {
    statistics.incrementWriteOps(1);
    return HadoopErrors.call(Op.OPEN, () -> client.recoverLease(pathOf(file)));
  }

  @Override
  public boolean isFileClosed(Path file) throws IOException {
    statistics.incrementReadOps(1);
    return HadoopErrors.call(
        Op.OPEN, () -> !client.locations(pathOf(file), 0, 1).underConstruction());
  }

  // ---- capabilities and lifecycle --------------------------------------------------------------

  @Override
  public boolean hasPathCapability(Path path, String capability) throws IOException {
    return switch (PathCapabilitiesSupport.validatePathCapabilityArgs(
        makeQualified(path), capability)) {
      case CommonPathCapabilities.FS_APPEND,
          CommonPathCapabilities.FS_CONCAT,
          CommonPathCapabilities.FS_PERMISSIONS,
          CommonPathCapabilities.FS_XATTRS,
          CommonPathCapabilities.FS_SYMLINKS,
          CommonPathCapabilities.FS_TRUNCATE,
          CommonPathCapabilities.FS_CHECKSUMS,
          CommonPathCapabilities.LEASE_RECOVERABLE ->
          true;
      case CommonPathCapabilities.FS_ACLS -> true;
      // Braid has no snapshots.
      case CommonPathCapabilities.FS_SNAPSHOTS -> false;
      default -> super.hasPathCapability(path, capability);
    };
  }

  @Override
  public void close() throws IOException {
    try {
      super.close(); // deletes deleteOnExit paths while the client still works
    } finally {
      if (parallel != null) {
        parallel.shutdownNow();
      }
      if (client != null) {
        client.close();
      }
    }
  }

  @Override
  public String toString() {
    return "BraidFileSystem{" + uri + ", user " + (client == null ? "?" : client.user()) + "}";
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** The absolute Braid path of {@code p}, resolved against the working directory. */
  private String pathOf(Path p) {
    Path q = makeQualified(p); // throws IllegalArgumentException for another file system
    String path = q.toUri().getPath();
    return path.isEmpty() ? "/" : path;
  }

  private static String parentOf(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  private FileStatus toStatus(FileAttributes a, Path qualified) throws IOException {
    boolean file = a.isFile();
    return new FileStatus(
        file ? a.size() : 0,
        a.isDirectory(),
        file ? a.layout().replication() : 0,
        file ? a.blockSize() : 0,
        TimeUnit.NANOSECONDS.toMillis(a.mtimeNanos()),
        TimeUnit.NANOSECONDS.toMillis(a.atimeNanos()),
        new FsPermission((short) (a.mode() & 07777)),
        a.user(),
        a.group(),
        a.isSymlink() ? new Path(a.symlinkTarget()) : null,
        qualified,
        a.hasAcl(),
        false,
        false);
  }
}
