package io.github.lettucetuning.nearcache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.stats.CacheStats;
import com.github.benmanes.caffeine.cache.stats.StatsCounter;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.ExceptionTranslationStrategy;
import org.springframework.data.redis.FallbackExceptionTranslationStrategy;
import org.springframework.data.redis.cache.CacheStatistics;
import org.springframework.data.redis.cache.CacheStatisticsCollector;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * A {@link RedisCacheWriter} that keeps the values its near caches read in memory and
 * serves them from there until Redis invalidates their key.
 * <p>
 * The rules, in the order a read meets them:
 * <ol>
 * <li>A value is served from memory only while tracking is on.</li>
 * <li>Before a read goes to Redis, a placeholder for the key goes into memory, tagged
 * with the tracking epoch. An invalidation of the key, or the loss of tracking, removes
 * it. The value read replaces the placeholder only if the placeholder is still there and
 * the epoch has not moved: a reply that arrives after the invalidation of its key is
 * never kept.</li>
 * <li>A read takes the value and its remaining time to live in one script, and the value
 * is dropped from memory when that time is up.</li>
 * <li>Every write through this writer (remove and clean reach evict and clear) drops the
 * key from memory when it is sent and again when the delegate returns (for {@code store},
 * when Redis has answered). Spring Data sends {@code put}, {@code evict} and
 * {@code clear} asynchronously by default, so a read may still take the previous value in
 * between; the write's invalidation, which Redis sends once it has run the write, drops
 * that copy.</li>
 * <li>While tracking is on, {@code put} and {@code evict} of a near cache go, without
 * waiting, as the delegate's do, on the tracking connection of a standalone or Sentinel
 * setup, whose own writes Redis does not echo back ({@code NOLOOP}): the key is dropped
 * when the write is sent and again when Redis has run it. {@code evictIfPresent} goes
 * there too, and waits for Redis as the delegate's does. One that fails without Redis's
 * answer may still run later, unheard, so tracking is issued again behind it on the same
 * connection, and nothing is served from memory until its reply.</li>
 * </ol>
 * Caches not named, and reads that refresh a time to idle, go straight to the delegate.
 * <p>
 * Each value held is a {@link HeldValue}: the bytes this writer returns are the value's
 * own array, marked as just served on the reading thread, so that the cache's
 * {@link SharedValueSerialization} can hand over the object it made of them before.
 * <p>
 * The store is bounded by entries or by the bytes of keys and values, over all near
 * caches. What it does is counted without a lock ({@link #statistics()}): reads served
 * from memory, read from Redis, or sent to Redis because tracking was not on, per cache;
 * the keys Redis invalidated and its flushes; the entries evicted by the bound or
 * expired.
 *
 * @since 0.1.0
 */
public final class NearCacheWriter implements RedisCacheWriter {

	// GET and PTTL in one round trip, one atomic step.
	private static final byte[] READ_SCRIPT = "return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}"
		.getBytes(StandardCharsets.UTF_8);

	private static final ExceptionTranslationStrategy EXCEPTION_TRANSLATION = new FallbackExceptionTranslationStrategy(
			new LettuceExceptionConverter());

	private final RedisCacheWriter delegate;

	private final Predicate<String> cached;

	private final LocalStore store;

	private final CacheStatisticsCollector statistics;

	private NearCacheWriter(RedisCacheWriter delegate, Predicate<String> cached, LocalStore store,
			CacheStatisticsCollector statistics) {
		this.delegate = delegate;
		this.cached = cached;
		this.store = store;
		this.statistics = statistics;
	}

	/**
	 * Create a writer and the store behind it, bounded by entries.
	 * @param delegate the writer that talks to Redis; a non-locking one, as Spring Boot's
	 * @param cached which cache names have a near cache
	 * @param maximumSize the most entries kept, over all caches
	 * @param tracking supplies the tracking; it is given the store's invalidations
	 * @return the writer
	 */
	public static NearCacheWriter create(RedisCacheWriter delegate, Predicate<String> cached, long maximumSize,
			Function<InvalidationTracking.Invalidations, InvalidationTracking> tracking) {
		return create(delegate, cached, Bound.entries(maximumSize), tracking);
	}

	/**
	 * Create a writer and the store behind it.
	 * @param delegate the writer that talks to Redis; a non-locking one, as Spring Boot's
	 * @param cached which cache names have a near cache
	 * @param bound how much the store keeps, over all caches
	 * @param tracking supplies the tracking; it is given the store's invalidations
	 * @return the writer
	 */
	public static NearCacheWriter create(RedisCacheWriter delegate, Predicate<String> cached, Bound bound,
			Function<InvalidationTracking.Invalidations, InvalidationTracking> tracking) {
		LocalStore store = new LocalStore(bound);
		store.tracking = tracking.apply(store);
		return new NearCacheWriter(delegate, cached, store, CacheStatisticsCollector.none());
	}

	/**
	 * The tracking that feeds this writer's store.
	 * @return the tracking
	 */
	public InvalidationTracking tracking() {
		return this.store.tracking();
	}

	/**
	 * How many entries, placeholders included, the store holds.
	 * @return the estimated size
	 */
	public long localSize() {
		return this.store.cache.estimatedSize();
	}

	/**
	 * What the store holds and has done since it was created.
	 * @return a snapshot of the counts
	 */
	public Statistics statistics() {
		return this.store.statistics();
	}

	@Override
	public byte @Nullable [] get(String name, byte[] key) {
		if (!this.cached.test(name)) {
			return this.delegate.get(name, key);
		}
		return read(name, key);
	}

	// The time to idle is refreshed by the read that Redis serves; a read served from
	// memory would not refresh it.
	@Override
	public byte @Nullable [] get(String name, byte[] key, @Nullable Duration ttl) {
		return this.delegate.get(name, key, ttl);
	}

	@Override
	public byte @Nullable [] get(String name, byte[] key, Supplier<byte[]> valueLoader, @Nullable Duration ttl,
			boolean timeToIdleEnabled) {
		if (!this.cached.test(name) || timeToIdleEnabled) {
			return this.delegate.get(name, key, valueLoader, ttl, timeToIdleEnabled);
		}
		byte[] read = read(name, key);
		if (read != null) {
			return read;
		}
		byte[] value = this.delegate.get(name, key, valueLoader, ttl, timeToIdleEnabled);
		this.store.drop(key);
		return value;
	}

	@Override
	public boolean supportsAsyncRetrieve() {
		return this.delegate.supportsAsyncRetrieve();
	}

	@Override
	public CompletableFuture<byte[]> retrieve(String name, byte[] key, @Nullable Duration ttl) {
		if (this.cached.test(name) && ttl == null) {
			byte[] local = this.store.local(key, this.store.reads(name));
			if (local != null) {
				return CompletableFuture.completedFuture(local);
			}
		}
		return this.delegate.retrieve(name, key, ttl);
	}

	@Override
	public void put(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		StatefulRedisConnection<byte[], byte[]> tracked = trackedWriter(name);
		if (tracked != null) {
			writeTracked(name, key, () -> set(tracked, key, value, ttl), () -> this.statistics.incPuts(name));
			return;
		}
		writingKey(name, key, () -> {
			this.delegate.put(name, key, value, ttl);
			return null;
		});
	}

	@Override
	public CompletableFuture<Void> store(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		return writingKeyAsync(name, key, () -> this.delegate.store(name, key, value, ttl));
	}

	@Override
	public byte @Nullable [] putIfAbsent(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		return writingKey(name, key, () -> this.delegate.putIfAbsent(name, key, value, ttl));
	}

	@Override
	public void evict(String name, byte[] key) {
		StatefulRedisConnection<byte[], byte[]> tracked = trackedWriter(name);
		if (tracked != null) {
			writeTracked(name, key, () -> tracked.async().del(key), () -> this.statistics.incDeletes(name));
			return;
		}
		writingKey(name, key, () -> {
			this.delegate.evict(name, key);
			return null;
		});
	}

	@Override
	public boolean evictIfPresent(String name, byte[] key) {
		StatefulRedisConnection<byte[], byte[]> tracked = trackedWriter(name);
		if (tracked != null) {
			return writingKey(name, key, () -> deleteTracked(name, key, tracked));
		}
		return writingKey(name, key, () -> this.delegate.evictIfPresent(name, key));
	}

	@Override
	public void clear(String name, byte[] pattern) {
		writingAll(name, () -> {
			this.delegate.clear(name, pattern);
			return null;
		});
	}

	@Override
	public boolean invalidate(String name, byte[] pattern) {
		return writingAll(name, () -> this.delegate.invalidate(name, pattern));
	}

	@Override
	public <T> T execute(Function<RedisConnection, T> callback) {
		return this.delegate.execute(callback);
	}

	@Override
	public void clearStatistics(String name) {
		this.delegate.clearStatistics(name);
	}

	@Override
	public CacheStatistics getCacheStatistics(String cacheName) {
		return this.delegate.getCacheStatistics(cacheName);
	}

	@Override
	public RedisCacheWriter withStatisticsCollector(CacheStatisticsCollector cacheStatisticsCollector) {
		return new NearCacheWriter(this.delegate.withStatisticsCollector(cacheStatisticsCollector), this.cached,
				this.store, cacheStatisticsCollector);
	}

	// The store calls back for the round trip on a miss only: a hit builds nothing.
	private byte @Nullable [] read(String name, byte[] key) {
		return this.store.read(name, key, this.store.reads(name), this);
	}

	private @Nullable ValueWithTtl readFromRedis(byte[] key) {
		return this.delegate.execute((connection) -> readWithTtl(connection, key));
	}

	// A write through the cache drops the local copy when it is sent and again when it
	// returns: a read in between may have taken the old value.
	private <T> T writingKey(String name, byte[] key, Supplier<T> write) {
		dropIfCached(name, key);
		try {
			return write.get();
		}
		finally {
			dropIfCached(name, key);
		}
	}

	// The same for a write that completes later: dropped again once Redis has answered.
	private <T> CompletableFuture<T> writingKeyAsync(String name, byte[] key, Supplier<CompletableFuture<T>> write) {
		dropIfCached(name, key);
		return write.get().whenComplete((done, failure) -> dropIfCached(name, key));
	}

	private @Nullable StatefulRedisConnection<byte[], byte[]> trackedWriter(String name) {
		return this.cached.test(name) ? this.store.tracking().writeConnection() : null;
	}

	// Sent without waiting, as Spring Data's own writes. Redis echoes no invalidation for
	// it, so the drop once it has run stands in for one.
	private void writeTracked(String name, byte[] key, Supplier<RedisFuture<?>> write, Runnable counted) {
		writingKeyAsync(name, key, () -> write.get().toCompletableFuture()).whenComplete((reply, failure) -> {
			if (failure != null) {
				this.store.tracking().writeFailed(failure);
			}
			else {
				counted.run();
			}
		});
	}

	// Waits for Redis, as Spring Data's does, within the connection's timeout; failures
	// reach the caller translated as Spring Data's are.
	private boolean deleteTracked(String name, byte[] key, StatefulRedisConnection<byte[], byte[]> tracked) {
		Long removed;
		try {
			removed = tracked.sync().del(key);
		}
		catch (RuntimeException ex) {
			this.store.tracking().writeFailed(ex);
			throw EXCEPTION_TRANSLATION.translate(ex);
		}
		this.statistics.incDeletes(name);
		return removed != null && removed > 0;
	}

	// As Spring Data's: a time to live only when positive, in milliseconds
	private static RedisFuture<String> set(StatefulRedisConnection<byte[], byte[]> connection, byte[] key, byte[] value,
			@Nullable Duration ttl) {
		if (ttl == null || ttl.isZero() || ttl.isNegative()) {
			return connection.async().set(key, value);
		}
		return connection.async().set(key, value, SetArgs.Builder.px(ttl));
	}

	private <T> T writingAll(String name, Supplier<T> write) {
		dropAllIfCached(name);
		try {
			return write.get();
		}
		finally {
			dropAllIfCached(name);
		}
	}

	private void dropIfCached(String name, byte[] key) {
		if (this.cached.test(name)) {
			this.store.drop(key);
		}
	}

	// The store does not know which cache a key belongs to; all of it goes.
	private void dropAllIfCached(String name) {
		if (this.cached.test(name)) {
			this.store.clear();
		}
	}

	private static @Nullable ValueWithTtl readWithTtl(RedisConnection connection, byte[] key) {
		List<Object> reply = connection.scriptingCommands().eval(READ_SCRIPT, ReturnType.MULTI, 1, key);
		if (reply == null || reply.size() < 2 || !(reply.get(0) instanceof byte[] value)) {
			return null;
		}
		long pttl = (reply.get(1) instanceof Long millis) ? millis : 0;
		return new ValueWithTtl(value, pttl);
	}

	record ValueWithTtl(byte[] value, long pttlMillis) {
	}

	/**
	 * How much the store keeps, over all near caches.
	 *
	 * @param maximum the most entries, or the most bytes of keys and values
	 * @param unit what the maximum counts
	 */
	public record Bound(long maximum, Unit unit) {

		/**
		 * Bound the store by entries.
		 * @param maximumSize the most entries
		 * @return the bound
		 */
		public static Bound entries(long maximumSize) {
			return new Bound(maximumSize, Unit.ENTRIES);
		}

		/**
		 * Bound the store by the bytes of its keys and values.
		 * @param maximumBytes the most bytes
		 * @return the bound
		 */
		public static Bound bytes(long maximumBytes) {
			return new Bound(maximumBytes, Unit.BYTES);
		}

		/**
		 * What a bound counts.
		 */
		public enum Unit {

			/**
			 * Entries, whatever their size.
			 */
			ENTRIES,

			/**
			 * Bytes of the keys and values, as Redis stores them; the heap they take is
			 * larger (object headers, the cache's own nodes).
			 */
			BYTES

		}

	}

	/**
	 * What the store holds and has done since it was created.
	 *
	 * @param entries the entries held, reads waiting for Redis's reply included
	 * @param bound the bound
	 * @param weight the bytes of keys and values held when the store is bounded by bytes,
	 * or {@code null}
	 * @param reads the reads per cache name, in the order the caches were first read
	 * @param invalidatedKeys the keys Redis's invalidations named, kept here or not
	 * @param flushes the invalidations of every key that Redis sent while tracking was on
	 * ({@code FLUSHALL}, {@code FLUSHDB})
	 * @param evictedBySize the entries evicted to stay within the bound
	 * @param expired the entries dropped when their time to live was up
	 */
	public record Statistics(long entries, Bound bound, @Nullable Long weight, Map<String, CacheReads> reads,
			long invalidatedKeys, long flushes, long evictedBySize, long expired) {
	}

	/**
	 * The reads of one cache.
	 *
	 * @param hits reads served from memory
	 * @param misses reads sent to Redis while tracking was on (the value was not held,
	 * had expired, or the lease had run out)
	 * @param bypassed reads sent to Redis because tracking was not on: not started yet,
	 * interrupted, or not possible
	 */
	public record CacheReads(long hits, long misses, long bypassed) {
	}

	// Counted on every read: LongAdders, which take no lock and spread contended
	// increments over cells.
	private static final class ReadCounts {

		private final LongAdder hits = new LongAdder();

		private final LongAdder misses = new LongAdder();

		private final LongAdder bypassed = new LongAdder();

		CacheReads snapshot() {
			return new CacheReads(this.hits.sum(), this.misses.sum(), this.bypassed.sum());
		}

	}

	// Caffeine's counter of what it does itself; only its evictions mean anything here.
	// Its hits and misses would count a read that finds another read's placeholder as a
	// hit, so the store counts reads itself.
	private static final class EvictionCounter implements StatsCounter {

		private final LongAdder bySize = new LongAdder();

		private final LongAdder expired = new LongAdder();

		@Override
		public void recordHits(int count) {
		}

		@Override
		public void recordMisses(int count) {
		}

		@Override
		public void recordLoadSuccess(long loadTime) {
		}

		@Override
		public void recordLoadFailure(long loadTime) {
		}

		@Override
		public void recordEviction(int weight, RemovalCause cause) {
			if (cause == RemovalCause.SIZE) {
				this.bySize.increment();
			}
			else if (cause == RemovalCause.EXPIRED) {
				this.expired.increment();
			}
		}

		@Override
		public CacheStats snapshot() {
			long evictions = this.bySize.sum() + this.expired.sum();
			return CacheStats.of(0, 0, 0, 0, 0, evictions, 0);
		}

	}

	/**
	 * A read that is waiting for Redis's reply. Compared by identity, not by value: one
	 * put after an invalidation removed another of the same epoch must not let the older
	 * read keep its value.
	 */
	private static final class Placeholder {

		private final long epoch;

		Placeholder(long epoch) {
			this.epoch = epoch;
		}

		long epoch() {
			return this.epoch;
		}

	}

	private static final class LocalStore implements InvalidationTracking.Invalidations {

		private final Cache<ByteBuffer, Object> cache;

		private final Bound bound;

		private final EvictionCounter evictions = new EvictionCounter();

		private final ConcurrentMap<String, ReadCounts> reads = new ConcurrentHashMap<>();

		private final LongAdder invalidatedKeys = new LongAdder();

		private final LongAdder flushes = new LongAdder();

		private @Nullable InvalidationTracking tracking;

		LocalStore(Bound bound) {
			this.bound = bound;
			Caffeine<Object, Object> builder = Caffeine.newBuilder();
			if (bound.unit() == Bound.Unit.BYTES) {
				builder.maximumWeight(bound.maximum()).weigher(LocalStore::weigh);
			}
			else {
				builder.maximumSize(bound.maximum());
			}
			this.cache = builder.executor(Runnable::run)
				.expireAfter(new EntryExpiry())
				.recordStats(() -> this.evictions)
				.build();
		}

		// The bytes of the key and of the value as Redis stores them; a placeholder
		// weighs its key. Read once, when an entry is put or replaced.
		private static int weigh(ByteBuffer key, Object value) {
			long bytes = key.remaining() + ((value instanceof HeldValue held) ? held.bytes().length : 0);
			return (int) Math.min(bytes, Integer.MAX_VALUE);
		}

		// A value kept and not expired; a placeholder is no value.
		private @Nullable HeldValue heldValue(byte[] key) {
			Object held = this.cache.getIfPresent(ByteBuffer.wrap(key));
			return (held instanceof HeldValue value && value.isLive()) ? value : null;
		}

		ReadCounts reads(String name) {
			ReadCounts counts = this.reads.get(name);
			return (counts != null) ? counts : this.reads.computeIfAbsent(name, (key) -> new ReadCounts());
		}

		Statistics statistics() {
			Map<String, CacheReads> byCache = new LinkedHashMap<>();
			this.reads.forEach((name, counts) -> byCache.put(name, counts.snapshot()));
			return new Statistics(this.cache.estimatedSize(), this.bound, weight(), byCache, this.invalidatedKeys.sum(),
					this.flushes.sum(), this.evictions.bySize.sum(), this.evictions.expired.sum());
		}

		private @Nullable Long weight() {
			if (this.bound.unit() != Bound.Unit.BYTES) {
				return null;
			}
			OptionalLong weight = this.cache.policy()
				.eviction()
				.map(Policy.Eviction::weightedSize)
				.orElse(OptionalLong.empty());
			return weight.isPresent() ? weight.getAsLong() : null;
		}

		InvalidationTracking tracking() {
			InvalidationTracking current = this.tracking;
			if (current == null) {
				throw new IllegalStateException("The store has no tracking");
			}
			return current;
		}

		byte @Nullable [] local(byte[] key, ReadCounts counts) {
			InvalidationTracking tracking = tracking();
			if (!tracking.serves()) {
				(tracking.isTracking() ? counts.misses : counts.bypassed).increment();
				return null;
			}
			HeldValue held = heldValue(key);
			if (held == null) {
				counts.misses.increment();
				return null;
			}
			counts.hits.increment();
			return held.serve();
		}

		byte @Nullable [] read(String name, byte[] key, ReadCounts counts, NearCacheWriter redis) {
			InvalidationTracking tracking = tracking();
			long epoch = tracking.epoch();
			if ((epoch & 1) == 0) {
				counts.bypassed.increment();
				return redis.delegate.get(name, key);
			}
			HeldValue held = heldValue(key);
			if (held != null && tracking.serves(epoch)) {
				counts.hits.increment();
				return held.serve();
			}
			counts.misses.increment();
			return readAndKeep(key, tracking, epoch, redis);
		}

		// The miss, in a method of its own: the hit above stays small enough for the JIT
		// to inline it into the caller's chain whole.
		private byte @Nullable [] readAndKeep(byte[] key, InvalidationTracking tracking, long epoch,
				NearCacheWriter redis) {
			ByteBuffer local = ByteBuffer.wrap(key.clone());
			Placeholder placeholder = placeholder(local, epoch);
			boolean installed = false;
			try {
				ValueWithTtl read = redis.readFromRedis(key);
				if (read == null) {
					return null;
				}
				long ttlNanos = (read.pttlMillis() < 0) ? Long.MAX_VALUE / 2
						: TimeUnit.MILLISECONDS.toNanos(read.pttlMillis());
				HeldValue entry = new HeldValue(read.value(), System.nanoTime() + ttlNanos);
				if (tracking.isTracking(epoch) && read.pttlMillis() != 0) {
					installed = this.cache.asMap().replace(local, placeholder, entry);
					// Tracking lost after the check: the loss's clear may have run before
					// the replace.
					if (installed && !tracking.isTracking(epoch)) {
						this.cache.asMap().remove(local, entry);
						installed = false;
					}
				}
				return installed ? entry.serve() : read.value();
			}
			finally {
				if (!installed) {
					this.cache.asMap().remove(local, placeholder);
				}
			}
		}

		// Reads of one key that miss at once share the placeholder of the first: it was
		// put before any of them was sent, so while it is there no invalidation of the
		// key came after any of their reads, and whichever reply comes first is kept.
		// Each putting its own would leave only the last one able to keep its value.
		private Placeholder placeholder(ByteBuffer local, long epoch) {
			Placeholder fresh = new Placeholder(epoch);
			Object existing = this.cache.asMap().putIfAbsent(local, fresh);
			if (existing == null) {
				return fresh;
			}
			if (existing instanceof Placeholder shared && shared.epoch() == epoch) {
				return shared;
			}
			if (existing instanceof HeldValue) {
				// Kept by a read that finished meanwhile: left alone, this read's value
				// is returned, not kept
				return fresh;
			}
			this.cache.put(local, fresh);
			return fresh;
		}

		void drop(byte[] key) {
			this.cache.invalidate(ByteBuffer.wrap(key));
		}

		// A write through the cache: not an invalidation Redis sent.
		void clear() {
			this.cache.invalidateAll();
		}

		@Override
		public void invalidate(List<byte[]> keys) {
			this.invalidatedKeys.add(keys.size());
			for (byte[] key : keys) {
				this.cache.invalidate(ByteBuffer.wrap(key));
			}
		}

		// The tracking calls this for a flush, while tracking is on, and for its own
		// loss, after it has ended tracking: only the first is Redis's invalidation.
		@Override
		public void invalidateAll() {
			InvalidationTracking current = this.tracking;
			if (current != null && current.isTracking()) {
				this.flushes.increment();
			}
			this.cache.invalidateAll();
		}

	}

	private static final class EntryExpiry implements Expiry<ByteBuffer, Object> {

		@Override
		public long expireAfterCreate(ByteBuffer key, Object value, long currentTime) {
			return (value instanceof HeldValue held) ? Math.max(0, held.expiresAt() - System.nanoTime())
					: Long.MAX_VALUE;
		}

		@Override
		public long expireAfterUpdate(ByteBuffer key, Object value, long currentTime, long currentDuration) {
			return expireAfterCreate(key, value, currentTime);
		}

		@Override
		public long expireAfterRead(ByteBuffer key, Object value, long currentTime, long currentDuration) {
			return currentDuration;
		}

	}

}
