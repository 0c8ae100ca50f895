/**
 * How a file's bytes are placed on chunks: the {@link io.braidfs.common.layout.Layout} value and
 * its striping math (ARCHITECTURE section 5). The MDS, the client I/O path and the data servers all
 * map offsets through this one class, so it is the single place where the arithmetic lives. Nothing
 * here does I/O.
 */
@NullMarked
package io.braidfs.common.layout;

import org.jspecify.annotations.NullMarked;
