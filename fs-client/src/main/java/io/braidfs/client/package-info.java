/**
 * The Braid client library's API: {@link io.braidfs.client.BraidClient} (metadata calls to the MDS
 * with failover, striped data I/O straight to data servers with write-behind and windowed
 * prefetch), its streams, and the value types its calls take and answer. These are Braid's own
 * types: generated protobuf never appears in a public signature here ({@code PublicApiTest} checks
 * it). The data path behind the streams is in {@code io.braidfs.client.internal.data}, which is not
 * API.
 */
package io.braidfs.client;
