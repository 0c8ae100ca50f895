package io.braidfs.mds.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.RpcMethod;
import io.braidfs.common.testing.RawFrames;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.HelloRequest;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client connection made byte by byte ({@link RawFrames}), so a test chooses every call id and
 * client id itself, which {@code RpcClient} never lets it repeat: the tool for retry-cache tests.
 * It says Hello on connect and then sends and reads frames in whatever order the test wants.
 *
 * <p>Thread-safety: not thread-safe.
 */
final class RawConnection implements AutoCloseable {
  private static final int HEADER = 28;

  /** Hello call ids, far from the small ids tests choose for their calls. */
  private static final AtomicLong HELLO_CALL_IDS = new AtomicLong(1_000_000);

  /**
   * One response frame.
   *
   * @param method the method id it answers
   * @param status its status
   * @param callId the call id it echoes
   * @param message the response message (or the ErrorInfo when not OK)
   */
  record Answer(int method, Status status, long callId, byte[] message) {
    /** The response message, parsed as {@code method}'s response type. */
    <R extends Message> R parse(RpcMethod<?, R> rpc) throws InvalidProtocolBufferException {
      assertThat(status).as("status of the answer to call %d", callId).isEqualTo(Status.OK);
      return rpc.responseParser().parseFrom(message);
    }

    /** The error message, for a failed call. */
    String error() throws InvalidProtocolBufferException {
      return status.isOk() ? "" : ErrorInfo.parseFrom(message).getMessage();
    }

    /** Equal in all but timing: method, status, call id and message bytes. */
    boolean sameAs(Answer other) {
      return method == other.method
          && status == other.status
          && callId == other.callId
          && Arrays.equals(message, other.message);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Answer a && sameAs(a);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(callId) * 31 + Arrays.hashCode(message);
    }

    @Override
    public String toString() {
      return "Answer{method="
          + method
          + ", status="
          + status
          + ", callId="
          + callId
          + ", message="
          + ByteString.copyFrom(message)
          + "}";
    }
  }

  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;

  /**
   * Connects and says Hello as {@code user} (groups {@code groups}) with this 16-byte client id;
   * fails the test unless the Hello is accepted.
   */
  RawConnection(InetSocketAddress at, byte[] clientId, String user, List<String> groups)
      throws IOException {
    socket = new Socket(at.getAddress(), at.getPort());
    socket.setSoTimeout(10_000);
    socket.setTcpNoDelay(true);
    out = socket.getOutputStream();
    in = new DataInputStream(socket.getInputStream());
    HelloRequest hello =
        HelloRequest.newBuilder()
            .setProtocolVersion(1)
            .setClientId(ByteString.copyFrom(clientId))
            .setClientName("raw-test")
            .setUser(user)
            .addAllGroups(groups)
            .build();
    long helloId = HELLO_CALL_IDS.incrementAndGet();
    send(RpcMethod.HELLO, helloId, hello);
    Answer a = read();
    assertThat(a.status()).as("Hello answer: %s", a.error()).isEqualTo(Status.OK);
    assertThat(a.callId()).isEqualTo(helloId);
  }

  /** Sends one request frame and flushes it. */
  void send(RpcMethod<?, ?> method, long callId, Message request) throws IOException {
    out.write(RawFrames.request(method.id(), callId, request.toByteArray(), new byte[0]));
    out.flush();
  }

  /** Reads the next response frame. */
  Answer read() throws IOException {
    byte[] header = new byte[HEADER];
    in.readFully(header);
    ByteBuffer b = ByteBuffer.wrap(header);
    assertThat(b.getShort(0) & 0xFFFF).as("magic").isEqualTo(RawFrames.MAGIC);
    assertThat(b.get(3) & 1).as("response flag").isEqualTo(1);
    int method = b.getShort(4) & 0xFFFF;
    Status status = Status.fromCode(b.getShort(6) & 0xFFFF);
    long callId = b.getLong(8);
    byte[] message = new byte[b.getInt(20)];
    in.readFully(message);
    in.skipNBytes(b.getInt(24));
    return new Answer(method, status, callId, message);
  }

  /** Sends one request and reads the answer to it. */
  Answer call(RpcMethod<?, ?> method, long callId, Message request) throws IOException {
    send(method, callId, request);
    Answer a = read();
    assertThat(a.callId()).as("call id of the answer").isEqualTo(callId);
    return a;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
