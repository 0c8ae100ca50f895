/**
 * The Braid error model: {@link io.braidfs.common.error.Status}, the one enum of outcomes with
 * stable wire codes, and {@link io.braidfs.common.error.StatusExceptions}, the one place that turns
 * a non-OK status into a Java {@link java.io.IOException}. Every exception raised for a status
 * implements {@link io.braidfs.common.error.StatusException}, so the FUSE and Hadoop boundaries can
 * map it back to exactly one status. The full table, with the Hadoop exceptions and FUSE errnos, is
 * {@code docs/errors.md}.
 */
@NullMarked
package io.braidfs.common.error;

import org.jspecify.annotations.NullMarked;
