package io.github.lettucetuning.nearcache;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.nearcache.LettuceTuningNearCacheAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.actuate.endpoint.CachesEndpoint;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.CachesEndpointAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Boot's {@code caches} endpoint over a near-cached RedisCacheManager, against a
 * real Redis: it lists the caches, and clearing one through it drops the local copies at
 * once, before Redis has deleted anything (writes are paused on the server, so no
 * invalidation can have done it); the next read goes to Redis and sees what is there.
 */
@RedisStandaloneTest
@Timeout(60)
class NearCacheCachesEndpointIntegrationTests {

	private final RedisStandalone redis;

	private final ApplicationContextRunner runner;

	NearCacheCachesEndpointIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, CacheAutoConfiguration.class,
					LettuceTuningNearCacheAutoConfiguration.class, CachesEndpointAutoConfiguration.class))
			.withUserConfiguration(NearCacheIntegrationTests.CachingConfiguration.class)
			.withPropertyValues("spring.data.redis.port=" + redis.port(), "lettuce.tuning.near-cache.caches=books",
					"spring.cache.cache-names=books", "management.endpoints.web.exposure.include=caches");
	}

	@AfterEach
	void unpause() {
		this.redis.node().command("CLIENT", "UNPAUSE");
	}

	@Test
	void listsTheNearCachedCaches() {
		this.runner.run((context) -> {
			CachesEndpoint endpoint = context.getBean(CachesEndpoint.class);
			assertThat(endpoint.caches().getCacheManagers()).containsOnlyKeys("cacheManager");
			assertThat(endpoint.caches().getCacheManagers().get("cacheManager").getCaches()).containsKey("books");
			assertThat(endpoint.cache("books", null).getTarget()).isEqualTo(NearCacheWriter.class.getName());
		});
	}

	@Test
	void clearingThroughTheEndpointDropsTheLocalCopies() {
		this.runner.run((context) -> {
			Cache books = context.getBean(CacheManager.class).getCache("books");
			this.redis.node().command("SET", "books::cleared", "v1");
			assertThat(books.get("cleared", String.class)).isEqualTo("v1");
			long reads = reads();
			assertThat(books.get("cleared", String.class)).isEqualTo("v1");
			assertThat(reads()).as("a hit reads nothing in Redis").isEqualTo(reads);
			assertThat(writer(context).localSize()).isOne();
			// Spring Data sends the clear without waiting for Redis: it returns while its
			// DEL waits for the pause to end
			this.redis.node().command("CLIENT", "PAUSE", "10000", "WRITE");
			assertThat(context.getBean(CachesEndpoint.class).clearCache("books", null)).isTrue();
			assertThat(writer(context).localSize()).isZero();
			assertThat(this.redis.node().command("EXISTS", "books::cleared")).isEqualTo(1L);
			this.redis.node().command("CLIENT", "UNPAUSE");
			Awaitility.await()
				.atMost(Duration.ofSeconds(5))
				.until(() -> Long.valueOf(0).equals(this.redis.node().command("EXISTS", "books::cleared")));
			this.redis.node().command("SET", "books::cleared", "v2");
			reads = reads();
			assertThat(books.get("cleared", String.class)).isEqualTo("v2");
			assertThat(reads()).as("the read after the clear goes to Redis").isGreaterThan(reads);
		});
	}

	private static NearCacheWriter writer(AssertableApplicationContext context) {
		return (NearCacheWriter) context.getBean(CacheManager.class).getCache("books").getNativeCache();
	}

	private long reads() {
		return NearCacheIntegrationTests.reads(this.redis.node());
	}

}
