package io.github.lettucetuning.connection;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * Creates the provider of dedicated connections (transactions, blocking commands,
 * Pub/Sub, pipelining) around the provider that opens raw connections, typically a
 * {@link DedicatedConnectionPool}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface DedicatedConnectionProviderFactory {

	/**
	 * Create the provider of dedicated connections.
	 * @param target the provider that opens raw connections
	 * @return the provider dedicated work borrows from
	 */
	LettuceConnectionProvider create(LettuceConnectionProvider target);

}
