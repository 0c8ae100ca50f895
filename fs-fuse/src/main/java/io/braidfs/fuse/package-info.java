/**
 * A FUSE mount of Braid on jnr-fuse, built on the Braid client library. {@link
 * io.braidfs.fuse.BraidMount} mounts a {@link io.braidfs.fuse.BraidFuse}, which adapts libfuse's
 * callbacks to four package-private classes by concern (attributes, namespace, data, extended
 * attributes) and turns their failures into errnos in one place ({@code FuseErrors}). What the
 * mount keeps per open file and inode (handles, the shared writer, change counts, held-back
 * attribute changes), with the locks that guard it, is the {@code OpenFileTable}.
 */
package io.braidfs.fuse;
