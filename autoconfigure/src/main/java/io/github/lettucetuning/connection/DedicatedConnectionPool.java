package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.support.AsyncPool;
import io.lettuce.core.support.CommonsPool2ConfigConverter;
import io.netty.util.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.util.Assert;

/**
 * A bounded pool of dedicated connections: the ones a caller holds alone for a
 * transaction, a blocking command, Pub/Sub or a pipelining session. One commons-pool2
 * pool per connection type (and, in {@link DedicatedAsyncPools}, a Lettuce
 * {@link AsyncPool} for asynchronous borrows), each waiting at most {@code maxWait} when
 * exhausted.
 * <p>
 * When the configuration asks for {@link GenericObjectPoolConfig#getFairness() fairness},
 * waiting callers get connections in the order they asked. commons-pool2 lets a caller
 * that has just returned a connection take one again ahead of those already waiting; with
 * long holds (a pipeline of a hundred commands) and many callers, some waited past their
 * bound and failed while others borrowed again and again. Its own fair mode makes its
 * internal lock fair, which every borrow and return then queue for: with a thousand
 * virtual threads that convoy pushed waits past the bound too. So fairness is kept here
 * instead, by a fair semaphore of {@code maxTotal} permits in front of an unfair pool:
 * only callers that must wait queue, and a return hands its permit to the oldest.
 * <p>
 * It follows Spring Data Redis's {@code LettucePoolingConnectionProvider}: a
 * commons-pool2 pool per connection type and a Lettuce {@link AsyncPool} beside it for
 * asynchronous borrows, maps from a connection to the pool it goes back to, an open
 * {@code MULTI} discarded before a connection goes back, and a {@link #destroy()} that
 * closes connections still borrowed and those still being opened for an asynchronous
 * borrow (it waits for them, up to the connect timeout). It differs where pooled mode,
 * which borrows for every command, or a bounded wait needs it:
 * <ul>
 * <li>the pool a synchronous connection goes back to is recorded once, when the
 * connection is created, rather than at every borrow, which would make a map entry of
 * garbage per command;</li>
 * <li>a caller waits at most {@code maxWait}, then fails with a {@link PoolException}
 * that names the properties to change, and fairness is kept by the semaphore above rather
 * than by commons-pool2's fair lock;</li>
 * <li>an asynchronous borrow (a reactive command) waits for a connection too, in arrival
 * order and at most {@code maxWait} ({@link #setTimer(Timer)}), where Lettuce's
 * {@link AsyncPool} fails it at once;</li>
 * <li>a connection returned that the pool never opened (one Spring Data opened through
 * the target, or one to a given node, which bypasses the pool) goes back to the target
 * provider instead of failing; one the pool opened and has back already fails, as in
 * Spring Data, and is never closed under the borrower it went to next;</li>
 * <li>with {@link #setValidateConnection(boolean) validation} on, a connection must
 * answer a {@code PING} before it is lent.</li>
 * </ul>
 * Each connection's bookkeeping is commons-pool2's own {@link DefaultPooledObject}. A
 * replacement keeping epoch milliseconds instead of {@code Instant}s was measured against
 * it (docs/benchmarks/results.md, "Pooled mode: own pooled object against
 * commons-pool2's"): per borrow and return, 96 against 96 bytes on JDK 17 and 48 against
 * 96 on JDK 25, and no time difference beyond the noise of a shared 2-core machine; not
 * worth a second copy of commons-pool2's state machine.
 *
 * @since 0.1.0
 */
