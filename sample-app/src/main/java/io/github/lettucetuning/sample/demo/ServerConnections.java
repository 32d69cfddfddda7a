package io.github.lettucetuning.sample.demo;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.types.RedisClientInfo;

/**
 * What the Redis server says about this app's connections.
 *
 * @author lettuce-tuning
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

	List<String> describe() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			List<RedisClientInfo> clients = connection.serverCommands().getClientList();
			List<RedisClientInfo> ours = clients.stream()
				.filter((client) -> this.clientName.equals(client.getName()))
				.toList();
			Map<String, Long> byLastCommand = ours.stream()
				.collect(Collectors.groupingBy((client) -> String.valueOf(client.get("cmd")), Collectors.counting()));
			return List.of(ours.size() + " connections named '" + this.clientName + "' (" + clients.size()
					+ " in all on the server); last command per connection: " + byLastCommand);
		}
	}


}
