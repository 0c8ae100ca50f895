/**
 * Internal: the client's metadata calls to the MDS, not API (OkHttp's convention: a public type
 * here may change or go in any release; only {@code io.braidfs.client} is API). {@link
 * io.braidfs.client.internal.MetadataClient} sends every MDS call with failover between the
 * addresses it was given (following {@code NOT_LEADER} hints) and serves the data path as its
 * {@link io.braidfs.client.internal.data.ChunkService}; it speaks protobuf, which the API does not.
 */
@NullMarked
package io.braidfs.client.internal;

import org.jspecify.annotations.NullMarked;
