/**
 * The process cluster: real {@code braid mds}, {@code braid dataserver} and client processes from
 * the release tarball, each on a host of its own (a Linux network namespace with its own address on
 * a bridge), with one call per fault (kill -9, SIGSTOP/SIGCONT, link down/up, restart). {@link
 * io.braidfs.testing.process.ProcessClusterExtension} runs it for JUnit tests; {@link
 * io.braidfs.testing.process.ProcessClusterMain} for scripts. docs/testing.md says how to use it.
 */
@NullMarked
package io.braidfs.testing.process;

import org.jspecify.annotations.NullMarked;
