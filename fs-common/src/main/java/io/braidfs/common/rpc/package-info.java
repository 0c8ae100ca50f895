/**
 * The RPC runtime every Braid link uses: the method registry ({@link
 * io.braidfs.common.rpc.RpcMethod}), and the client ({@link io.braidfs.common.rpc.RpcClient}) and
 * server ({@link io.braidfs.common.rpc.RpcServer}) on Netty. Calls are pipelined and correlated by
 * call id, carry deadlines, and leave in batched flushes; docs/protocol.md is the wire contract and
 * docs/concurrency.md the threading contract. The frame codec and the write queue are in {@code
 * io.braidfs.common.rpc.internal}; the per-connection state machines ({@code ServerConnection},
 * {@code PendingCall}) stay package-private here, beside the client and server whose state they
 * share.
 */
package io.braidfs.common.rpc;
