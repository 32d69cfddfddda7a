/**
 * End-to-end benchmarks of Redis clients and connection modes against a local
 * redis-server: raw Jedis and Lettuce, stock Spring Boot, and lettuce-tuning's modes and
 * timers.
 */
@NullMarked
package io.github.lettucetuning.benchmarks.modes;

import org.jspecify.annotations.NullMarked;