// Works around commons-pool2 letting a returning thread borrow ahead of those waiting:
// docs/upstream.md#fair-hand-over-in-front-of-commons-pool2
public final class DedicatedConnectionPool
		implements LettuceConnectionProvider, LettuceConnectionProvider.TargetAware, DisposableBean {

	private static final Log logger = LogFactory.getLog(DedicatedConnectionPool.class);

	private final LettuceConnectionProvider target;

	private final GenericObjectPoolConfig<StatefulConnection<?, ?>> config;

	private final DedicatedAsyncPools async;

	private final Map<Class<?>, GenericObjectPool<StatefulConnection<?, ?>>> pools = new ConcurrentHashMap<>();

	// Per pool, when fair: permits for its maximum number of connections.
	private final Map<GenericObjectPool<?>, Semaphore> turns = new ConcurrentHashMap<>();

	private final AtomicLong longestTurnWaitNanos = new AtomicLong();

	// Which pool created a connection, recorded once per connection rather than once per
	// borrow: pooled mode borrows for every command, and a map entry per borrow is
	// garbage.
	private final Map<StatefulConnection<?, ?>, GenericObjectPool<StatefulConnection<?, ?>>> owners = new ConcurrentHashMap<>();

	private volatile boolean validateConnection;

	/**
	 * Create a pool.
	 * @param target the provider that opens new connections
	 * @param config the pool configuration; a negative max wait lets a caller wait
	 * forever, which the application has to ask for explicitly; fairness serves waiting
	 * callers in arrival order
	 */
	public DedicatedConnectionPool(LettuceConnectionProvider target,
			GenericObjectPoolConfig<StatefulConnection<?, ?>> config) {
		this.target = target;
		this.config = config;
		this.async = new DedicatedAsyncPools(target, CommonsPool2ConfigConverter.bounded(config),
				config.getMaxWaitDuration());
	}

	@Override
	public <T extends StatefulConnection<?, ?>> T getConnection(Class<T> connectionType) {
		GenericObjectPool<StatefulConnection<?, ?>> pool = pool(connectionType);
		Semaphore turn = this.turns.get(pool);
		if (turn == null) {
			return connectionType.cast(borrow(pool, pool.getMaxWaitDuration()));
		}
		Duration left = awaitTurn(pool, turn);
		try {
			return connectionType.cast(borrow(pool, left));
		}
		catch (RuntimeException ex) {
			turn.release();
			throw ex;
		}
	}

	// With a turn taken, a connection is free or can be opened: the pool waits only if
	// one is being destroyed, and then no longer than what is left of the bound. A
	// negative wait is commons-pool2's "forever".
	private StatefulConnection<?, ?> borrow(GenericObjectPool<StatefulConnection<?, ?>> pool, Duration maxWait) {
		try {
			return pool.borrowObject(maxWait);
		}
		catch (NoSuchElementException ex) {
			throw exhausted(pool.getMaxWaitDuration(), pool.getMaxTotal(), ex);
		}
		catch (Exception ex) {
			throw new PoolException("Could not get a dedicated Redis connection from the pool", ex);
		}
	}

	// Not tryAcquire(): it takes a free permit ahead of the callers waiting, even when
	// fair, and so lets a caller that has just returned a connection jump the queue.
	// Returns what is left of the pool's wait once the turn is taken.
	private Duration awaitTurn(GenericObjectPool<?> pool, Semaphore turn) {
		Duration maxWait = pool.getMaxWaitDuration();
		long start = System.nanoTime();
		long waited;
		try {
			if (maxWait.isNegative()) {
				turn.acquire();
			}
			else if (!turn.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
				// What commons-pool2 throws when it times out, so callers see one
				// failure.
				throw exhausted(pool.getMaxWaitDuration(), pool.getMaxTotal(),
						new NoSuchElementException("Timeout waiting for a turn"));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new PoolException("Interrupted while waiting for a dedicated Redis connection", ex);
		}
		finally {
			waited = System.nanoTime() - start;
			this.longestTurnWaitNanos.accumulateAndGet(waited, Math::max);
		}
		return maxWait.isNegative() ? maxWait : Duration.ofNanos(Math.max(0, maxWait.toNanos() - waited));
	}

	static PoolException exhausted(Duration maxWait, int maxTotal, Throwable cause) {
		return new PoolException(("Timed out after %dms waiting for a dedicated Redis connection: all %d are in use. "
				+ "Raise spring.data.redis.lettuce.pool.max-active, "
				+ "or spring.data.redis.lettuce.pool.max-wait to wait longer")
			.formatted(maxWait.toMillis(), maxTotal), cause);
	}

	@Override
	public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
		return this.async.borrow(connectionType);
	}

	@Override
	public <T extends StatefulConnection<?, ?>> T getConnection(Class<T> connectionType, RedisURI redisURI) {
		return targetAware().getConnection(connectionType, redisURI);
	}

	@Override
	public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType,
			RedisURI redisURI) {
		return targetAware().getConnectionAsync(connectionType, redisURI);
	}

	// Connections to a given node (Sentinel, cluster node) are one-offs: they bypass the
	// pool.
	private TargetAware targetAware() {
		if (this.target instanceof TargetAware targetAware) {
			return targetAware;
		}
		throw new UnsupportedOperationException(this.target.getClass().getName() + " cannot connect to a given node");
	}

	@Override
	public void release(StatefulConnection<?, ?> connection) {
		GenericObjectPool<StatefulConnection<?, ?>> pool = this.owners.get(connection);
		if (pool != null) {
			discardTransaction(connection);
			// Throws when the connection was returned already: then its turn was too.
			pool.returnObject(connection);
			Semaphore turn = this.turns.get(pool);
			if (turn != null) {
				turn.release();
			}
			return;
		}
		CompletableFuture<Void> released = this.async.release(connection);
		if (released != null) {
			released.join();
			return;
		}
		this.target.release(connection);
	}

	@Override
	public CompletableFuture<Void> releaseAsync(StatefulConnection<?, ?> connection) {
		CompletableFuture<Void> released;
		try {
			released = this.async.release(connection);
		}
		catch (PoolException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (released != null) {
			return released;
		}
		release(connection);
		return CompletableFuture.completedFuture(null);
	}

	// A connection must not go back to the pool inside a MULTI its borrower left open.
	static void discardTransaction(StatefulConnection<?, ?> connection) {
		if (connection instanceof StatefulRedisConnection<?, ?> redisConnection && redisConnection.isMulti()) {
			redisConnection.async().discard();
		}
	}

	/**
	 * Set whether a connection is checked with a {@code PING} before it is lent, and
	 * replaced when it is not open or does not answer. Without it, a borrow checks
	 * nothing unless the pool configuration tests on borrow, and then only that it is
	 * open.
	 * @param validateConnection whether to validate before lending
	 */
	public void setValidateConnection(boolean validateConnection) {
		this.validateConnection = validateConnection;
		for (GenericObjectPool<?> pool : this.pools.values()) {
			pool.setTestOnBorrow(validateConnection || this.config.getTestOnBorrow());
		}
	}

	/**
	 * Set the timer that ends an asynchronous borrow's wait for a connection after
	 * {@code maxWait}, typically the client's. Without one, an asynchronous borrow fails
	 * at once when every connection is lent, as Lettuce's own pool does.
	 * @param timer the timer, set before the first asynchronous borrow
	 */
	public void setTimer(Timer timer) {
		this.async.setTimer(timer);
	}

	/**
	 * Open the configured minimum of idle connections of the given type now, instead of
	 * on first use.
	 * @param connectionType the type of connection the callers borrow
	 */
	public void prewarm(Class<?> connectionType) {
		try {
			pool(connectionType).preparePool();
		}
		catch (Exception ex) {
			logger.warn("Could not prewarm the dedicated Redis connection pool; it fills on first use instead", ex);
		}
	}

	/**
	 * Return the settings every pool of this one is opened with, as a copy: what the
	 * client reports as the pool's configuration.
	 * @return the pool settings
	 */
	public GenericObjectPoolConfig<StatefulConnection<?, ?>> config() {
		return this.config.clone();
	}

	/**
	 * Return the pools opened so far, by connection type: for metrics and health.
	 * @return the synchronous pools
	 */
	public Map<Class<?>, GenericObjectPool<StatefulConnection<?, ?>>> pools() {
		return Map.copyOf(this.pools);
	}

	/**
	 * Return the number of callers waiting for a connection now.
	 * @return the waiting count
	 */
	public int waitingCount() {
		int waiting = this.async.waitingCount();
		for (GenericObjectPool<?> pool : this.pools.values()) {
			Semaphore turn = this.turns.get(pool);
			waiting += pool.getNumWaiters() + ((turn != null) ? turn.getQueueLength() : 0);
		}
		return waiting;
	}

	/**
	 * Return the longest a caller has waited for a connection.
	 * @return the longest wait since start
	 */
	public Duration longestWait() {
		Duration longest = Duration.ofNanos(this.longestTurnWaitNanos.get());
		Duration waitedAsync = this.async.longestWait();
		longest = (waitedAsync.compareTo(longest) > 0) ? waitedAsync : longest;
		for (GenericObjectPool<?> pool : this.pools.values()) {
			Duration waited = pool.getMaxBorrowWaitDuration();
			longest = (waited.compareTo(longest) > 0) ? waited : longest;
		}
		return longest;
	}

	/**
	 * Return the number of connections currently borrowed from this pool.
	 * @return the active count
	 */
	public int borrowedCount() {
		int borrowed = this.async.borrowedCount();
		for (GenericObjectPool<?> pool : this.pools.values()) {
			borrowed += pool.getNumActive();
		}
		return borrowed;
	}

	private GenericObjectPool<StatefulConnection<?, ?>> pool(Class<?> connectionType) {
		Class<StatefulConnection<?, ?>> type = connectionClass(connectionType);
		return this.pools.computeIfAbsent(connectionType, (key) -> {
			Factory factory = new Factory(type);
			GenericObjectPoolConfig<StatefulConnection<?, ?>> unfair = this.config.clone();
			unfair.setFairness(false);
			GenericObjectPool<StatefulConnection<?, ?>> pool = new GenericObjectPool<>(factory, unfair);
			pool.setTestOnBorrow(this.validateConnection || this.config.getTestOnBorrow());
			factory.pool = pool;
			if (this.config.getFairness() && this.config.getMaxTotal() > 0) {
				this.turns.put(pool, new Semaphore(this.config.getMaxTotal(), true));
			}
			return pool;
		});
	}

	@SuppressWarnings("unchecked")
	private static Class<StatefulConnection<?, ?>> connectionClass(Class<?> connectionType) {
		if (!StatefulConnection.class.isAssignableFrom(connectionType)) {
			throw new IllegalArgumentException(connectionType.getName() + " is not a StatefulConnection");
		}
		return (Class<StatefulConnection<?, ?>>) connectionType;
	}

	@Override
	public void destroy() {
		int borrowed = borrowedCount();
		int acquiring = this.async.acquiringCount();
		if (borrowed > 0 || acquiring > 0) {
			logger.warn("Closing the dedicated Redis connection pool while " + borrowed
					+ " connections are still borrowed and " + acquiring + " being opened");
		}
		List<CompletableFuture<Void>> closing = this.async.releaseAll();
		this.pools.values().forEach(GenericObjectPool::close);
		this.pools.clear();
		// Closing a pool closes its idle connections only; borrowed ones are closed here.
		this.owners.keySet().forEach((connection) -> closing.add(connection.closeAsync()));
		this.owners.clear();
		awaitQuietly(closing);
		awaitQuietly(this.async.close());
	}

	// Failures to close are of no interest now: the connections are gone either way.
	private static void awaitQuietly(List<CompletableFuture<Void>> futures) {
		CompletableFuture.allOf(
				futures.stream().map((future) -> future.exceptionally((ex) -> null)).toArray(CompletableFuture[]::new))
			.join();
	}

	/**
	 * Opens the connections of one synchronous pool and records their owner.
	 */
	private final class Factory extends BasePooledObjectFactory<StatefulConnection<?, ?>> {

		private final Class<StatefulConnection<?, ?>> type;

		// Set once, before the pool is published to other threads.
		private @Nullable GenericObjectPool<StatefulConnection<?, ?>> pool;

		Factory(Class<StatefulConnection<?, ?>> type) {
			this.type = type;
		}

		@Override
		public StatefulConnection<?, ?> create() {
			StatefulConnection<?, ?> connection = DedicatedConnectionPool.this.target.getConnection(this.type);
			GenericObjectPool<StatefulConnection<?, ?>> owner = this.pool;
			Assert.state(owner != null, "The pool must be set before it creates connections");
			DedicatedConnectionPool.this.owners.put(connection, owner);
			return connection;
		}

		@Override
		public PooledObject<StatefulConnection<?, ?>> wrap(StatefulConnection<?, ?> connection) {
			return new DefaultPooledObject<>(connection);
		}

		@Override
		public boolean validateObject(PooledObject<StatefulConnection<?, ?>> pooled) {
			StatefulConnection<?, ?> connection = pooled.getObject();
			return connection.isOpen() && (!DedicatedConnectionPool.this.validateConnection || answers(connection));
		}

		private boolean answers(StatefulConnection<?, ?> connection) {
			try {
				if (connection instanceof StatefulRedisConnection<?, ?> redis) {
					redis.sync().ping();
				}
				else if (connection instanceof StatefulRedisClusterConnection<?, ?> cluster) {
					cluster.sync().ping();
				}
				return true;
			}
			catch (RuntimeException ex) {
				logger.debug("Validation of a dedicated Redis connection failed", ex);
				return false;
			}
		}

		@Override
		public void destroyObject(PooledObject<StatefulConnection<?, ?>> pooled) {
			StatefulConnection<?, ?> connection = pooled.getObject();
			DedicatedConnectionPool.this.owners.remove(connection);
			DedicatedConnectionPool.this.target.release(connection);
		}

	}

}
