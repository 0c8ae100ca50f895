/** Frame encode and decode benchmarks on embedded channels, without sockets. */
package io.braidfs.bench.codec;
