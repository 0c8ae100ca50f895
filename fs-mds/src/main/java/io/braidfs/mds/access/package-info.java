/**
 * POSIX permission checks of the metadata server: mode bits, owner and group, the sticky bit, a
 * configured superuser and supergroup, and who may change mode, owner and times. {@link
 * io.braidfs.mds.access.Permissions} is pure logic over a {@link io.braidfs.mds.access.Caller} (the
 * user and groups a request states) and a {@link io.braidfs.mds.access.PermissionStatus} (an
 * inode's owner, group and mode); the namespace operations call it before they change anything. A
 * denial is the {@link io.braidfs.common.error.Status#PERMISSION_DENIED} exception, whose message
 * names the operation, the path, the user and what was missing.
 */
@NullMarked
package io.braidfs.mds.access;

import org.jspecify.annotations.NullMarked;
