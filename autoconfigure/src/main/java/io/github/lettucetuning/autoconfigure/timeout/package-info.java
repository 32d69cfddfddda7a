/**
 * Wiring of the command-expiry timer into the Lettuce client resources.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.timeout;

import org.jspecify.annotations.NullMarked;
