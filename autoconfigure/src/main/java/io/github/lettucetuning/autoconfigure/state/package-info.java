/**
 * Wiring of the one reader of the running client, and of the client event recorder that
 * it, the metrics and the endpoint share.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.state;

import org.jspecify.annotations.NullMarked;
