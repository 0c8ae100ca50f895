package io.braidfs.dataserver;

import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.LocalAddresses;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.common.token.CapabilityToken;
import io.braidfs.dataserver.store.ChunkKey;
import io.braidfs.dataserver.store.ReadView;
import io.braidfs.dataserver.store.Replica;
import io.braidfs.proto.ChecksumChunkRequest;
import io.braidfs.proto.ChecksumChunkResponse;
import io.braidfs.proto.GetChunkInfoRequest;
import io.braidfs.proto.GetChunkInfoResponse;
import io.braidfs.proto.OpenLocalReplicaRequest;
import io.braidfs.proto.OpenLocalReplicaResponse;
import io.braidfs.proto.ReadChunkRequest;
import io.braidfs.proto.ReadChunkResponse;

/**
 * Reads: ReadChunk sends the requested range widened to whole 64 KiB blocks straight from the file
 * ({@code FileRegion}, sendfile on epoll) with the stored CRCs alongside, so the client verifies
 * every byte end to end; GetChunkInfo and ChecksumChunk answer from the replica's meta data;
 * OpenLocalReplica tells a client on this host where a finalized replica's file is.
 *
 * <p>A replica newer than the version the reader names is served: a replaced replica keeps the
 * bytes the reader knew about. An older one is stale and refused ({@link Admission#reader}).
 *
 * <p>Thread-safety: thread-safe.
 */
final class ReadPath {
  /** The largest window one OpenLocalReplica answers: 4,096 CRCs, 16 KiB of message. */
  static final long MAX_LOCAL_WINDOW = 256L << 20;

  private final DataContext ctx;
  private final ChunkIoCounters counters;

  ReadPath(DataContext ctx, ChunkIoCounters counters) {
    this.ctx = ctx;
    this.counters = counters;
  }

  void read(ServerCall<ReadChunkRequest, ReadChunkResponse> call) {
    ReadChunkRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    ctx.onDisk(
        call,
        key,
        () -> {
          if (Integer.toUnsignedLong(req.getLength()) > ctx.maxReadBytes) {
            throw StatusExceptions.toIOException(
                Status.INVALID_ARGUMENT,
                ctx.id
                    + ": read of "
                    + Integer.toUnsignedString(req.getLength())
                    + " bytes of chunk "
                    + key
                    + " exceeds the most one answer carries, "
                    + ctx.maxReadBytes);
          }
          Replica r =
              ctx.admission.reader(call.caller(), key, req.getToken(), req.getVersion(), "read");
          ReadView view = r.read(req.getOffset(), req.getLength());
          ReadChunkResponse.Builder answer =
              ReadChunkResponse.newBuilder()
                  .setFirstBlockOffset(view.firstBlockOffset())
                  .setVersion(view.version())
                  .setChunkLength(view.chunkLength());
          for (int crc : view.blockCrcs()) {
            answer.addChecksums(crc);
          }
          counters.read(view.length());
          if (view.length() == 0) {
            view.close();
            call.reply(answer.build());
          } else {
            // Zero-copy unless the connection is encrypted: TLS must see the bytes.
            call.reply(answer.build(), call.encrypted() ? view.read(call.alloc()) : view.region());
          }
        });
  }

  /**
   * Tells a client on this host where a finalized replica's bytes are, with the CRCs of the window
   * it asked for (short-circuit reads).
   */
  void openLocal(ServerCall<OpenLocalReplicaRequest, OpenLocalReplicaResponse> call) {
    OpenLocalReplicaRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    ctx.onDisk(
        call,
        key,
        () -> {
          if (!LocalAddresses.isLocal(call.caller().remoteAddress())) {
            throw StatusExceptions.toIOException(
                Status.PERMISSION_DENIED,
                ctx.id
                    + ": local read of chunk "
                    + key
                    + " refused: "
                    + call.caller().remoteAddress()
                    + " is not an address of this host");
          }
          if (Integer.toUnsignedLong(req.getLength()) > MAX_LOCAL_WINDOW) {
            throw StatusExceptions.toIOException(
                Status.INVALID_ARGUMENT,
                ctx.id
                    + ": local read window of "
                    + Integer.toUnsignedString(req.getLength())
                    + " bytes of chunk "
                    + key
                    + " exceeds "
                    + MAX_LOCAL_WINDOW);
          }
          Replica r =
              ctx.admission.reader(
                  call.caller(), key, req.getToken(), req.getVersion(), "local read");
          Replica.LocalWindow w = r.localWindow(req.getOffset(), req.getLength());
          OpenLocalReplicaResponse.Builder answer =
              OpenLocalReplicaResponse.newBuilder()
                  .setDataPath(w.dataFile().toAbsolutePath().toString())
                  .setVersion(w.version())
                  .setChunkLength(w.length())
                  .setOffset(w.offset());
          for (int crc : w.crcs()) {
            answer.addChecksums(crc);
          }
          call.reply(answer.build());
        });
  }

  void info(ServerCall<GetChunkInfoRequest, GetChunkInfoResponse> call) {
    GetChunkInfoRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    ctx.onDisk(
        call,
        key,
        () -> {
          Replica r =
              ctx.admission.existing(call.caller(), key, req.getToken(), CapabilityToken.READ);
          call.reply(
              GetChunkInfoResponse.newBuilder()
                  .setVersion(r.version())
                  .setLength(r.length())
                  .setSyncedLength(r.syncedLength())
                  .setState(r.state())
                  .build());
        });
  }

  void checksum(ServerCall<ChecksumChunkRequest, ChecksumChunkResponse> call) {
    ChecksumChunkRequest req = call.request();
    ChunkKey key = ChunkKey.of(req.getChunk());
    ctx.onDisk(
        call,
        key,
        () -> {
          int piece = req.getPieceSize();
          if (!Replica.validPieceSize(piece)) {
            throw StatusExceptions.toIOException(
                Status.INVALID_ARGUMENT,
                ctx.id
                    + ": checksum piece size must be a positive multiple or divisor of 64 KiB: "
                    + piece);
          }
          Replica r =
              ctx.admission.reader(
                  call.caller(), key, req.getToken(), req.getVersion(), "checksum");
          long length = req.getLength() == 0 ? r.length() : req.getLength();
          int[] crcs = r.pieceCrcs(length, piece);
          ChecksumChunkResponse.Builder answer =
              ChecksumChunkResponse.newBuilder().setLength(length);
          for (int crc : crcs) {
            answer.addPieceCrcs(crc);
          }
          call.reply(answer.build());
        });
  }
}
