package io.github.lettucetuning.benchmarks.modes;

import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.jspecify.annotations.Nullable;

/**
 * Raw Lettuce: a fixed set of shared connections, one picked round-robin per command,
 * optionally on client resources with a given number of I/O threads.
 */
final class LettuceMultiOps implements RedisOps {

	private final RedisClient client;

	private final StatefulRedisConnection<String, String>[] connections;

	private final RedisCommands<String, String>[] commands;

	private final AtomicInteger next = new AtomicInteger();

	private final @Nullable ClientResources ownResources;

	LettuceMultiOps(String host, int port, int size) {
		this(host, port, size, 0);
	}

	/**
	 * Open the connections.
	 * @param host the server's host
	 * @param port the server's port
	 * @param size the number of connections
	 * @param ioThreads the number of Netty I/O threads, {@code 0} for Lettuce's default
	 */
	@SuppressWarnings("unchecked")
	LettuceMultiOps(String host, int port, int size, int ioThreads) {
		this.ownResources = (ioThreads > 0) ? DefaultClientResources.builder().ioThreadPoolSize(ioThreads).build()
				: null;
		this.client = (this.ownResources != null) ? BenchmarkClients.lettuceClient(host, port, this.ownResources)
				: BenchmarkClients.lettuceClient(host, port);
		this.connections = new StatefulRedisConnection[size];
		this.commands = new RedisCommands[size];
		for (int i = 0; i < size; i++) {
			this.connections[i] = this.client.connect();
			this.commands[i] = this.connections[i].sync();
		}
	}

	private RedisCommands<String, String> pick() {
		return this.commands[Math.floorMod(this.next.getAndIncrement(), this.commands.length)];
	}

	@Override
	public String set(String key, String value) {
		return pick().set(key, value);
	}

	@Override
	public @Nullable String get(String key) {
		return pick().get(key);
	}

	@Override
	public void close() {
		for (StatefulRedisConnection<String, String> connection : this.connections) {
			connection.close();
		}
		this.client.shutdown();
		if (this.ownResources != null) {
			this.ownResources.shutdown();
		}
	}

}
