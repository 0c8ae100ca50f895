/** The {@code braid} command: servers, the local cluster, file-system tools and benchmarks. */
package io.braidfs.cli;
