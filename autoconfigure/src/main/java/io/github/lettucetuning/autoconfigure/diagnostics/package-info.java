/**
 * Failure analysis for invalid lettuce-tuning settings, and the check that stops startup
 * below the supported Spring Boot and Lettuce versions.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.diagnostics;

import org.jspecify.annotations.NullMarked;
