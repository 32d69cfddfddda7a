package io.github.lettucetuning.benchmarks.modes;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;

/**
 * Raw Jedis: a {@link JedisPool} of a fixed size (max total = max idle), one borrowed
 * connection per command.
 */
final class JedisPoolOps implements RedisOps {

	private final JedisPool pool;

	JedisPoolOps(String host, int port, int size) {
		GenericObjectPoolConfig<Jedis> config = new GenericObjectPoolConfig<>();
		config.setMaxTotal(size);
		config.setMaxIdle(size);
		config.setJmxEnabled(false);
		this.pool = new JedisPool(config, host, port, (int) BenchmarkClients.TIMEOUT.toMillis());
	}

	@Override
	public String set(String key, String value) {
		try (Jedis jedis = this.pool.getResource()) {
			return jedis.set(key, value);
		}
	}

	@Override
	public @Nullable String get(String key) {
		try (Jedis jedis = this.pool.getResource()) {
			return jedis.get(key);
		}
	}

	@Override
	public void close() {
		this.pool.close();
	}

}
