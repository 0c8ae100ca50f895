/**
 * The test bench: real Braid servers in the test's JVM, and the tools to hurt them.
 *
 * <ul>
 *   <li>{@link io.braidfs.testing.MiniCluster}: one MDS and N data servers over loopback, with
 *       restart of the MDS on its store and port, stop, kill and restart of a data server on its
 *       directories, and per-method RPC faults ({@link io.braidfs.testing.RpcFaults}: drop, delay,
 *       fail) on every server.
 *   <li>{@link io.braidfs.testing.MdsFixture}: one MDS with registered stand-in data servers (no
 *       data-server process), for metadata tests and benchmarks; or the same calls against a {@code
 *       braid mds} process.
 *   <li>{@link io.braidfs.testing.LinkEmulator}: a WAN link (delay and rate) on loopback TCP.
 *   <li>{@link io.braidfs.testing.Await} (polling waits instead of sleeps) and {@link
 *       io.braidfs.testing.ManualClock} (time that moves only when told).
 * </ul>
 *
 * <p>Other modules use it at test scope (the benchmarks at compile scope). fs-common, fs-mds,
 * fs-dataserver and fs-client cannot, being its dependencies: their tests that need it live in the
 * fs-it module, in their own packages. The servers' fault and kill hooks are {@link
 * io.braidfs.common.rpc.RpcServerHooks}, in fs-common's RPC runtime.
 */
package io.braidfs.testing;
