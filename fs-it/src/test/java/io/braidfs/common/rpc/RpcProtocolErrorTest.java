package io.braidfs.common.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.braidfs.common.config.BraidConfig;
import io.braidfs.common.config.DataSize;
import io.braidfs.common.error.Status;
import io.braidfs.common.rpc.internal.FrameHeader;
import io.braidfs.common.testing.RawFrames;
import io.braidfs.proto.ErrorInfo;
import io.braidfs.proto.PingRequest;
import io.braidfs.testing.Await;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input from a raw socket: each case gets an error answer where the call id is readable, then
 * its connection is closed, while a well-behaved client on another connection carries on.
 */
class RpcProtocolErrorTest {
  private static final int MAX_PAYLOAD = 1 << 20;

  private RpcServer server;
  private RpcClient goodClient;

  @BeforeEach
  void start() throws IOException {
    server =
        RpcServer.builder("srv")
            .options(
                RpcOptions.from(
                    BraidConfig.builder()
                        .set(RpcConfigKeys.FRAME_MAX_PAYLOAD, DataSize.ofBytes(MAX_PAYLOAD))
                        .build()))
            .build();
    server.start();
    goodClient = RpcClient.builder("good").build();
    goodClient.start();
    assertServing();
  }

  @AfterEach
  void stop() {
    goodClient.close();
    server.close();
    Await.noBraidThreads(Duration.ofSeconds(10));
  }

  private void assertServing() throws IOException {
    PingRequest ping = PingRequest.newBuilder().setEcho(ByteString.copyFromUtf8("alive")).build();
    assertThat(goodClient.callSync(server.boundAddress(), RpcMethod.PING, ping).getEcho())
        .isEqualTo(ping.getEcho());
  }

  /** The server's answer on a raw connection. */
  private record Answer(int flags, int method, Status status, long callId, String message) {}

  private Socket connect() throws IOException {
    Socket s = new Socket(server.boundAddress().getAddress(), server.boundAddress().getPort());
    s.setSoTimeout(10_000);
    return s;
  }

  private static byte[] hello() {
    return RawFrames.hello(1, 1);
  }

  private static Answer read(DataInputStream in) throws IOException {
    byte[] header = new byte[FrameHeader.LENGTH];
    in.readFully(header);
    ByteBuffer b = ByteBuffer.wrap(header);
    assertThat(b.getShort(0) & 0xFFFF).isEqualTo(FrameHeader.MAGIC);
    int flags = b.get(3);
    int method = b.getShort(4) & 0xFFFF;
    Status status = Status.fromCode(b.getShort(6) & 0xFFFF);
    long callId = b.getLong(8);
    byte[] message = new byte[b.getInt(20)];
    in.readFully(message);
    in.skipNBytes(b.getInt(24));
    String text = status.isOk() ? "" : ErrorInfo.parseFrom(message).getMessage();
    return new Answer(flags, method, status, callId, text);
  }

  private static void assertClosed(DataInputStream in) throws IOException {
    try {
      assertThat(in.read()).isEqualTo(-1);
    } catch (java.net.SocketException e) {
      assertThat(e.getMessage()).containsIgnoringCase("reset"); // closed with unread input
    }
  }

