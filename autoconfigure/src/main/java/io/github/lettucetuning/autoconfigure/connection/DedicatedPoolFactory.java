package io.github.lettucetuning.autoconfigure.connection;

import java.time.Duration;

import io.github.lettucetuning.connection.DedicatedConnectionPool;
import io.github.lettucetuning.connection.DedicatedConnectionProviderFactory;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;

/**
 * The pool of dedicated connections, sized by {@code spring.data.redis.lettuce.pool.*}.
 * The only class that names commons-pool2 types, and loaded only when the pool is on, so
 * that commons-pool2 stays optional.
 */
final class DedicatedPoolFactory {

	private DedicatedPoolFactory() {
	}

	/**
	 * Return a factory of pools for the given properties.
	 * @param pool Boot's pool properties
	 * @param maxWait the effective wait for a connection
	 * @param fair whether waiting callers are served in arrival order: right when the
	 * pool serves only dedicated work, whose long holds let callers that borrow again and
	 * again starve the others; in pooled mode every command borrows for a moment, and
	 * first come, first served would cost a thread switch per command
	 * @return the factory
	 */
	static DedicatedConnectionProviderFactory create(DataRedisProperties.Pool pool, Duration maxWait, boolean fair) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = poolConfig(pool, maxWait);
		config.setFairness(fair);
		return (target) -> new DedicatedConnectionPool(target, config);
	}

	/**
	 * Return the commons-pool2 settings for the given properties. Sizes and the eviction
	 * interval mean what Boot documents; an unset interval keeps commons-pool2's (no
	 * eviction runs). The wait is decided by {@link PoolMaxWait}.
	 * @param pool Boot's pool properties
	 * @param maxWait the effective wait for a connection
	 * @return the pool settings
	 */
	static GenericObjectPoolConfig<StatefulConnection<?, ?>> poolConfig(DataRedisProperties.Pool pool,
			Duration maxWait) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = new GenericObjectPoolConfig<>();
		PropertyMapper map = PropertyMapper.get();
		map.from(pool::getMaxActive).to(config::setMaxTotal);
		map.from(pool::getMaxIdle).to(config::setMaxIdle);
		map.from(pool::getMinIdle).to(config::setMinIdle);
		map.from(pool::getTimeBetweenEvictionRuns).to(config::setTimeBetweenEvictionRuns);
		config.setMaxWait(maxWait);
		return config;
	}

}
