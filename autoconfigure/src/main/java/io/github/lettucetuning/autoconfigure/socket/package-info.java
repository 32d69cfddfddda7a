/**
 * Wiring of the socket options: Netty transport, TCP keep-alive and TCP_USER_TIMEOUT.
 */
@NullMarked
package io.github.lettucetuning.autoconfigure.socket;

import org.jspecify.annotations.NullMarked;
