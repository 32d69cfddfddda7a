package io.github.lettucetuning.nearcache;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Values the near cache serves from memory deserialised once and shared, against a real
 * Redis: always for immutable JDK types, for every type under
 * {@code store-by-value=false}, never across a change Redis reports. Values are
 * serialised by the JDK, set by an application customizer that runs before the starter's,
 * as Spring Data's default is.
 */
@RedisStandaloneTest
@Timeout(120)
class NearCacheSharedValuesIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(1);

	private final RedisStandalone redis;

	private final ApplicationContextRunner runner;

	NearCacheSharedValuesIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.runner = NearCacheIntegrationTests.application()
			.withUserConfiguration(JdkSerialization.class)
			.withPropertyValues("spring.data.redis.port=" + redis.port(),
					"lettuce.tuning.near-cache.caches=books,baskets");
	}

	// What a stock application may do: change the object it read and expect the cache to
	// hold what was written. With the default, it still can.
	@Test
	void byDefaultImmutableValuesAreSharedAndMutableValuesCopied() {
		this.runner.run((context) -> {
			Cache books = cache(context, "books");
			Cache baskets = cache(context, "baskets");
			books.putIfAbsent("title", new String("Dune"));
			baskets.putIfAbsent("b1", new Basket(List.of("apple")));
			String title = held(books, "title", String.class);
			Basket basket = held(baskets, "b1", Basket.class);
			long reads = reads();
			assertThat(books.get("title", String.class)).isSameAs(title);
			Basket again = baskets.get("b1", Basket.class);
			assertThat(again).isNotSameAs(basket).isEqualTo(new Basket(List.of("apple")));
			basket.items().add("pear");
			assertThat(baskets.get("b1", Basket.class)).isEqualTo(new Basket(List.of("apple")));
			assertThat(reads()).as("reads that reached Redis").isEqualTo(reads);
		});
	}

	@Test
	void storeByValueFalseSharesEveryValueUntilRedisChangesIt() {
		this.runner.withPropertyValues("lettuce.tuning.near-cache.store-by-value=false").run((context) -> {
			Cache baskets = cache(context, "baskets");
			baskets.putIfAbsent("b2", new Basket(List.of("apple")));
			Basket basket = held(baskets, "b2", Basket.class);
			long reads = reads();
			assertThat(baskets.get("b2", Basket.class)).isSameAs(basket);
			assertThat(reads()).as("reads that reached Redis").isEqualTo(reads);
			// Written past the cache: only Redis's invalidation can drop the shared
			// object
			byte[] changed = RedisSerializer.java().serialize(new Basket(List.of("plum")));
			try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
				connection.stringCommands().set("baskets::b2".getBytes(StandardCharsets.UTF_8), changed);
			}
			Awaitility.await()
				.atMost(BOUND)
				.pollInterval(Duration.ofMillis(5))
				.until(() -> new Basket(List.of("plum")).equals(baskets.get("b2", Basket.class)));
			Basket fresh = held(baskets, "b2", Basket.class);
			assertThat(fresh).isNotSameAs(basket);
			assertThat(baskets.get("b2", Basket.class)).isSameAs(fresh);
		});
	}

	@Test
	void writeThroughTheCacheIsReadBackNotTheSharedObject() {
		this.runner.withPropertyValues("lettuce.tuning.near-cache.store-by-value=false").run((context) -> {
			Cache baskets = cache(context, "baskets");
			baskets.putIfAbsent("b3", new Basket(List.of("apple")));
			Basket basket = held(baskets, "b3", Basket.class);
			baskets.evictIfPresent("b3");
			baskets.putIfAbsent("b3", new Basket(List.of("fig")));
			assertThat(baskets.get("b3", Basket.class)).isNotSameAs(basket).isEqualTo(new Basket(List.of("fig")));
		});
	}

	@Test
	void everyConfigurationOfANearCacheSharesAndTheOthersAreUnchanged() {
		this.runner.withPropertyValues("lettuce.tuning.near-cache.caches=books").run((context) -> {
			Cache baskets = cache(context, "baskets");
			// Created on the fly from the defaults
			cache(context, "books");
			RedisCacheManager manager = context.getBean(RedisCacheManager.class);
			Map<String, RedisCacheConfiguration> configurations = manager.getCacheConfigurations();
			assertThat(configurations.get("books").getValueSerializationPair())
				.isInstanceOf(SharedValueSerialization.class);
			assertThat(configurations.get("baskets").getValueSerializationPair())
				.isNotInstanceOf(SharedValueSerialization.class);
			baskets.putIfAbsent("b4", new Basket(List.of("apple")));
			long reads = reads();
			assertThat(baskets.get("b4", Basket.class)).isEqualTo(new Basket(List.of("apple")));
			assertThat(reads()).isEqualTo(reads + 1);
		});
	}

	// The first read may be Redis's, kept or not (its own write's invalidation may come
	// after it started); the value is held once a read sends nothing to Redis.
	private <T> T held(Cache cache, String key, Class<T> type) {
		Object[] value = new Object[1];
		Awaitility.await().atMost(BOUND).pollInterval(Duration.ofMillis(5)).until(() -> {
			long reads = reads();
			value[0] = cache.get(key, type);
			return value[0] != null && reads() == reads;
		});
		return type.cast(value[0]);
	}

	private static Cache cache(AssertableApplicationContext context, String name) {
		return context.getBean(CacheManager.class).getCache(name);
	}

	private long reads() {
		return NearCacheIntegrationTests.reads(this.redis.node());
	}

	/**
	 * A value a reader can change.
	 *
	 * @param items the items, in a list that can grow
	 */
	record Basket(List<String> items) implements Serializable {

		Basket {
			items = new ArrayList<>(items);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class JdkSerialization {

		@Bean
		RedisCacheManagerBuilderCustomizer jdkValues() {
			return (builder) -> {
				RedisCacheConfiguration jdk = builder.cacheDefaults()
					.serializeValuesWith(SerializationPair.fromSerializer(RedisSerializer.java()));
				builder.cacheDefaults(jdk).withCacheConfiguration("baskets", jdk);
			};
		}

	}

}
