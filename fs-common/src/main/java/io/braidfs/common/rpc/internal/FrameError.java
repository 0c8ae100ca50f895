package io.braidfs.common.rpc.internal;

import io.braidfs.common.error.Status;

/**
 * A frame the decoder refused, passed down the pipeline as a value (as Netty's binary memcache
 * decoder does) so the connection handler can reply and close. After emitting one, the decoder
 * discards everything else the connection sends.
 *
 * @param callId the call id if the fixed header was readable, else {@link #NO_CALL_ID}
 * @param methodId the method id if the fixed header was readable, else 0
 * @param status why the frame was refused
 * @param reason a one-line description for the log and the error reply
 */
public record FrameError(long callId, int methodId, Status status, String reason) {
  /**
   * The call id of an error found before the call id could be trusted (a bad magic). Clients number
   * calls from 1, so no real call has it (docs/protocol.md).
   */
  public static final long NO_CALL_ID = -1;

  public boolean hasCallId() {
    return callId != NO_CALL_ID;
  }
}
