package io.github.lettucetuning.nearcache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.cache.CacheStatistics;
import org.springframework.data.redis.cache.CacheStatisticsCollector;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

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
 * </ol>
 * Caches not named, and reads that refresh a time to idle, go straight to the delegate.
 *
 * @since 0.1.0
 */
public final class NearCacheWriter implements RedisCacheWriter {

	// GET and PTTL in one round trip, one atomic step.
	private static final byte[] READ_SCRIPT = "return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}"
		.getBytes(StandardCharsets.UTF_8);

	private final RedisCacheWriter delegate;

	private final Predicate<String> cached;

	private final LocalStore store;

	private NearCacheWriter(RedisCacheWriter delegate, Predicate<String> cached, LocalStore store) {
		this.delegate = delegate;
		this.cached = cached;
		this.store = store;
	}

	/**
	 * Create a writer and the store behind it.
	 * @param delegate the writer that talks to Redis; a non-locking one, as Spring Boot's
	 * @param cached which cache names have a near cache
	 * @param maximumSize the most entries kept, over all caches
	 * @param tracking supplies the tracking; it is given the store's invalidations
	 * @return the writer
	 */
	public static NearCacheWriter create(RedisCacheWriter delegate, Predicate<String> cached, long maximumSize,
			Function<InvalidationTracking.Invalidations, InvalidationTracking> tracking) {
		LocalStore store = new LocalStore(maximumSize);
		store.tracking = tracking.apply(store);
		return new NearCacheWriter(delegate, cached, store);
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
			byte[] local = this.store.local(key);
			if (local != null) {
				return CompletableFuture.completedFuture(local);
			}
		}
		return this.delegate.retrieve(name, key, ttl);
	}

	@Override
	public void put(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		writingKey(name, key, () -> {
			this.delegate.put(name, key, value, ttl);
			return null;
		});
	}

	@Override
	public CompletableFuture<Void> store(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		dropIfCached(name, key);
		return this.delegate.store(name, key, value, ttl).whenComplete((done, failure) -> dropIfCached(name, key));
	}

	@Override
	public byte @Nullable [] putIfAbsent(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
		return writingKey(name, key, () -> this.delegate.putIfAbsent(name, key, value, ttl));
	}

	@Override
	public void evict(String name, byte[] key) {
		writingKey(name, key, () -> {
			this.delegate.evict(name, key);
			return null;
		});
	}

	@Override
	public boolean evictIfPresent(String name, byte[] key) {
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
				this.store);
	}

	private byte @Nullable [] read(String name, byte[] key) {
		return this.store.read(key, () -> this.delegate.execute((connection) -> readWithTtl(connection, key)),
				() -> this.delegate.get(name, key));
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
			this.store.invalidateAll();
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

	/**
	 * A value and when it expires, in {@link System#nanoTime()}.
	 */
	private record Entry(byte[] value, long expiresAt) {
	}

	private static final class LocalStore implements InvalidationTracking.Invalidations {

		private final Cache<ByteBuffer, Object> cache;

		private @Nullable InvalidationTracking tracking;

		LocalStore(long maximumSize) {
			this.cache = Caffeine.newBuilder()
				.maximumSize(maximumSize)
				.executor(Runnable::run)
				.expireAfter(new EntryExpiry())
				.build();
		}

		InvalidationTracking tracking() {
			InvalidationTracking current = this.tracking;
			if (current == null) {
				throw new IllegalStateException("The store has no tracking");
			}
			return current;
		}

		byte @Nullable [] local(byte[] key) {
			if (!tracking().serves()) {
				return null;
			}
			Object held = this.cache.getIfPresent(ByteBuffer.wrap(key));
			return (held instanceof Entry entry && entry.expiresAt - System.nanoTime() > 0) ? entry.value : null;
		}

		byte @Nullable [] read(byte[] key, Supplier<@Nullable ValueWithTtl> fromRedis,
				Supplier<byte @Nullable []> bypass) {
			InvalidationTracking tracking = tracking();
			long epoch = tracking.epoch();
			if ((epoch & 1) == 0) {
				return bypass.get();
			}
			Object held = this.cache.getIfPresent(ByteBuffer.wrap(key));
			if (held instanceof Entry entry && entry.expiresAt - System.nanoTime() > 0 && tracking.serves(epoch)) {
				return entry.value;
			}
			ByteBuffer local = ByteBuffer.wrap(key.clone());
			Placeholder placeholder = placeholder(local, epoch);
			boolean installed = false;
			try {
				ValueWithTtl read = fromRedis.get();
				if (read == null) {
					return null;
				}
				long ttlNanos = (read.pttlMillis() < 0) ? Long.MAX_VALUE / 2
						: TimeUnit.MILLISECONDS.toNanos(read.pttlMillis());
				Entry entry = new Entry(read.value(), System.nanoTime() + ttlNanos);
				if (tracking.isTracking(epoch) && read.pttlMillis() != 0) {
					installed = this.cache.asMap().replace(local, placeholder, entry);
					// Tracking lost after the check: the loss's clear may have run before
					// the replace.
					if (installed && !tracking.isTracking(epoch)) {
						this.cache.asMap().remove(local, entry);
					}
				}
				return read.value();
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
			if (existing instanceof Entry) {
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

		@Override
		public void invalidate(List<byte[]> keys) {
			for (byte[] key : keys) {
				this.cache.invalidate(ByteBuffer.wrap(key));
			}
		}

		@Override
		public void invalidateAll() {
			this.cache.invalidateAll();
		}

	}

	private static final class EntryExpiry implements Expiry<ByteBuffer, Object> {

		@Override
		public long expireAfterCreate(ByteBuffer key, Object value, long currentTime) {
			return (value instanceof Entry entry) ? Math.max(0, entry.expiresAt - System.nanoTime()) : Long.MAX_VALUE;
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
