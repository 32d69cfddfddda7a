/**
 * Auto-configuration that guards Lettuce's command observation.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
