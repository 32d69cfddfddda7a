package io.github.lettucetuning.resilience;

import io.lettuce.core.RedisConnectionException;

/**
 * Fails the commands that were waiting for a reply when their connection's server stopped
 * answering: nothing was read for the stall timeout while they waited. The connection is
 * closed and opened again. The server may still have received such a command, and runs it
 * if it wakes up: a write failed this way may have been applied.
 *
 * @since 0.1.0
 */
public final class RedisStalledException extends RedisConnectionException {

	RedisStalledException(String message) {
		super(message);
	}

}
