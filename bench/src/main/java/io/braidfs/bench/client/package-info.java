/** End-to-end benchmarks of the client library's streams (write-behind, read-ahead). */
package io.braidfs.bench.client;
