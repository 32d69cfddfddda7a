/**
 * A visit counter on INCR.
 */
@NullMarked
package io.github.lettucetuning.sample.counter;

import org.jspecify.annotations.NullMarked;
