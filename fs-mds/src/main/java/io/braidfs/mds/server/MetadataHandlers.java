package io.braidfs.mds.server;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusException;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.rpc.RpcOptions;
import io.braidfs.common.rpc.RpcServer;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.mds.access.Caller;
import io.braidfs.mds.namespace.Client;
import io.braidfs.mds.namespace.FileConcat;
import io.braidfs.mds.namespace.FileWrites;
import io.braidfs.mds.namespace.NamespaceReads;
import io.braidfs.mds.namespace.NamespaceWrites;
import io.braidfs.mds.namespace.Replication;
import io.braidfs.mds.store.CachedMetadataStore.CacheMiss;
import io.braidfs.mds.store.StoreView;
import io.braidfs.proto.ReportBadReplicaResponse;
import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds every MetadataService method to the namespace: read-only operations on the read pool
 * (concurrently), mutations through the {@link MutationRunner} on the single mutation thread. With
 * the in-memory cache on ({@code braid.mds.store.cache-entries}), Lookup and GetAttr first try to
 * answer from the cache alone on the event loop, and go to the read pool only when they would read
 * RocksDB ({@link CacheMiss}); no other handler runs on an event loop, because every other one
 * touches RocksDB.
 *
 * <p>Thread-safety: immutable once registered.
 */
final class MetadataHandlers {
  private static final Logger LOG = LoggerFactory.getLogger(MetadataHandlers.class);

  private final NamespaceReads reads;
  private final NamespaceWrites writes;
  private final FileWrites files;
  private final FileConcat concat;
  private final Replication replication;
  private final MutationRunner runner;
  private final Audit audit;
  private final RpcOptions rpc;
  private final @Nullable StoreView cache;

  private final java.util.function.Consumer<java.util.List<io.braidfs.mds.cluster.ChunkRef>> repair;
  private final io.braidfs.mds.namespace.ChunkReports reports;

  MetadataHandlers(
      NamespaceReads reads,
      NamespaceWrites writes,
      FileWrites files,
      FileConcat concat,
      Replication replication,
      MutationRunner runner,
      Audit audit,
      RpcOptions rpc,
      @Nullable StoreView cache,
      java.util.function.Consumer<java.util.List<io.braidfs.mds.cluster.ChunkRef>> repair,
      io.braidfs.mds.namespace.ChunkReports reports) {
    this.repair = repair;
    this.reports = reports;
    this.reads = reads;
    this.writes = writes;
    this.files = files;
    this.concat = concat;
    this.replication = replication;
    this.runner = runner;
    this.audit = audit;
    this.rpc = rpc;
    this.cache = cache;
  }

  /** A read answered from memory or from the store. */
  @FunctionalInterface
  private interface Read {
    void run() throws IOException;
  }

  /**
   * Runs {@code fromCache} here, on the event loop; if it needs the store ({@link CacheMiss}), runs
   * {@code fromStore} on {@code readPool} instead. Only for reads without a request payload (the
   * payload is released when the inline handler returns).
   */
  private void cacheFirst(ServerCall<?, ?> call, Executor readPool, Read fromCache, Read fromStore)
      throws IOException {
    try {
      fromCache.run();
      return;
    } catch (CacheMiss miss) {
      // Not all in memory: read RocksDB, off the event loop.
    }
    try {
      readPool.execute(() -> answer(call, fromStore));
    } catch (RejectedExecutionException e) {
      call.fail(Status.NOT_LEADER, call.method() + ": the MDS is stopping");
    }
  }

  /** Runs {@code read} and answers its failure, as {@code RpcServer} does for a handler. */
  private static void answer(ServerCall<?, ?> call, Read read) {
    try {
      read.run();
    } catch (IOException | RuntimeException e) {
      if (e instanceof StatusException se) {
        call.fail(se.status(), String.valueOf(e.getMessage()));
      } else {
        LOG.warn("{} failed", call, e);
        call.fail(Status.INTERNAL, call.method() + " failed: " + e);
      }
    }
  }

