/**
 * Auto-configuration of lettuce-tuning: the entry point, properties and customizer
 * callbacks.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure;

import org.jspecify.annotations.NullMarked;
