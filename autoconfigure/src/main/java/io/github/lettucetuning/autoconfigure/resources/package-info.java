/**
 * Wiring of the Lettuce client resources: threads, timer and their lifecycle.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.resources;

import org.jspecify.annotations.NullMarked;
