package io.github.lettucetuning.benchmarks.modes;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * Raw Lettuce: one connection shared by every thread.
 */
final class LettuceSharedOps implements RedisOps {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	LettuceSharedOps(String host, int port) {
		this.client = BenchmarkClients.lettuceClient(host, port);
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
	}

	@Override
	public String set(String key, String value) {
		return this.commands.set(key, value);
	}

	@Override
	public @Nullable String get(String key) {
		return this.commands.get(key);
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
