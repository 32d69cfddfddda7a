/**
 * Harness of the end-to-end benchmarks: one redis-server per trial and per-iteration
 * counters read from the server ({@code INFO commandstats}, {@code INFO cpu}) and the
 * client JVM, written to a JSON-lines side file next to JMH's own results.
 */
@NullMarked
package io.github.lettucetuning.benchmarks.support;

import org.jspecify.annotations.NullMarked;
