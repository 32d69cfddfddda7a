/**
 * Microbenchmarks of what recording the {@code lettuce} command meters costs a command.
 */
@NullMarked
package io.github.lettucetuning.benchmarks.observation;

import org.jspecify.annotations.NullMarked;
