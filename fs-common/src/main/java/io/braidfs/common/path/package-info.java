/**
 * The Braid path rules, in one place: {@link io.braidfs.common.path.BraidPath}, an immutable,
 * validated, canonical absolute path, and {@link io.braidfs.common.path.BraidPath#validateName} for
 * a single name. The MDS validates every request with them, and the client, the Hadoop file system
 * and the FUSE mount use them so that a path is accepted or refused the same way everywhere, with
 * the same {@link io.braidfs.common.error.Status} ({@code INVALID_ARGUMENT} or {@code
 * NAME_TOO_LONG}, limits in {@code docs/protocol.md} section 5). Nothing here does I/O.
 */
@NullMarked
package io.braidfs.common.path;

import org.jspecify.annotations.NullMarked;
