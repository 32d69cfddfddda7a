/**
 * Wiring of the connection factory: Boot's connection settings mapped onto
 * lettuce-tuning's factory and its modes.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.connection;

import org.jspecify.annotations.NullMarked;
