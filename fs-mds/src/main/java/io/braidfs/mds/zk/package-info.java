/**
 * The ZooKeeper server Braid can run itself: {@link io.braidfs.mds.zk.EmbeddedZooKeeper} runs
 * ZooKeeper's own standalone server or ensemble member in this JVM, configured by {@link
 * io.braidfs.mds.zk.ZooKeeperConfigKeys} ({@code braid.zk.*}). It is for a single host or a small
 * deployment ({@code braid zk}) and for {@code braid local --ha}; a production cluster points its
 * MDSs at its own ensemble. ZooKeeper stays inside fs-mds: other modules see only the connect
 * string.
 */
@NullMarked
package io.braidfs.mds.zk;

import org.jspecify.annotations.NullMarked;
