package io.github.lettucetuning.benchmarks.modes;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.support.ConnectionPoolSupport;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;

/**
 * Raw Lettuce: a commons-pool2 pool of a fixed size (max total = max idle), one borrowed
 * (thread-confined) connection per command.
 */
final class LettucePoolOps implements RedisOps {

	private final RedisClient client;

	private final GenericObjectPool<StatefulRedisConnection<String, String>> pool;

	LettucePoolOps(String host, int port, int size) {
		this.client = BenchmarkClients.lettuceClient(host, port);
		GenericObjectPoolConfig<StatefulRedisConnection<String, String>> config = new GenericObjectPoolConfig<>();
		config.setMaxTotal(size);
		config.setMaxIdle(size);
		config.setJmxEnabled(false);
		this.pool = ConnectionPoolSupport.createGenericObjectPool(this.client::connect, config);
	}

	private StatefulRedisConnection<String, String> borrow() {
		try {
			return this.pool.borrowObject();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot borrow a connection", ex);
		}
	}

	@Override
	public String set(String key, String value) {
		try (StatefulRedisConnection<String, String> connection = borrow()) {
			return connection.sync().set(key, value);
		}
	}

	@Override
	public @Nullable String get(String key) {
		try (StatefulRedisConnection<String, String> connection = borrow()) {
			return connection.sync().get(key);
		}
	}

	@Override
	public void close() {
		this.pool.close();
		this.client.shutdown();
	}

}
