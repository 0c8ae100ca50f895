package io.braidfs.mds.server;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.UnsafeByteOperations;
import io.braidfs.common.error.Status;
import io.braidfs.common.error.StatusExceptions;
import io.braidfs.common.rpc.ServerCall;
import io.braidfs.common.token.ClientId;
import io.braidfs.mds.journal.Journal;
import io.braidfs.mds.namespace.Client;
import io.braidfs.mds.namespace.Mutation;
import io.braidfs.mds.namespace.Namespace;
import io.braidfs.mds.store.ColumnFamily;
import io.braidfs.mds.store.Keys;
import io.braidfs.mds.store.Records;
import io.braidfs.mds.store.StoreView;
import io.braidfs.mds.store.proto.RetryEntry;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs namespace mutations on the single mutation thread: checks the retry cache, decides the
 * mutation, appends it to the journal (with its retry-cache entry, in the same record) and answers
 * once the record is durable. A failed decision writes nothing and answers its status once every
 * record appended before it is durable (at once when they all are): it was decided on the journal's
 * view, which may hold records that readers of the store cannot see yet.
 *
 * <p>A retry (same client id, call id and method) is answered from the retry cache with the first
 * answer, after a journal barrier so that it is never answered before the original is durable. Only
 * successful mutations are cached: a failed one changed nothing and fails the same way again. A
 * call that cannot be a retry, being above every cached call of its client ({@link
 * CallWatermarks}), skips the lookup.
 *
 * <p>An answer may be completed as it leaves by a {@link Finish} (Create's capability token is
 * signed there, on the journal's sync thread): the mutation thread and the journal record do only
 * what must be decided in order. An answer is serialized once, on the mutation thread, for its
 * retry-cache entry, and those bytes (with a finish's fields appended) are what the call sends: the
 * event loop copies them instead of encoding the message again.
 *
 * <p>Thread-safety: thread-safe; {@link #submit} hands the work to the mutation thread.
 */
final class MutationRunner {
  private static final Logger LOG = LoggerFactory.getLogger(MutationRunner.class);

  /** One mutation: decides into {@code m} and returns the answer. */
  @FunctionalInterface
  interface Op<Q, R> {
    R apply(Mutation m, Client client, Q request) throws IOException;
  }

  /**
   * Adds to an answer as it leaves, after the record is durable (on the journal's sync thread) or
   * when a retry is answered from the cache: fields that need not be decided on the mutation thread
   * nor journaled, such as a capability token. Returns them serialized, as a message of the
   * answer's type with only those fields set (fields the kept answer leaves unset), never null and
   * empty for none; they are appended to the answer's bytes, and protobuf merges them in as the
   * client parses. Must be thread-safe, fast and deterministic.
   */
  @FunctionalInterface
  interface Finish<R> {
    byte[] fields(Client client, R response);
  }

  private static final byte[] NO_FIELDS = new byte[0];

  /** Adds nothing: the answer leaves as decided. */
  private static final Finish<Message> NOTHING = (client, response) -> NO_FIELDS;

  private final Namespace ns;

  /** What the mutation thread reads ({@link Journal#view()}): the retry cache is read there. */
  private final StoreView view;

  /** Which calls skip the retry-cache lookup: those that cannot be retries. */
  private final CallWatermarks watermarks;

  private final Journal journal;
  private final ExecutorService mutationThread;
  private final Audit audit;
  private final MdsMetrics metrics;
  private final long retryTtlMs;
  private final io.braidfs.common.clock.Clock clock;

  MutationRunner(
      Namespace ns,
      Journal journal,
      ExecutorService mutationThread,
      Audit audit,
      MdsMetrics metrics,
      long retryTtlMs,
      io.braidfs.common.clock.Clock clock) {
    this.ns = ns;
    this.journal = journal;
    this.view = journal.view();
    this.watermarks = new CallWatermarks(view);
    this.mutationThread = mutationThread;
    this.audit = audit;
    this.metrics = metrics;
    this.retryTtlMs = retryTtlMs;
    this.clock = clock;
  }

  /** Runs {@code op} for {@code call} on the mutation thread. */
  <Q extends Message, R extends Message> void submit(
      ServerCall<Q, R> call, String name, Function<Q, String> describe, Op<Q, R> op) {
    try {
      mutationThread.execute(() -> run(call, name, describe, op));
    } catch (RuntimeException rejected) {
      // No longer the leader: NOT_LEADER sends clients on to the next MDS with the same call id.
      call.fail(Status.NOT_LEADER, ns + ": the MDS is stopping");
    }
  }

  /** Runs {@code op} for {@code call} on this (the mutation) thread. */
  @SuppressWarnings("unchecked") // NOTHING reads no field of the response
  <Q extends Message, R extends Message> void run(
      ServerCall<Q, R> call, String name, Function<Q, String> describe, Op<Q, R> op) {
    run(call, name, describe, op, (Finish<R>) NOTHING);
  }

  /**
   * Runs {@code op} for {@code call} on this (the mutation) thread; {@code finish} adds to the
   * answer as it leaves (the retry cache keeps the answer {@code op} returned).
   */
  <Q extends Message, R extends Message> void run(
      ServerCall<Q, R> call,
      String name,
      Function<Q, String> describe,
      Op<Q, R> op,
      Finish<R> finish) {
    Client client = Client.of(call.caller());
    Q request = call.request();
    String target = describe.apply(request);
    ClientId clientId = ClientId.of(call.caller().clientId());
    byte[] retryKey = Keys.retry(clientId, call.callId());
    try {
      RetryEntry cached = cached(call, clientId, retryKey);
      if (cached != null) {
        R first = parse(call, cached);
        byte[] encoded = cached.getResponse().toByteArray();
        metrics.retry();
        journal
            .barrier()
            .whenComplete((i, err) -> answer(call, client, first, encoded, finish, err));
        return;
      }
      Mutation m = ns.newMutation();
      R response;
      try {
        response = op.apply(m, client, request);
      } catch (IOException | RuntimeException e) {
        ns.abandoned();
        throw e;
      }
      byte[] encoded = response.toByteArray();
      m.put(
          ColumnFamily.RETRY,
          retryKey,
          Records.encode(
              RetryEntry.newBuilder()
                  .setStatusCode(Status.OK.code())
                  // Never changed once made: the entry and the answer share the array.
                  .setResponse(UnsafeByteOperations.unsafeWrap(encoded))
                  .setExpiryMs(clock.currentTimeMillis() + retryTtlMs)
                  .setMethodId(call.method().id())
                  .build()));
      CompletableFuture<Long> durable = journal.append(name + " " + target, m.batch());
      m.applied();
      audit.log(client, name, target, Status.OK);
      metrics.mutation(name);
      durable.whenComplete((i, err) -> answer(call, client, response, encoded, finish, err));
    } catch (IOException | RuntimeException e) {
      Status status = StatusExceptions.statusOf(e);
      if (status == Status.INTERNAL) {
        LOG.error("{}: {} {} failed", ns, name, target, e);
      }
      audit.log(client, name, target, status);
      metrics.failed(name);
      String message = e.getMessage() == null ? e.toString() : e.getMessage();
      afterDurable(journal, call, () -> call.fail(status, message));
    }
  }

  /**
   * Runs {@code answer} once every record appended so far is durable, or fails {@code call} with
   * {@code UNAVAILABLE} if the journal fails first. For answers decided on the journal's view
   * without a record of their own: that view may hold records that readers of the store cannot see
   * yet, and no answer may tell of a state a crash could still lose.
   */
  static void afterDurable(Journal journal, ServerCall<?, ?> call, Runnable answer) {
    journal
        .barrier()
        .whenComplete(
            (i, err) -> {
              if (err == null) {
                answer.run();
              } else {
                call.fail(
                    journalFailure(err),
                    "the journal failed before what this answer rests on was durable: " + err);
              }
            });
  }

  /**
   * The status a call whose record the journal refused is answered with: NOT_LEADER when this MDS
   * lost its leadership (an HA journal fenced by a successor), so the client retries at the leader
   * with the same call id and the retry cache settles the unknown outcome; UNAVAILABLE otherwise.
   */
  static Status journalFailure(Throwable err) {
    Throwable t =
        err instanceof java.util.concurrent.CompletionException && err.getCause() != null
            ? err.getCause()
            : err;
    return t instanceof io.braidfs.mds.store.StoreException se && se.status() == Status.NOT_LEADER
        ? Status.NOT_LEADER
        : Status.UNAVAILABLE;
  }

  /** The call's retry-cache entry if it holds a successful answer of the same method, else null. */
  private @Nullable RetryEntry cached(ServerCall<?, ?> call, ClientId clientId, byte[] key)
      throws IOException {
    byte[] value =
        switch (watermarks.check(clientId, call.callId())) {
          case NEW -> null;
          case FOUND -> watermarks.entry();
          case LOOK_UP -> view.get(ColumnFamily.RETRY, key);
        };
    if (value == null) {
      return null;
    }
    RetryEntry entry = Records.decodeRetry(key, value);
    if (entry.getMethodId() != call.method().id() || entry.getStatusCode() != Status.OK.code()) {
      return null;
    }
    return entry;
  }

  /** The first answer a retry-cache entry keeps. */
  private <R extends Message> R parse(ServerCall<?, R> call, RetryEntry entry) throws IOException {
    try {
      return call.method().responseParser().parseFrom(entry.getResponse());
    } catch (InvalidProtocolBufferException e) {
      throw StatusExceptions.toIOException(
          Status.INTERNAL, ns + ": corrupt retry-cache entry for call " + call.callId());
    }
  }

  private static <R extends Message> void answer(
      ServerCall<?, R> call,
      Client client,
      R response,
      byte[] encoded,
      Finish<R> finish,
      Throwable err) {
    if (err != null) {
      call.fail(journalFailure(err), "the journal could not make the change durable: " + err);
      return;
    }
    byte[] finished;
    try {
      byte[] fields = finish.fields(client, response);
      if (fields.length == 0) {
        finished = encoded;
      } else {
        finished = Arrays.copyOf(encoded, encoded.length + fields.length);
        System.arraycopy(fields, 0, finished, encoded.length, fields.length);
      }
    } catch (RuntimeException e) { // a failing finish must still answer, or the call would hang
      LOG.error("{}: finishing the answer failed", call, e);
      call.fail(Status.INTERNAL, call.method() + ": finishing the answer failed: " + e);
      return;
    }
    call.replyEncoded(finished);
  }

  /**
   * Removes expired retry-cache entries among up to {@code max} scanned after {@code cursor}, as
   * one journaled mutation (the cache is replicated state); runs on the mutation thread.
   *
   * @return the cursor to continue from, or null after the last entry
   */
  byte @Nullable [] sweepRetryCache(byte @Nullable [] cursor, int max) throws IOException {
    var page = view.scan(ColumnFamily.RETRY, new byte[0], cursor, max);
    Mutation m = ns.newMutation();
    long now = clock.currentTimeMillis();
    for (var e : page.entries()) {
      if (Records.decodeRetry(e.key(), e.value()).getExpiryMs() < now) {
        m.delete(ColumnFamily.RETRY, e.key());
      }
    }
    if (!m.isEmpty()) {
      journal.append("sweep retry cache", m.batch());
    }
    return page.hasMore() ? page.cursor() : null;
  }
}
