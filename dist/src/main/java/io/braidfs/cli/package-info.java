/**
 * The {@code braid} command: servers, the local cluster and file-system tools. {@link
 * io.braidfs.cli.Braid} is the main class and lists the subcommands; {@link
 * io.braidfs.cli.ConfigOptions} gives every command the same {@code --conf} and {@code -D} options,
 * and {@link io.braidfs.cli.Foreground} runs a server until it is asked to stop. {@code braid
 * local} runs a whole cluster in one process ({@code LocalCluster}); {@code braid fs} is the file
 * tools over the client library ({@code FsCommand}, failures reported by {@code PathFailure}).
 * Errors are one line on stderr with the exit codes documented on {@link io.braidfs.cli.Braid}.
 */
@NullMarked
package io.braidfs.cli;

import org.jspecify.annotations.NullMarked;
