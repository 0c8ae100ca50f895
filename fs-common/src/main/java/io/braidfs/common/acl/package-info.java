/** POSIX.1e access control list entries, shared by the MDS, the client and the mount. */
@NullMarked
package io.braidfs.common.acl;

import org.jspecify.annotations.NullMarked;
