/**
 * Braid for Hadoop and Spark: {@link io.braidfs.hadoop.BraidFileSystem} for the {@code braid://}
 * scheme, {@link io.braidfs.hadoop.BraidFs} for FileContext, and the streams they hand out.
 */
package io.braidfs.hadoop;
