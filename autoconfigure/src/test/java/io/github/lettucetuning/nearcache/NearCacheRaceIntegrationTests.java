package io.github.lettucetuning.nearcache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.cache.CacheStatistics;
import org.springframework.data.redis.cache.CacheStatisticsCollector;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The classic race of a near cache, against a real Redis: a read runs in Redis, another
 * client then changes the key, and its invalidation reaches the near cache before the
 * read's reply is handed back. The value read must be returned to its caller (it was true
 * when read) and never kept.
 */
@RedisStandaloneTest
@Timeout(60)
class NearCacheRaceIntegrationTests {

	private static final String CACHE = "race";

	private static final byte[] KEY = "race::k".getBytes(StandardCharsets.UTF_8);

	private final RedisStandalone redis;

	private final AtomicInteger invalidations = new AtomicInteger();

	// Runs once, after the next read's reply came back from Redis and before the near
	// cache sees it
	private final AtomicReference<Runnable> afterNextRead = new AtomicReference<>();

	private LettuceConnectionFactory factory;

	private NearCacheWriter writer;

	NearCacheRaceIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void createWriter() {
		this.factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.redis.host(), this.redis.port()));
		this.factory.afterPropertiesSet();
		this.factory.start();
		RedisClient client = (RedisClient) this.factory.getRequiredNativeClient();
		RedisCacheWriter redisWriter = RedisCacheWriter.nonLockingRedisCacheWriter(this.factory);
		this.writer = NearCacheWriter.create(new InterleavingWriter(redisWriter), (name) -> true, 100,
				(store) -> new InvalidationTracking(() -> client, () -> List.of("race::"), new Counting(store)));
	}

	@AfterEach
	void closeWriter() {
		this.writer.tracking().close();
		this.factory.destroy();
	}

	@Test
	void readWithoutInterleavingIsKept() {
		this.redis.node().command("SET", "race::k", "v1");
		assertThat(string(this.writer.get(CACHE, KEY))).isEqualTo("v1");
		assertThat(this.writer.localSize()).isOne();
	}

	@Test
	void replyArrivingAfterTheInvalidationOfItsKeyIsNeverKept() {
		this.redis.node().command("SET", "race::k", "v1");
		this.writer.tracking().epoch();
		Awaitility.await().atMost(Duration.ofSeconds(2)).until(this.writer.tracking()::isTracking);
		this.afterNextRead.set(this::changeKeyAndAwaitItsInvalidation);
		assertThat(string(this.writer.get(CACHE, KEY))).isEqualTo("v1");
		assertThat(this.writer.localSize()).isZero();
		assertThat(string(this.writer.get(CACHE, KEY))).isEqualTo("v2");
		assertThat(string(this.writer.get(CACHE, KEY))).isEqualTo("v2");
		assertThat(this.writer.localSize()).isOne();
	}

	// A second read of the key starts after the invalidation removed the first read's
	// placeholder and is still waiting when the first read's (stale) reply is handed
	// back: the second read's placeholder must not let the first keep its value.
	@Test
	void aReadStartedAfterTheInvalidationDoesNotLetAnEarlierReplyBeKept() throws Exception {
		this.redis.node().command("SET", "race::k", "v1");
		this.writer.tracking().epoch();
		Awaitility.await().atMost(Duration.ofSeconds(2)).until(this.writer.tracking()::isTracking);
		CountDownLatch secondReplied = new CountDownLatch(1);
		CountDownLatch releaseSecond = new CountDownLatch(1);
		CompletableFuture<@Nullable String> second = new CompletableFuture<>();
		this.afterNextRead.set(() -> {
			changeKeyAndAwaitItsInvalidation();
			this.afterNextRead.set(() -> {
				secondReplied.countDown();
				await(releaseSecond);
			});
			Thread reader = new Thread(() -> second.complete(string(this.writer.get(CACHE, KEY))));
			reader.start();
			await(secondReplied);
		});
		assertThat(string(this.writer.get(CACHE, KEY))).isEqualTo("v1");
		releaseSecond.countDown();
		assertThat(second.get(5, TimeUnit.SECONDS)).isEqualTo("v2");
		assertThat(string(this.writer.get(CACHE, KEY))).isEqualTo("v2");
	}

	private void changeKeyAndAwaitItsInvalidation() {
		int before = this.invalidations.get();
		this.redis.node().command("SET", "race::k", "v2");
		Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> this.invalidations.get() > before);
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(5, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static @Nullable String string(byte @Nullable [] value) {
		return (value != null) ? new String(value, StandardCharsets.UTF_8) : null;
	}

	private final class Counting implements InvalidationTracking.Invalidations {

		private final InvalidationTracking.Invalidations store;

		Counting(InvalidationTracking.Invalidations store) {
			this.store = store;
		}

		@Override
		public void invalidate(List<byte[]> keys) {
			this.store.invalidate(keys);
			NearCacheRaceIntegrationTests.this.invalidations.incrementAndGet();
		}

		@Override
		public void invalidateAll() {
			this.store.invalidateAll();
			NearCacheRaceIntegrationTests.this.invalidations.incrementAndGet();
		}

	}

	// Redis's writer, except that a read's reply is held back, when asked, until another
	// client has changed the key and its invalidation has been handled.
	private final class InterleavingWriter implements RedisCacheWriter {

		private final RedisCacheWriter delegate;

		InterleavingWriter(RedisCacheWriter delegate) {
			this.delegate = delegate;
		}

		@Override
		public <T> T execute(Function<RedisConnection, T> callback) {
			T reply = this.delegate.execute(callback);
			Runnable hook = NearCacheRaceIntegrationTests.this.afterNextRead.getAndSet(null);
			if (hook != null) {
				hook.run();
			}
			return reply;
		}

		@Override
		public byte @Nullable [] get(String name, byte[] key) {
			return this.delegate.get(name, key);
		}

		@Override
		public CompletableFuture<byte[]> retrieve(String name, byte[] key, @Nullable Duration ttl) {
			return this.delegate.retrieve(name, key, ttl);
		}

		@Override
		public void put(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
			this.delegate.put(name, key, value, ttl);
		}

		@Override
		public CompletableFuture<Void> store(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
			return this.delegate.store(name, key, value, ttl);
		}

		@Override
		public byte @Nullable [] putIfAbsent(String name, byte[] key, byte[] value, @Nullable Duration ttl) {
			return this.delegate.putIfAbsent(name, key, value, ttl);
		}

		@Override
		public void evict(String name, byte[] key) {
			this.delegate.evict(name, key);
		}

		@Override
		public void clear(String name, byte[] pattern) {
			this.delegate.clear(name, pattern);
		}

		@Override
		public void clearStatistics(String name) {
			this.delegate.clearStatistics(name);
		}

		@Override
		public RedisCacheWriter withStatisticsCollector(CacheStatisticsCollector cacheStatisticsCollector) {
			return new InterleavingWriter(this.delegate.withStatisticsCollector(cacheStatisticsCollector));
		}

		@Override
		public CacheStatistics getCacheStatistics(String cacheName) {
			return this.delegate.getCacheStatistics(cacheName);
		}

	}

}
