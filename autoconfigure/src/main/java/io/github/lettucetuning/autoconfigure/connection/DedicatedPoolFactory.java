package io.github.lettucetuning.autoconfigure.connection;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.connection.DedicatedConnectionPool;
import io.github.lettucetuning.connection.DedicatedConnectionProviderFactory;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;

/**
 * Builds the dedicated-connection pool from {@code spring.data.redis.lettuce.pool.*}.
 * A class of its own so that commons-pool2 stays optional: nothing loads it unless the
 * pool is enabled.
 *
 * @author lettuce-tuning
 */
final class DedicatedPoolFactory {

	private DedicatedPoolFactory() {
	}

	static DedicatedConnectionProviderFactory create(DataRedisProperties redis, LettuceTuningProperties tuning) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = poolConfig(redis, tuning);
		return (target) -> new DedicatedConnectionPool(target, config);
	}

	static GenericObjectPoolConfig<StatefulConnection<?, ?>> poolConfig(DataRedisProperties redis,
			LettuceTuningProperties tuning) {
		DataRedisProperties.Pool pool = redis.getLettuce().getPool();
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = new GenericObjectPoolConfig<>();
		config.setMaxTotal(pool.getMaxActive());
		config.setMaxIdle(pool.getMaxIdle());
		config.setMinIdle(pool.getMinIdle());
		if (pool.getTimeBetweenEvictionRuns() != null) {
			config.setTimeBetweenEvictionRuns(pool.getTimeBetweenEvictionRuns());
		}
		config.setMaxWait(PoolMaxWait.of(redis, tuning));
		return config;
	}

}
