package io.github.lettucetuning.nearcache;

import java.time.Duration;
import java.util.List;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Changes that Redis makes on its own invalidate the near cache: {@code FLUSHDB}, a key
 * that expires, a key evicted under {@code maxmemory}. Each asserts that the local copy
 * is gone before any read (an entry Caffeine holds past its time is still counted until a
 * read cleans it up, so an empty store means Redis's invalidation removed it), and that
 * the next read does not return the old value.
 */
@RedisStandaloneTest
@Timeout(120)
class NearCacheServerInvalidationIntegrationTests {

	private static final Duration INVALIDATED = Duration.ofSeconds(2);

	private final RedisStandalone redis;

	private final ApplicationContextRunner runner;

	NearCacheServerInvalidationIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.runner = NearCacheIntegrationTests.application()
			.withPropertyValues("spring.data.redis.port=" + redis.port(), "lettuce.tuning.near-cache.caches=books");
	}

	@Test
	void flushDbEmptiesTheNearCache() {
		this.runner.run((context) -> {
			Cache books = cached(context, "flushdb", "v1");
			node().command("FLUSHDB");
			Awaitility.await().atMost(INVALIDATED).until(() -> writer(context).localSize() == 0);
			assertThat(books.get("flushdb")).isNull();
		});
	}

	@Test
	void keyThatRedisExpiresIsNotServedAfter() {
		this.runner.run((context) -> {
			Cache books = cached(context, "expires", "v1");
			// Longer than the reads below take, short enough for Redis's active expiry
			node().command("PEXPIRE", "books::expires", "500");
			// PEXPIRE is a write: its invalidation drops the copy; read it again
			Awaitility.await().atMost(INVALIDATED).until(() -> writer(context).localSize() == 0);
			assertThat(books.get("expires", String.class)).isEqualTo("v1");
			assertThat(writer(context).localSize()).isOne();
			// No read from here on until the copy is gone: Redis's active expiry deletes
			// the key and sends its invalidation
			Awaitility.await()
				.atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> writer(context).localSize() == 0);
			assertThat(expiredKeys()).isPositive();
			assertThat(books.get("expires")).isNull();
		});
	}

	@Test
	void keyEvictedUnderMaxmemoryIsNotServedAfter() {
		RedisNode node = node();
		String maxmemory = config(node, "maxmemory");
		String policy = config(node, "maxmemory-policy");
		this.runner.run((context) -> {
			Cache books = cached(context, "evicted", "v1");
			long used = Long.parseLong(node.info("memory").get("used_memory"));
			node.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
			node.command("CONFIG", "SET", "maxmemory", String.valueOf(used + 2 * 1024 * 1024));
			try {
				// Reads served from memory do not touch the key in Redis, so it is the
				// least recently used: fill until Redis evicts it
				String filler = "x".repeat(10 * 1024);
				for (int i = 0; i < 2000 && exists(node, "books::evicted"); i++) {
					node.command("SET", "filler:" + i, filler);
				}
				assertThat(exists(node, "books::evicted")).isFalse();
				assertThat(Long.parseLong(node.info("stats").get("evicted_keys"))).isPositive();
				Awaitility.await().atMost(INVALIDATED).until(() -> writer(context).localSize() == 0);
				assertThat(books.get("evicted")).isNull();
			}
			finally {
				node.command("CONFIG", "SET", "maxmemory", maxmemory);
				node.command("CONFIG", "SET", "maxmemory-policy", policy);
				node.command("FLUSHALL");
			}
		});
		assertThat(config(node, "maxmemory")).isEqualTo(maxmemory);
		assertThat(config(node, "maxmemory-policy")).isEqualTo(policy);
	}

	// A value read once, then served from memory
	private Cache cached(AssertableApplicationContext context, String key, String value) {
		Cache books = context.getBean(CacheManager.class).getCache("books");
		node().command("SET", "books::" + key, value);
		assertThat(books.get(key, String.class)).isEqualTo(value);
		long reads = reads();
		assertThat(books.get(key, String.class)).isEqualTo(value);
		assertThat(reads()).isEqualTo(reads);
		assertThat(writer(context).localSize()).isOne();
		return books;
	}

	private RedisNode node() {
		return this.redis.node();
	}

	private static NearCacheWriter writer(AssertableApplicationContext context) {
		return (NearCacheWriter) context.getBean(CacheManager.class).getCache("books").getNativeCache();
	}

	private long reads() {
		return NearCacheIntegrationTests.reads(node());
	}

	private long expiredKeys() {
		return Long.parseLong(node().info("stats").get("expired_keys"));
	}

	private static boolean exists(RedisNode node, String key) {
		return !"0".equals(String.valueOf(node.command("EXISTS", key)));
	}

	private static String config(RedisNode node, String parameter) {
		Object reply = node.command("CONFIG", "GET", parameter);
		return String.valueOf(((List<?>) reply).get(1));
	}

}
