/**
 * The Hadoop {@code FileSystem} for the {@code braid://} scheme, built on the Braid client library.
 */
package io.braidfs.hadoop;
