package io.github.lettucetuning.sample.demo;

import java.util.List;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.types.RedisClientInfo;

/**
 * What the Redis server says about this app's connections.
 */
class ServerConnections {

	private final RedisConnectionFactory connectionFactory;

	private final String clientName;

	ServerConnections(RedisConnectionFactory connectionFactory, String clientName) {
		this.connectionFactory = connectionFactory;
		this.clientName = clientName;
	}

	String address() {
		if (this.connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return "redis://" + lettuce.getHostName() + ":" + lettuce.getPort();
		}
		return this.connectionFactory.toString();
	}

	/**
	 * Count the connections named after this app, as CLIENT LIST shows them.
	 * @return the number of the app's connections on the server
	 */
	long count() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			List<RedisClientInfo> clients = connection.serverCommands().getClientList();
			return clients.stream().filter((client) -> this.clientName.equals(client.getName())).count();
		}
	}

}
