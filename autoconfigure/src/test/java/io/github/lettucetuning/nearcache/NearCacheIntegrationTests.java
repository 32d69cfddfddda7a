package io.github.lettucetuning.nearcache;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.nearcache.LettuceTuningNearCacheAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache of Spring Boot's RedisCacheManager against a real Redis: hits served
 * from memory, changes by another client seen, FLUSHALL and a killed tracking connection
 * empty it, caches not listed and applications without the property behave as stock.
 */
@RedisStandaloneTest
@Timeout(120)
class NearCacheIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(1);

	private final RedisStandalone redis;

	private final ApplicationContextRunner runner;

	NearCacheIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.runner = application().withPropertyValues("spring.data.redis.port=" + redis.port());
	}

	@Test
	void hitIsServedFromMemory() {
		nearCache().run((context) -> {
			Cache books = books(context);
			set("books::hit", "v1");
			// The SET's own invalidation may reach the near cache after the first read
			// put its placeholder, which then keeps nothing: the second read keeps it
			assertThat(books.get("hit", String.class)).isEqualTo("v1");
			assertThat(books.get("hit", String.class)).isEqualTo("v1");
			long reads = reads();
			for (int i = 0; i < 100; i++) {
				assertThat(books.get("hit", String.class)).isEqualTo("v1");
			}
			assertThat(reads()).isEqualTo(reads);
			assertThat(writer(context).localSize()).isEqualTo(1);
		});
	}

	@Test
	void keyChangedByAnotherClientIsSeenChanged() {
		nearCache().run((context) -> {
			Cache books = books(context);
			set("books::changed", "v1");
			assertThat(books.get("changed", String.class)).isEqualTo("v1");
			this.redis.node().command("SET", "books::changed", "v2");
			Awaitility.await()
				.atMost(BOUND)
				.pollInterval(Duration.ofMillis(5))
				.until(() -> "v2".equals(books.get("changed", String.class)));
			this.redis.node().command("DEL", "books::changed");
			Awaitility.await().atMost(BOUND).until(() -> books.get("changed") == null);
		});
	}

	@Test
	void flushAllEmptiesTheNearCache() {
		nearCache().run((context) -> {
			Cache books = books(context);
			set("books::flushed", "v1");
			assertThat(books.get("flushed", String.class)).isEqualTo("v1");
			assertThat(books.get("flushed", String.class)).isEqualTo("v1");
			assertThat(writer(context).localSize()).isEqualTo(1);
			this.redis.node().command("FLUSHALL");
			Awaitility.await().atMost(BOUND).until(() -> writer(context).localSize() == 0);
			assertThat(books.get("flushed")).isNull();
		});
	}

	// Spring Data sends put, evict and clear without waiting for Redis (its default
	// since 4.0, also without the starter), so each is awaited.
	@Test
	void writesThroughTheCacheDropTheLocalCopy() {
		nearCache().run((context) -> {
			Cache books = books(context);
			set("books::written", "v1");
			assertThat(books.get("written", String.class)).isEqualTo("v1");
			books.put("written", "v2");
			awaitValue(books, "written", "v2");
			books.evict("written");
			awaitValue(books, "written", null);
			books.put("written", "v3");
			awaitValue(books, "written", "v3");
			books.clear();
			awaitValue(books, "written", null);
		});
	}

	@Test
	void localEntryExpiresWithTheRedisEntry() {
		nearCache().run((context) -> {
			Cache books = books(context);
			this.redis.node().command("SET", "books::ttl", "v1", "PX", "300");
			assertThat(books.get("ttl", String.class)).isEqualTo("v1");
			assertThat(writer(context).localSize()).isOne();
			// The entry is kept no longer than Redis's PTTL; a loaded machine may delay
			// the poll, not the expiry.
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> books.get("ttl") == null);
			assertThat(writer(context).localSize()).isZero();
		});
	}

	@Test
	void killedTrackingConnectionEmptiesTheNearCacheUntilTrackingIsBack() {
		nearCache().run((context) -> {
			Cache books = books(context);
			set("books::killed", "v1");
			assertThat(books.get("killed", String.class)).isEqualTo("v1");
			InvalidationTracking tracking = writer(context).tracking();
			long before = tracking.epoch();
			assertThat(tracking.isTracking(before)).isTrue();
			this.redis.node().command("CLIENT", "KILL", "ID", String.valueOf(trackingClient(this.redis.node()).id()));
			Awaitility.await().atMost(BOUND).until(() -> tracking.epoch() > before);
			assertThat(writer(context).localSize()).isZero();
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(tracking::isTracking);
			assertThat(trackingClients()).isOne();
			assertThat(books.get("killed", String.class)).isEqualTo("v1");
			long reads = reads();
			assertThat(books.get("killed", String.class)).isEqualTo("v1");
			assertThat(reads()).isEqualTo(reads);
			this.redis.node().command("SET", "books::killed", "v2");
			Awaitility.await().atMost(BOUND).until(() -> "v2".equals(books.get("killed", String.class)));
		});
	}

	@Test
	void cacheNotListedReadsRedisEveryTime() {
		nearCache().run((context) -> {
			Cache other = context.getBean(CacheManager.class).getCache("other");
			set("other::k", "v1");
			long reads = reads();
			for (int i = 0; i < 10; i++) {
				assertThat(other.get("k", String.class)).isEqualTo("v1");
			}
			assertThat(reads()).isEqualTo(reads + 10);
			this.redis.node().command("SET", "other::k", "v2");
			assertThat(other.get("k", String.class)).isEqualTo("v2");
		});
	}

	@Test
	void offByDefault() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(LettuceTuningNearCacheAutoConfiguration.class);
			RedisCacheManager manager = context.getBean(RedisCacheManager.class);
			Cache books = manager.getCache("books");
			assertThat(books.getNativeCache()).isNotInstanceOf(NearCacheWriter.class);
			set("books::off", "v1");
			long reads = reads();
			assertThat(books.get("off", String.class)).isEqualTo("v1");
			assertThat(books.get("off", String.class)).isEqualTo("v1");
			assertThat(reads()).isEqualTo(reads + 2);
			assertThat(trackingClients()).isZero();
		});
	}

	@Test
	void trackingConnectionClosesWithTheContext() {
		nearCache().run((context) -> {
			Cache books = books(context);
			set("books::closed", "v1");
			assertThat(books.get("closed", String.class)).isEqualTo("v1");
			assertThat(trackingClients()).isOne();
			assertThat(trackingClient(this.redis.node()).fields().get("flags")).contains("t");
		});
		Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> trackingClients() == 0);
	}

	@Test
	void invalidMaximumSizeFailsStartup() {
		nearCache().withPropertyValues("lettuce.tuning.near-cache.maximum-size=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lettuce.tuning.near-cache.maximum-size")
				.hasMessageContaining("at least 1"));
	}

	/**
	 * An application with the starter, Boot's cache support and the near cache's
	 * auto-configuration, and string values in the cache, as the near-cache tests run it.
	 * @return the runner, without the server's address or the near cache's caches
	 */
	static ApplicationContextRunner application() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class,
							CacheAutoConfiguration.class, LettuceTuningNearCacheAutoConfiguration.class))
			.withUserConfiguration(CachingConfiguration.class);
	}

	private ApplicationContextRunner nearCache() {
		return this.runner.withPropertyValues("lettuce.tuning.near-cache.caches=books");
	}

	private void set(String key, String value) {
		this.redis.node().command("SET", key, value);
	}

	private static void awaitValue(Cache cache, String key, @Nullable String value) {
		Awaitility.await().atMost(BOUND).until(() -> Objects.equals(cache.get(key, String.class), value));
	}

	private static Cache books(AssertableApplicationContext context) {
		return context.getBean(CacheManager.class).getCache("books");
	}

	private static NearCacheWriter writer(AssertableApplicationContext context) {
		return (NearCacheWriter) books(context).getNativeCache();
	}

	private long reads() {
		return reads(this.redis.node());
	}

	/**
	 * The reads a server ran: every GET, also inside the near cache's script, counts as a
	 * keyspace hit or miss.
	 * @param node the server
	 * @return its keyspace hits and misses
	 */
	static long reads(RedisNode node) {
		Map<String, String> stats = node.info("stats");
		return Long.parseLong(stats.get("keyspace_hits")) + Long.parseLong(stats.get("keyspace_misses"));
	}

	private long trackingClients() {
		return this.redis.node().countClients(InvalidationTracking.CLIENT_NAME);
	}

	/**
	 * The near cache's tracking connection, as the server lists it.
	 * @param node the server
	 * @return the connection's entry in {@code CLIENT LIST}
	 */
	static ClientInfo trackingClient(RedisNode node) {
		return node.clientList()
			.stream()
			.filter((client) -> client.name().equals(InvalidationTracking.CLIENT_NAME))
			.findFirst()
			.orElseThrow();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class CachingConfiguration {

		@Bean
		RedisCacheConfiguration redisCacheConfiguration() {
			return RedisCacheConfiguration.defaultCacheConfig()
				.serializeValuesWith(SerializationPair.fromSerializer(RedisSerializer.string()));
		}

	}

}
