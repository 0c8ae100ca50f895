package io.braidfs.common.rpc.internal;

/**
 * The fixed 28-byte, big-endian header that starts every frame (docs/protocol.md):
 *
 * <pre>
 * offset size field
 *  0     2    magic 0xB7A1
 *  2     1    version (1)
 *  3     1    flags (bit 0: response; other bits must be 0)
 *  4     2    method id
 *  6     2    status wire code (0 in requests)
 *  8     8    call id
 * 16     4    timing: request = remaining deadline in microseconds (0 = none);
 *                     response = server handling time in microseconds
 * 20     4    message length (protobuf bytes that follow the header)
 * 24     4    payload length (raw bytes after the message)
 * </pre>
 *
 * <p>Thread-safety: constants only.
 */
public final class FrameHeader {
  public static final int MAGIC = 0xB7A1;
  public static final int VERSION = 1;
  public static final int LENGTH = 28;
  public static final int FLAG_RESPONSE = 1;

  /** Flags this version understands; a frame with any other bit set is malformed. */
  static final int KNOWN_FLAGS = FLAG_RESPONSE;

  static final int OFFSET_VERSION = 2;
  static final int OFFSET_FLAGS = 3;
  static final int OFFSET_METHOD = 4;
  static final int OFFSET_STATUS = 6;
  static final int OFFSET_CALL_ID = 8;
  static final int OFFSET_TIMING = 16;
  static final int OFFSET_MESSAGE_LENGTH = 20;
  static final int OFFSET_PAYLOAD_LENGTH = 24;

  private FrameHeader() {}
}
