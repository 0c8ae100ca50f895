/**
 * The read-only status web page of a {@code braid} server process, served by the same HTTP server
 * as its Prometheus metrics ({@code braid.metrics.address}). {@link
 * io.braidfs.cli.internal.web.StatusPages} answers the requests: static pages whose script fetches
 * JSON built from the servers' in-process state ({@link io.braidfs.cli.internal.web.MdsStatus},
 * {@link io.braidfs.cli.internal.web.DataServerStatus}), call rates ({@link
 * io.braidfs.cli.internal.web.CallRates}) and recent warnings ({@link
 * io.braidfs.cli.internal.web.RecentWarnings}). Internal to the dist module.
 */
@NullMarked
package io.braidfs.cli.internal.web;

import org.jspecify.annotations.NullMarked;
