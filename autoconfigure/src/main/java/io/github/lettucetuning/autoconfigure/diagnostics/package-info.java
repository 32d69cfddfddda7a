/**
 * Failure analysis for invalid lettuce-tuning settings.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
