/**
 * JMH benchmarks of Braid's RPC paths. Build with {@code mvn -B -pl jmh -am package -DskipTests}
 * and run with {@code java -jar jmh/target/benchmarks.jar}; docs/benchmarks.md has the figures.
 */
package io.braidfs.bench;
