/**
 * The Braid client library: metadata calls to the MDS with failover, and striped data I/O straight
 * to data servers with write-behind and windowed prefetch.
 */
package io.braidfs.client;
