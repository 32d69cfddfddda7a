package io.github.lettucetuning.resilience;

import io.lettuce.core.RedisReadOnlyException;

/**
 * Fails the commands that were waiting for a reply on a connection whose server has
 * become a replica: it answered {@code READONLY} to a write, so the endpoint's primary
 * has moved (a managed failover that demotes the old primary in place and keeps its
 * client connections). The {@link RoleChangeGuard} closes that connection so that it
 * reconnects to the endpoint's current address; the commands already sent on it fail with
 * this exception and are not sent again, because the old server may have run them (a read
 * did; a write it refused). A write the server refused with {@code READONLY} itself fails
 * with Lettuce's own {@link RedisReadOnlyException}; this one extends it so that a
 * {@code catch} for a read-only server catches both.
 *
 * @since 0.1.0
 */
public final class RedisRoleChangedException extends RedisReadOnlyException {

	private final String server;

	RedisRoleChangedException(String server, String endpoint) {
		super("READONLY (lettuce-tuning) Redis at " + server + " has become a replica: it refused a write with "
				+ "READONLY, so the connection is closed and lettuce-tuning is reconnecting to the current address of "
				+ endpoint + "; this command was sent to the replica before that and is not retried");
		this.server = server;
	}

	/**
	 * Return the server that became a replica.
	 * @return the server, as {@code host:port (address)}
	 */
	public String getServer() {
		return this.server;
	}

	// One instance fails every command waiting on the connection; the event loop's stack
	// says nothing.
	@Override
	public synchronized Throwable fillInStackTrace() {
		return this;
	}

}
