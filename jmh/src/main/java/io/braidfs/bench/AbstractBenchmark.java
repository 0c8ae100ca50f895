package io.braidfs.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Defaults shared by every Braid benchmark: one fork with a fixed heap and leak detection off, 5
 * warm-up and 5 measured iterations of 2 s. Override on the command line as usual ({@code -f},
 * {@code -wi}, {@code -i}, {@code -jvmArgsAppend}).
 *
 * <p>Thread-safety: JMH state classes say so themselves.
 */
@Fork(
    value = 1,
    jvmArgsAppend = {
      "-Xms1g",
      "-Xmx1g",
      "-XX:+UseParallelGC",
      "-Dio.netty.leakDetection.level=disabled",
      "-Dio.netty.tryReflectionSetAccessible=true"
    })
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public abstract class AbstractBenchmark {}
