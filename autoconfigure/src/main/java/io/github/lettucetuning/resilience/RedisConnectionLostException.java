package io.github.lettucetuning.resilience;

import java.time.Duration;

import io.lettuce.core.RedisConnectionException;

/**
 * Fails a command that was sent and whose connection closed before its reply, once the
 * connection has stayed down for the grace. Unlike a command that fails fast with a
 * {@link RedisUnreachableException}, which never left the client, this one reached the
 * socket: Redis may have run it. It is not sent again.
 *
 * @since 0.1.0
 */
public final class RedisConnectionLostException extends RedisConnectionException {

	private final String server;

	RedisConnectionLostException(String server, Duration down) {
		super("Redis at " + server + ": the connection closed before this command's reply and has been down for "
				+ OutageGuard.seconds(down) + "; Redis may have run the command, so it is not sent again");
		this.server = server;
	}

	/**
	 * Return the server, as {@code host:port}.
	 * @return the server
	 */
	public String getServer() {
		return this.server;
	}

}