  /** Sends a hello then {@code bad}, and returns the answer to {@code bad}; the link must close. */
  private Answer afterHello(byte[] bad) throws IOException {
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write(hello());
      out.write(bad);
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      Answer hello = read(in);
      assertThat(hello.status()).isEqualTo(Status.OK);
      assertThat(hello.callId()).isEqualTo(1);
      Answer answer = read(in);
      assertClosed(in);
      return answer;
    }
  }

  @Test
  void unknownMethodIsAnsweredThenTheConnectionCloses() throws IOException {
    Answer a = afterHello(RawFrames.request(999, 42, new byte[0], new byte[0]));
    assertThat(a.status()).isEqualTo(Status.UNKNOWN_METHOD);
    assertThat(a.callId()).isEqualTo(42);
    assertThat(a.flags() & FrameHeader.FLAG_RESPONSE).isEqualTo(1);
    assertThat(a.message()).contains("999");
    assertServing();
  }

  @Test
  void unparsableMessageIsMalformed() throws IOException {
    byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F};
    Answer a = afterHello(RawFrames.request(RpcMethod.PING.id(), 43, garbage, new byte[0]));
    assertThat(a.status()).isEqualTo(Status.MALFORMED_FRAME);
    assertThat(a.callId()).isEqualTo(43);
    assertThat(a.method()).isEqualTo(RpcMethod.PING.id());
    assertServing();
  }

  @Test
  void oversizedPayloadIsRefusedFromItsHeaderAlone() throws IOException {
    ByteBuffer header =
        RawFrames.header(RawFrames.MAGIC, 1, 0, RpcMethod.PING.id(), 0, 44, 0, 0, MAX_PAYLOAD + 1L);
    byte[] onlyHeader = new byte[FrameHeader.LENGTH];
    header.get(0, onlyHeader);
    Answer a = afterHello(onlyHeader);
    assertThat(a.status()).isEqualTo(Status.FRAME_TOO_LARGE);
    assertThat(a.callId()).isEqualTo(44);
    assertServing();
  }

  @Test
  void unsupportedVersionIsAnswered() throws IOException {
    Answer a =
        afterHello(RawFrames.frame(RawFrames.MAGIC, 7, 0, 2, 0, 45, 0, new byte[0], new byte[0]));
    assertThat(a.status()).isEqualTo(Status.UNSUPPORTED_VERSION);
    assertThat(a.callId()).isEqualTo(45);
    assertServing();
  }

  @Test
  void aResponseSentToTheServerIsMalformed() throws IOException {
    Answer a =
        afterHello(
            RawFrames.frame(
                RawFrames.MAGIC,
                1,
                FrameHeader.FLAG_RESPONSE,
                2,
                0,
                46,
                0,
                new byte[0],
                new byte[0]));
    assertThat(a.status()).isEqualTo(Status.MALFORMED_FRAME);
    assertServing();
  }

  @Test
  void aRequestBeforeHelloIsRefused() throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream()
          .write(RawFrames.request(RpcMethod.PING.id(), 47, new byte[0], new byte[0]));
      DataInputStream in = new DataInputStream(s.getInputStream());
      Answer a = read(in);
      assertThat(a.status()).isEqualTo(Status.NOT_AUTHENTICATED);
      assertThat(a.callId()).isEqualTo(47);
      assertClosed(in);
    }
    assertServing();
  }

  @Test
  void aHelloWithAnOlderProtocolVersionIsRefused() throws IOException {
    byte[] hello = RawFrames.hello(48, 0);
    try (Socket s = connect()) {
      s.getOutputStream().write(hello);
      DataInputStream in = new DataInputStream(s.getInputStream());
      assertThat(read(in).status()).isEqualTo(Status.UNSUPPORTED_VERSION);
      assertClosed(in);
    }
    assertServing();
  }

  @Test
  void aRequestWithAStatusIsMalformed() throws IOException {
    Answer a =
        afterHello(
            RawFrames.frame(
                RawFrames.MAGIC, 1, 0, RpcMethod.PING.id(), 3, 50, 0, new byte[0], new byte[0]));
    assertThat(a.status()).isEqualTo(Status.MALFORMED_FRAME);
    assertThat(a.callId()).isEqualTo(50);
    assertServing();
  }

  @Test
  void aPayloadOnAMethodThatTakesNoneIsMalformed() throws IOException {
    Answer a =
        afterHello(
            RawFrames.request(RpcMethod.GET_ATTR.id(), 51, new byte[0], new byte[] {1, 2, 3}));
    assertThat(a.status()).isEqualTo(Status.MALFORMED_FRAME);
    assertThat(a.message()).contains("takes no payload");
    assertServing();
  }

  @Test
  void aHelloFromANewerClientIsAnsweredWithTheVersionBothSpeak() throws IOException {
    byte[] hello = RawFrames.hello(52, 9);
    try (Socket s = connect()) {
      s.getOutputStream().write(hello);
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] header = new byte[FrameHeader.LENGTH];
      in.readFully(header);
      byte[] message = new byte[ByteBuffer.wrap(header).getInt(20)];
      in.readFully(message);
      assertThat(ByteBuffer.wrap(header).getShort(6)).isZero();
      assertThat(io.braidfs.proto.HelloResponse.parseFrom(message).getProtocolVersion())
          .isEqualTo(1);
    }
  }

  @Test
  void badMagicClosesWithoutAnAnswer() throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream().write("GET / HTTP/1.1\r\nHost: braid\r\n\r\n".getBytes());
      DataInputStream in = new DataInputStream(s.getInputStream());
      assertClosed(in);
    }
    assertServing();
  }

  @Test
  void aFrameTruncatedByTheSenderClosingHarmsNoOne() throws IOException {
    byte[] frame = RawFrames.request(RpcMethod.PING.id(), 49, new byte[100], new byte[1000]);
    try (Socket s = connect()) {
      OutputStream out = s.getOutputStream();
      out.write(hello());
      out.write(frame, 0, 500);
      out.flush();
      assertThat(read(new DataInputStream(s.getInputStream())).status()).isEqualTo(Status.OK);
    }
    Await.until(
        "the server to drop the connection",
        Duration.ofSeconds(10),
        () -> server.connectionCount() == 1);
    assertServing();
  }

  @Test
  void aPeerThatStopsMidHeaderIsClosedCleanly() throws IOException {
    try (Socket s = connect()) {
      s.getOutputStream().write(new byte[] {(byte) 0xB7});
    }
    Await.until(
        "the server to drop the connection",
        Duration.ofSeconds(10),
        () -> server.connectionCount() == 1);
    assertServing();
  }

  @Test
  void eofAfterTheAnswerIsReal() {
    // Guard against a vacuous assertClosed: a live connection does not read as closed.
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> {
              try (Socket s = connect()) {
                s.setSoTimeout(200);
                s.getOutputStream().write(hello());
                DataInputStream in = new DataInputStream(s.getInputStream());
                read(in);
                in.readByte();
              }
            })
        .isInstanceOf(java.net.SocketTimeoutException.class);
  }
}
