/**
 * Microbenchmarks of what the event-loop guards add to every command.
 */
@NullMarked
package io.github.lettucetuning.benchmarks.eventloop;

import org.jspecify.annotations.NullMarked;
