/**
 * Auto-configuration of the 'lettuce' health indicator.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
