/**
 * Typed configuration. Each component declares its keys once as {@link
 * io.braidfs.common.config.ConfigKey} constants in a {@link io.braidfs.common.config.ConfigKeySet}
 * found by {@link java.util.ServiceLoader}; {@link io.braidfs.common.config.BraidConfig} is the
 * immutable, validated set of values read through them. Units live in the value types ({@link
 * io.braidfs.common.config.DataSize}, {@link java.time.Duration} via {@link
 * io.braidfs.common.config.Durations}), and {@code docs/configuration.md} is generated from the
 * declarations by {@link io.braidfs.common.config.ConfigDocs}. Only this package reads raw
 * configuration strings.
 */
@NullMarked
package io.braidfs.common.config;

import org.jspecify.annotations.NullMarked;
