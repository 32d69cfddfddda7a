package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.support.AsyncObjectFactory;
import io.lettuce.core.support.BoundedAsyncPool;
import io.lettuce.core.support.BoundedPoolConfig;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * The asynchronous side of a {@link DedicatedConnectionPool}: per connection type, a
 * Lettuce {@link BoundedAsyncPool} behind a {@link WaitingAsyncPool}, the connections it
 * has lent, and the borrows still waiting for a connection being opened. It knows every
 * connection its pools opened until they close it, so that a connection released twice
 * fails as Spring Data's pool fails it, and is never closed under the borrower it went to
 * next.
 */
final class DedicatedAsyncPools {

	private final LettuceConnectionProvider target;

	private final BoundedPoolConfig config;

	private final Duration maxWait;

	private final Map<Class<?>, WaitingAsyncPool> pools = new ConcurrentHashMap<>();

	private final Map<StatefulConnection<?, ?>, WaitingAsyncPool> borrowed = new ConcurrentHashMap<>();

	// Every connection the pools opened and have not closed: lent or idle.
	private final Set<StatefulConnection<?, ?>> opened = ConcurrentHashMap.newKeySet();

	// Borrows not complete yet (a connection being opened), for close() to close what
	// they bring.
	private final Set<CompletableFuture<StatefulConnection<?, ?>>> acquiring = ConcurrentHashMap.newKeySet();

	private volatile @Nullable Timer timer;

	DedicatedAsyncPools(LettuceConnectionProvider target, BoundedPoolConfig config, Duration maxWait) {
		this.target = target;
		this.config = config;
		this.maxWait = maxWait;
	}

	void setTimer(Timer timer) {
		this.timer = timer;
	}

	<T extends StatefulConnection<?, ?>> CompletionStage<T> borrow(Class<T> connectionType) {
		WaitingAsyncPool pool = this.pools.computeIfAbsent(connectionType, this::newPool);
		CompletableFuture<StatefulConnection<?, ?>> acquisition = pool.acquire();
		this.acquiring.add(acquisition);
		CompletableFuture<T> lent = new CompletableFuture<>();
		acquisition.whenComplete((connection, ex) -> {
			if (connection != null) {
				this.borrowed.put(connection, pool);
				// A caller that gave up before it arrived (a cancelled subscription)
				// will never release it.
				if (!lent.complete(connectionType.cast(connection))) {
					release(connection);
				}
			}
			else {
				lent.completeExceptionally(WaitingAsyncPool.isTurnTimeout(ex)
						? DedicatedConnectionPool.exhausted(pool.maxWait(), pool.maxTotal(), ex) : ex);
			}
			this.acquiring.remove(acquisition);
		});
		return lent;
	}

	private WaitingAsyncPool newPool(Class<?> connectionType) {
		BoundedAsyncPool<StatefulConnection<?, ?>> connections = new BoundedAsyncPool<>(new Connections(connectionType),
				onDemand(this.config));
		return new WaitingAsyncPool(connections, this.config.getMaxTotal(), this.maxWait, this.timer);
	}

	// Lettuce's pool keeps min-idle connections by opening them in the background, at
	// its creation and after borrows; while they open they count against max-active
	// without being there to lend, and a borrow that holds one of the waiting pool's
	// turns failed as "Pool exhausted" (a CI run found it in pooled mode with
	// min-idle=4). Here a connection opens when a borrow needs one and stays idle up to
	// max-idle.
	static BoundedPoolConfig onDemand(BoundedPoolConfig config) {
		return BoundedPoolConfig.builder()
			.maxTotal(config.getMaxTotal())
			.maxIdle(config.getMaxIdle())
			.minIdle(0)
			.testOnCreate(config.isTestOnCreate())
			.testOnAcquire(config.isTestOnAcquire())
			.testOnRelease(config.isTestOnRelease())
			.build();
	}

