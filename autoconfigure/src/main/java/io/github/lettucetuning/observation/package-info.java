/**
 * Runtime support for Lettuce's command observation: spans that never fail the thread
 * that completes or cancels their command.
 */
@NullMarked
package io.github.lettucetuning.observation;

import org.jspecify.annotations.NullMarked;
