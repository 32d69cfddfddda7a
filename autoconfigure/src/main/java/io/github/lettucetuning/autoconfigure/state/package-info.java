/**
 * Wiring of the client event recorder that metrics and the endpoint share.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.state;

import org.jspecify.annotations.NullMarked;
