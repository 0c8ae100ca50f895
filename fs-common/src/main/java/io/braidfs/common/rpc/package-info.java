/**
 * The RPC runtime every Braid link uses: the frame codec ({@link
 * io.braidfs.common.rpc.FrameDecoder}, {@link io.braidfs.common.rpc.FrameEncoder}), the method
 * registry ({@link io.braidfs.common.rpc.RpcMethod}), and the client ({@link
 * io.braidfs.common.rpc.RpcClient}) and server ({@link io.braidfs.common.rpc.RpcServer}) on Netty.
 * Calls are pipelined and correlated by call id, carry deadlines, and leave in batched flushes;
 * docs/protocol.md is the wire contract and docs/concurrency.md the threading contract.
 */
package io.braidfs.common.rpc;