  void register(RpcServer.Builder b, Executor readPool, Executor mutationThread) {
    if (cache == null) {
      b.handle(
          RpcMethod.LOOKUP,
          c -> c.reply(reads.lookup(Caller.of(c.caller()), c.request())),
          readPool);
      b.handle(
          RpcMethod.GET_ATTR,
          c -> c.reply(reads.getAttr(Caller.of(c.caller()), c.request())),
          readPool);
    } else {
      StoreView hits = cache;
      b.handle(
          RpcMethod.LOOKUP,
          c ->
              cacheFirst(
                  c,
                  readPool,
                  () -> c.reply(reads.lookup(hits, Caller.of(c.caller()), c.request())),
                  () -> c.reply(reads.lookup(Caller.of(c.caller()), c.request()))),
          null);
      b.handle(
          RpcMethod.GET_ATTR,
          c ->
              cacheFirst(
                  c,
                  readPool,
                  () -> c.reply(reads.getAttr(hits, Caller.of(c.caller()), c.request())),
                  () -> c.reply(reads.getAttr(Caller.of(c.caller()), c.request()))),
          null);
    }
    b.handle(
        RpcMethod.ACCESS, c -> c.reply(reads.access(Caller.of(c.caller()), c.request())), readPool);
    b.handle(
        RpcMethod.READ_DIR,
        c -> c.reply(reads.readDir(Caller.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.READ_LINK,
        c -> c.reply(reads.readLink(Caller.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.GET_XATTR,
        c -> c.reply(reads.getXattr(Caller.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.LIST_XATTRS,
        c -> c.reply(reads.listXattrs(Caller.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.STAT_FS,
        c -> c.reply(reads.statFs(Caller.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.CONTENT_SUMMARY,
        c -> c.reply(reads.contentSummary(Caller.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.GET_LAYOUT_POLICY,
        c -> c.reply(reads.getLayoutPolicy(Caller.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.GET_CHUNK_LOCATIONS,
        c -> c.reply(reads.getChunkLocations(Client.of(c.caller()), c.request())),
        readPool);
    b.handle(
        RpcMethod.GET_SERVER_DEFAULTS,
        c -> c.reply(reads.serverDefaults(rpc.maxMessageBytes(), rpc.maxPayloadBytes())),
        readPool);
    b.handle(
        RpcMethod.RENEW_LEASE, c -> c.reply(files.renewLease(Client.of(c.caller()))), readPool);
    b.handle(
        RpcMethod.REPORT_BAD_REPLICA,
        c -> {
          // The replica stops counting and leaves what readers get; repair copies a good one.
          repair.accept(reports.corrupt(c.request().getReplicasList(), "reader " + c.caller()));
          c.reply(ReportBadReplicaResponse.getDefaultInstance());
        },
        readPool);
    // Open without write is a read; with write it takes the lease and marks the inode.
    b.handle(
        RpcMethod.OPEN,
        c -> {
          if (c.request().getWrite()) {
            runner.submit(c, "open", r -> r.getPath(), files::openForWrite);
          } else {
            Client client = Client.of(c.caller());
            try {
              c.reply(reads.openForRead(client, c.request()));
              audit.log(client, "open", c.request().getPath(), Status.OK);
            } catch (java.io.IOException e) {
              audit.log(
                  client,
                  "open",
                  c.request().getPath(),
                  io.braidfs.common.error.StatusExceptions.statusOf(e));
              throw e;
            }
          }
        },
        readPool);
    b.handle(
        RpcMethod.MKDIR,
        c -> runner.run(c, "mkdir", r -> r.getPath(), writes::mkdir),
        mutationThread);
    b.handle(
        RpcMethod.CREATE,
        c -> runner.run(c, "create", r -> r.getPath(), files::create, files::tokenField),
        mutationThread);
    b.handle(
        RpcMethod.SET_ATTR,
        c -> runner.run(c, "setattr", r -> r.getPath(), files::setAttr),
        mutationThread);
    b.handle(
        RpcMethod.RENAME,
        c ->
            runner.run(
                c,
                "rename",
                r -> r.getSourcePath() + "\tdst=" + r.getDestinationPath(),
                writes::rename),
        mutationThread);
    b.handle(
        RpcMethod.UNLINK,
        c -> runner.run(c, "unlink", r -> r.getPath(), writes::unlink),
        mutationThread);
    b.handle(
        RpcMethod.RMDIR,
        c -> runner.run(c, "rmdir", r -> r.getPath(), writes::rmdir),
        mutationThread);
    b.handle(
        RpcMethod.DELETE,
        c -> runner.run(c, "delete", r -> r.getPath(), writes::delete),
        mutationThread);
    b.handle(
        RpcMethod.LINK,
        c ->
            runner.run(
                c, "link", r -> r.getExistingPath() + "\tdst=" + r.getNewPath(), writes::link),
        mutationThread);
    b.handle(
        RpcMethod.SYMLINK,
        c -> runner.run(c, "symlink", r -> r.getPath(), writes::symlink),
        mutationThread);
    b.handle(
        RpcMethod.MKNOD,
        c -> runner.run(c, "mknod", r -> r.getPath(), writes::mknod),
        mutationThread);
    b.handle(
        RpcMethod.SET_XATTR,
        c -> runner.run(c, "setxattr", r -> r.getPath(), writes::setXattr),
        mutationThread);
    b.handle(
        RpcMethod.REMOVE_XATTR,
        c -> runner.run(c, "removexattr", r -> r.getPath(), writes::removeXattr),
        mutationThread);
    b.handle(
        RpcMethod.SET_LAYOUT_POLICY,
        c -> runner.run(c, "setlayout", r -> r.getPath(), writes::setLayoutPolicy),
        mutationThread);
    b.handle(
        RpcMethod.COMMIT,
        c -> runner.run(c, "commit", r -> r.getPath(), files::commit),
        mutationThread);
    b.handle(
        RpcMethod.UPDATE_LENGTH,
        c -> runner.run(c, "hflush", r -> r.getPath(), files::updateLength),
        mutationThread);
    b.handle(
        RpcMethod.ALLOCATE_CHUNK_SET,
        c -> runner.run(c, "allocate", r -> r.getPath(), files::allocateChunkSet),
        mutationThread);
    b.handle(
        RpcMethod.REPLACE_REPLICA,
        c -> runner.run(c, "replace", r -> r.getPath(), files::replaceReplica),
        mutationThread);
    b.handle(
        RpcMethod.SET_REPLICATION,
        c -> runner.run(c, "setrep", r -> r.getPath(), replication::setReplication),
        mutationThread);
    b.handle(
        RpcMethod.RECOVER_LEASE,
        c -> runner.run(c, "recoverlease", r -> r.getPath(), files::recoverLease),
        mutationThread);
    // A concat's check is a read; the concat itself (with the commit of the copy) a mutation.
    b.handle(
        RpcMethod.CONCAT,
        c -> {
          if (c.request().getCheckOnly()) {
            c.reply(concat.check(Client.of(c.caller()), c.request()));
          } else {
            runner.submit(
                c,
                "concat",
                r -> r.getTargetPath() + "\tsrc=" + String.join(",", r.getSourcePathsList()),
                concat::concat);
          }
        },
        readPool);
  }
}
