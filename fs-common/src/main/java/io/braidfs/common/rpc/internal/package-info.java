/**
 * Internal: the RPC runtime's frames, not API (OkHttp's convention: a public type here may change
 * in any release; users name only {@code io.braidfs.common.rpc}). One codec serves both sides:
 * {@link io.braidfs.common.rpc.internal.FrameDecoder} reads the fixed header and hands on a {@link
 * io.braidfs.common.rpc.internal.Frame} (or a {@link io.braidfs.common.rpc.internal.FrameError}),
 * {@link io.braidfs.common.rpc.internal.FrameEncoder} writes an {@link
 * io.braidfs.common.rpc.internal.OutboundFrame}, and {@link
 * io.braidfs.common.rpc.internal.OutboundQueue} batches a connection's writes into one flush.
 * docs/protocol.md defines the frame.
 */
package io.braidfs.common.rpc.internal;
