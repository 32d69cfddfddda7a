package io.github.lettucetuning.autoconfigure.connection;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.ExplicitProperties;
import io.github.lettucetuning.connection.ConnectionMode;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;

/**
 * How long a caller waits for a dedicated connection when the pool is exhausted, worked
 * out once, for the pool; the endpoint reads it back from the running pool.
 *
 * @since 0.1.0
 */
public final class PoolMaxWait {

	/**
	 * The one property that sets the wait.
	 */
	public static final String PROPERTY = "spring.data.redis.lettuce.pool.max-wait";

	// The wait for dedicated work (transactions, blocking commands, Pub/Sub) when nobody
	// set one: short, because a pool held by blocking commands does not free up soon.
	private static final Duration DEDICATED_DEFAULT = Duration.ofSeconds(2);

	private PoolMaxWait() {
	}

	/**
	 * Return the effective wait. A {@code spring.data.redis.lettuce.pool.max-wait} the
	 * application set is used as it is, a negative one (wait forever) included: that is a
	 * choice. Left at Boot's default of -1, the wait is 2 s, or in pooled mode the
	 * command timeout. In pooled mode every command waits for a connection, and with far
	 * more threads than connections commons-pool2's unfair hand-over lets a returning
	 * thread borrow again ahead of parked ones, so a 2 s bound fails callers of a healthy
	 * but busy pool (measured: 200 threads over 8 connections).
	 * @param redis Spring Boot's Redis properties
	 * @param mode the connection mode
	 * @param explicit the properties the application set
	 * @return the maximum wait; negative means forever
	 */
	public static Duration of(DataRedisProperties redis, ConnectionMode mode, ExplicitProperties explicit) {
		if (explicit.isSet(PROPERTY)) {
			return redis.getLettuce().getPool().getMaxWait();
		}
		return (mode == ConnectionMode.POOLED) ? commandTimeout(redis) : DEDICATED_DEFAULT;
	}

	private static Duration commandTimeout(DataRedisProperties redis) {
		Duration timeout = redis.getTimeout();
		return isPositive(timeout) ? timeout : RedisURI.DEFAULT_TIMEOUT_DURATION;
	}

	private static boolean isPositive(@Nullable Duration duration) {
		return duration != null && !duration.isNegative() && !duration.isZero();
	}

}
