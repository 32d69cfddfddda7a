/**
 * The 'lettuce' health indicator: a bounded check of Redis plus the state of the tuned
 * connections.
 */
@NullMarked
package io.github.lettucetuning.health;

import org.jspecify.annotations.NullMarked;