	/**
	 * Give back a connection if these pools lent it.
	 * @param connection the connection
	 * @return when it is back; {@code null} if these pools never opened it
	 * @throws PoolException if these pools have it back already
	 */
	@Nullable CompletableFuture<Void> release(StatefulConnection<?, ?> connection) {
		WaitingAsyncPool pool = this.borrowed.remove(connection);
		if (pool != null) {
			DedicatedConnectionPool.discardTransaction(connection);
			return pool.release(connection);
		}
		if (this.opened.contains(connection)) {
			throw new PoolException("Returned connection " + connection
					+ " was either previously returned or does not belong to this connection provider");
		}
		return null;
	}

	int waitingCount() {
		int waiting = 0;
		for (WaitingAsyncPool pool : this.pools.values()) {
			waiting += pool.waitingCount();
		}
		return waiting;
	}

	Duration longestWait() {
		Duration longest = Duration.ZERO;
		for (WaitingAsyncPool pool : this.pools.values()) {
			Duration waited = pool.longestWait();
			longest = (waited.compareTo(longest) > 0) ? waited : longest;
		}
		return longest;
	}

	int borrowedCount() {
		return this.borrowed.size();
	}

	int acquiringCount() {
		return this.acquiring.size();
	}

	/**
	 * Fail the waiting borrows and give back or close every connection: what is lent now,
	 * and what is still being opened as soon as it arrives.
	 * @return when each connection is back or closed
	 */
	List<CompletableFuture<Void>> releaseAll() {
		// Before connections go back: a waiter handed one would open another.
		this.pools.values().forEach(WaitingAsyncPool::failWaiting);
		List<CompletableFuture<Void>> closing = new ArrayList<>();
		// A connection still being opened would reach its borrower after the pool is
		// gone, borrowed and never closed: it is closed as soon as it arrives.
		for (CompletableFuture<StatefulConnection<?, ?>> acquisition : List.copyOf(this.acquiring)) {
			closing.add(acquisition.thenCompose(StatefulConnection::closeAsync));
		}
		this.borrowed.forEach((connection, pool) -> closing.add(pool.release(connection)));
		return closing;
	}

	/**
	 * Close the pools, and with them their idle connections. Only once the connections
	 * being opened have arrived ({@link #releaseAll()}), so that the pools they come from
	 * are still open to hand them over.
	 * @return when the pools are closed
	 */
	List<CompletableFuture<Void>> close() {
		this.borrowed.clear();
		this.acquiring.clear();
		List<CompletableFuture<Void>> pools = new ArrayList<>();
		this.pools.values().forEach((pool) -> pools.add(pool.closeAsync()));
		this.pools.clear();
		return pools;
	}

	/**
	 * Opens, checks and closes the connections of one type for its pool, as Lettuce's own
	 * factory does, and keeps {@link DedicatedAsyncPools#opened} current.
	 */
	private final class Connections implements AsyncObjectFactory<StatefulConnection<?, ?>> {

		private final Class<?> type;

		Connections(Class<?> type) {
			this.type = type;
		}

		@Override
		public CompletableFuture<StatefulConnection<?, ?>> create() {
			return DedicatedAsyncPools.this.target.getConnectionAsync(connectionClass())
				.<StatefulConnection<?, ?>>thenApply(this::opened)
				.toCompletableFuture();
		}

		private StatefulConnection<?, ?> opened(StatefulConnection<?, ?> connection) {
			DedicatedAsyncPools.this.opened.add(connection);
			return connection;
		}

		@SuppressWarnings("unchecked")
		private Class<StatefulConnection<?, ?>> connectionClass() {
			return (Class<StatefulConnection<?, ?>>) this.type;
		}

		@Override
		public CompletableFuture<Void> destroy(StatefulConnection<?, ?> connection) {
			DedicatedAsyncPools.this.opened.remove(connection);
			return connection.closeAsync();
		}

		@Override
		public CompletableFuture<Boolean> validate(StatefulConnection<?, ?> connection) {
			return CompletableFuture.completedFuture(connection.isOpen());
		}

	}

}
