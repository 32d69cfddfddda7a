/**
 * The effective Lettuce configuration and the advisor that turns it into findings with a
 * fix.
 */
@NullMarked
package io.github.lettucetuning.advice;

import org.jspecify.annotations.NullMarked;
