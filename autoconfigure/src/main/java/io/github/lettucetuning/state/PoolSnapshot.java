package io.github.lettucetuning.state;

import java.time.Duration;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.connection.DedicatedConnectionPool;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.util.ClassUtils;

/**
 * The dedicated-connection pool of a {@link LettuceTuningConnectionFactory} at one
 * moment, summed over its per-type pools (usually one). Pools open on first use, so
 * before any dedicated work every count is zero and the limits are unknown.
 *
 * @param active connections borrowed now (including asynchronous borrows)
 * @param idle connections idle in the pool
 * @param waiting threads waiting for a connection
 * @param max the maximum number of connections per pool, or {@code null} before the pool
 * opened
 * @param maxWait how long a borrower waits at most, or {@code null} before the pool
 * opened
 * @param created connections created since start
 * @param destroyed connections destroyed since start
 * @param borrowed successful borrows since start
 * @param maxBorrowWait the longest a borrower has waited
 * @since 0.1.0
 */
public record PoolSnapshot(int active, int idle, int waiting, @Nullable Integer max, @Nullable Duration maxWait,
		long created, long destroyed, long borrowed, Duration maxBorrowWait) {

	private static final boolean COMMONS_POOL2_PRESENT = ClassUtils
		.isPresent("org.apache.commons.pool2.impl.GenericObjectPool", PoolSnapshot.class.getClassLoader());

	/**
	 * Take a snapshot of the factory's dedicated pool.
	 * @param factory the connection factory
	 * @return the snapshot, or {@code null} if dedicated connections are not pooled (or
	 * the factory has not started)
	 */
	public static @Nullable PoolSnapshot of(LettuceTuningConnectionFactory factory) {
		return of(factory.getDedicatedConnectionProvider());
	}

	/**
	 * Take a snapshot of a dedicated-connection provider.
	 * @param provider the provider
	 * @return the snapshot, or {@code null} if the provider is not a
	 * {@link DedicatedConnectionPool}
	 */
	public static @Nullable PoolSnapshot of(@Nullable LettuceConnectionProvider provider) {
		if (!COMMONS_POOL2_PRESENT || provider == null) {
			return null;
		}
		return Pools.snapshot(provider);
	}

	// The settings the pool opens its per-type pools with, read from the pool itself:
	// the one place they were worked out.
	static EffectiveConfiguration.@Nullable Pool settings(@Nullable LettuceConnectionProvider provider) {
		if (!COMMONS_POOL2_PRESENT || provider == null) {
			return null;
		}
		return Pools.settings(provider);
	}

	// Only loaded when commons-pool2 is on the classpath.
	private static final class Pools {

		static EffectiveConfiguration.@Nullable Pool settings(LettuceConnectionProvider provider) {
			if (!(provider instanceof DedicatedConnectionPool pool)) {
				return null;
			}
			GenericObjectPoolConfig<StatefulConnection<?, ?>> config = pool.config();
			return new EffectiveConfiguration.Pool(config.getMaxTotal(), config.getMaxIdle(), config.getMinIdle(),
					config.getMaxWaitDuration());
		}

		static @Nullable PoolSnapshot snapshot(LettuceConnectionProvider provider) {
			if (!(provider instanceof DedicatedConnectionPool pool)) {
				return null;
			}
			int idle = 0;
			Integer max = null;
			Duration maxWait = null;
			long created = 0;
			long destroyed = 0;
			long borrowed = 0;
			for (GenericObjectPool<?> each : pool.pools().values()) {
				idle += each.getNumIdle();
				max = (max != null) ? Math.max(max, each.getMaxTotal()) : each.getMaxTotal();
				maxWait = each.getMaxWaitDuration();
				created += each.getCreatedCount();
				destroyed += each.getDestroyedCount();
				borrowed += each.getBorrowedCount();
			}
			return new PoolSnapshot(pool.borrowedCount(), idle, pool.waitingCount(), max, maxWait, created, destroyed,
					borrowed, pool.longestWait());
		}

	}

}
