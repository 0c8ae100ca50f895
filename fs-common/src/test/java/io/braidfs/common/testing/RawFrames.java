package io.braidfs.common.testing;

import java.nio.ByteBuffer;

/**
 * Frames built byte by byte from the layout in docs/protocol.md, independent of the codec under
 * test, for feeding raw sockets and decoders with good and bad input.
 *
 * <p>Thread-safety: stateless.
 */
public final class RawFrames {
  public static final int MAGIC = 0xB7A1;

  private RawFrames() {}

  /** A frame with every header field given explicitly. */
  public static byte[] frame(
      int magic,
      int version,
      int flags,
      int methodId,
      int status,
      long callId,
      int timing,
      byte[] message,
      byte[] payload) {
    return header(
            magic, version, flags, methodId, status, callId, timing, message.length, payload.length)
        .put(message)
        .put(payload)
        .array();
  }

  /** A well-formed request frame. */
  public static byte[] request(int methodId, long callId, byte[] message, byte[] payload) {
    return frame(MAGIC, 1, 0, methodId, 0, callId, 0, message, payload);
  }

  /** A Hello request (method 1) speaking {@code protocolVersion}, with an all-zero client id. */
  public static byte[] hello(long callId, int protocolVersion) {
    byte[] message =
        io.braidfs.proto.HelloRequest.newBuilder()
            .setProtocolVersion(protocolVersion)
            .setClientId(com.google.protobuf.ByteString.copyFrom(new byte[16]))
            .setUser("mallory")
            .build()
            .toByteArray();
    return request(1, callId, message, new byte[0]);
  }

  /** Only the 28-byte header, claiming the given lengths, followed by room for the body. */
  public static ByteBuffer header(
      int magic,
      int version,
      int flags,
      int methodId,
      int status,
      long callId,
      int timing,
      long messageLength,
      long payloadLength) {
    long room = Math.min(messageLength + payloadLength, 64L << 20);
    ByteBuffer b = ByteBuffer.allocate((int) (28 + room));
    b.putShort((short) magic)
        .put((byte) version)
        .put((byte) flags)
        .putShort((short) methodId)
        .putShort((short) status)
        .putLong(callId)
        .putInt(timing)
        .putInt((int) messageLength)
        .putInt((int) payloadLength);
    return b;
  }

  /** Only the 28-byte header claiming these lengths, without room for the body. */
  public static byte[] headerOnly(
      int magic,
      int version,
      int flags,
      int methodId,
      int status,
      long callId,
      int timing,
      long messageLength,
      long payloadLength) {
    return java.util.Arrays.copyOf(
        header(
                magic,
                version,
                flags,
                methodId,
                status,
                callId,
                timing,
                messageLength,
                payloadLength)
            .array(),
        28);
  }
}
