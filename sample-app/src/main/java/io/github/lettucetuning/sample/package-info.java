/**
 * The sample application of lettuce-tuning.
 */
@NullMarked
package io.github.lettucetuning.sample;

import org.jspecify.annotations.NullMarked;
