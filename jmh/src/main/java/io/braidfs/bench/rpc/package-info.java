/** RPC benchmarks over real loopback connections: null round trip and pipelined throughput. */
package io.braidfs.bench.rpc;
