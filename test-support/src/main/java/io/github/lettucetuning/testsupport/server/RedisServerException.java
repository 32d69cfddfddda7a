package io.github.lettucetuning.testsupport.server;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a {@code redis-server} process or a topology built from them cannot be
 * started, reached or brought into the expected state.
 */
public class RedisServerException extends RuntimeException {

	public RedisServerException(String message) {
		super(message);
	}

	public RedisServerException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
