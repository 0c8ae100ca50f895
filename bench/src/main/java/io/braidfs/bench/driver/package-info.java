/**
 * The end-to-end benchmark driver behind {@code braid bench}: the experiments of BENCHMARKING.md,
 * each against its references in one run, with medians, spread, ratios, CSV, plots and the
 * generated section of docs/benchmarks.md.
 */
package io.braidfs.bench.driver;
