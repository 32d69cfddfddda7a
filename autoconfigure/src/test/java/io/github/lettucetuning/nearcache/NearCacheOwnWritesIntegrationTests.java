package io.github.lettucetuning.nearcache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.data.redis.cache.RedisCache;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A near cache's own writes against a real Redis: {@code put} and {@code evict} go on the
 * tracking connection, whose writes Redis does not echo back as invalidations, while
 * another client's writes of the same keys still invalidate them; and a write that fails
 * there, to run later, leaves no stale copy behind.
 */
@RedisStandaloneTest
@Timeout(120)
class NearCacheOwnWritesIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(5);

	private final RedisStandalone redis;

	private final ApplicationContextRunner runner;

	NearCacheOwnWritesIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.runner = NearCacheIntegrationTests.application()
			.withPropertyValues("spring.data.redis.port=" + redis.port(), "lettuce.tuning.near-cache.caches=books");
	}

	@BeforeEach
	void flush() {
		this.redis.node().command("FLUSHALL");
	}

	@Test
	void writesThroughTheCacheAreNotEchoedBackWhileAnotherClientsAre() {
		this.runner.run((context) -> {
			Cache books = books(context);
			NearCacheWriter writer = writer(context);
			set("books::k", "v1");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			books.put("k", "v2");
			Awaitility.await().atMost(BOUND).until(() -> "v2".equals(get("books::k")));
			assertThat(trackingClient().cmd()).isEqualTo("set");
			assertThat(books.get("k", String.class)).isEqualTo("v2");
			assertThat(books.get("k", String.class)).isEqualTo("v2");
			assertThat(hits(context)).isOne();
			books.evict("k");
			Awaitility.await().atMost(BOUND).until(() -> get("books::k") == null);
			assertThat(trackingClient().cmd()).isEqualTo("del");
			assertThat(books.get("k")).isNull();
			// Redis sends invalidations in the order it ran the writes: the other
			// client's,
			// run last, comes after any echo of the cache's own
			set("books::k", "v3");
			Awaitility.await().atMost(BOUND).until(() -> writer.statistics().invalidatedKeys() > 0);
			assertThat(writer.statistics().invalidatedKeys()).isOne();
			assertThat(books.get("k", String.class)).isEqualTo("v3");
			assertThat(books.get("k", String.class)).isEqualTo("v3");
			set("books::k", "v4");
			Awaitility.await().atMost(BOUND).until(() -> writer.statistics().invalidatedKeys() == 2);
			assertThat(books.get("k", String.class)).isEqualTo("v4");
		});
	}

	// A BLPOP on the tracking connection holds the put behind it in Redis for 1.5 s, past
	// the caller's 300 ms timeout; a read meanwhile takes the old value from Redis, then
	// the put runs. Nothing echoes that write back, so the value read before it must not
	// be served from memory afterwards.
	@Test
	void aWriteThatFailsAndRunsLaterLeavesNoStaleCopy() {
		this.runner.withPropertyValues("spring.data.redis.timeout=300ms").run((context) -> {
			Cache books = books(context);
			InvalidationTracking tracking = writer(context).tracking();
			set("books::late", "v1");
			assertThat(books.get("late", String.class)).isEqualTo("v1");
			assertThat(books.get("late", String.class)).isEqualTo("v1");
			assertThat(hits(context)).isOne();
			StatefulRedisConnection<byte[], byte[]> trackingConnection = tracking.writeConnection();
			assertThat(trackingConnection).isNotNull();
			trackingConnection.async().blpop(1.5, "hold".getBytes(StandardCharsets.UTF_8));
			books.put("late", "v2");
			Awaitility.await().pollDelay(Duration.ofMillis(500)).atMost(BOUND).until(() -> true);
			assertThat(books.get("late", String.class)).isEqualTo("v1");
			Awaitility.await().atMost(BOUND).until(() -> "v2".equals(get("books::late")));
			long hitsBefore = hits(context);
			AtomicReference<String> servedFromMemory = new AtomicReference<>();
			Awaitility.await().atMost(BOUND).until(() -> {
				String value = books.get("late", String.class);
				if (hits(context) > hitsBefore) {
					servedFromMemory.set(value);
				}
				return servedFromMemory.get() != null;
			});
			assertThat(servedFromMemory.get()).isEqualTo("v2");
			assertThat(tracking.interruptions()).isOne();
		});
	}

	@Test
	void writesOnTheTrackingConnectionCountInTheCachesStatistics() {
		this.runner.withPropertyValues("spring.cache.redis.enable-statistics=true").run((context) -> {
			RedisCache books = (RedisCache) books(context);
			assertThat(books.get("k")).isNull();
			books.put("k", "v1");
			books.evict("k");
			Awaitility.await().atMost(BOUND).until(() -> books.getStatistics().getDeletes() == 1);
			assertThat(books.getStatistics().getPuts()).isOne();
			assertThat(trackingClient().cmd()).isEqualTo("del");
		});
	}

	@Test
	void aCacheWithoutANearCacheWritesThroughTheApplicationsConnections() {
		this.runner.run((context) -> {
			Cache books = books(context);
			Cache authors = context.getBean(CacheManager.class).getCache("authors");
			assertThat(books.get("k")).isNull();
			authors.put("k", "v1");
			Awaitility.await().atMost(BOUND).until(() -> "v1".equals(get("authors::k")));
			assertThat(trackingClient().cmd()).isNotEqualTo("set");
			assertThat(authors.get("k", String.class)).isEqualTo("v1");
		});
	}

	private static long hits(AssertableApplicationContext context) {
		return writer(context).statistics().reads().get("books").hits();
	}

	private ClientInfo trackingClient() {
		return NearCacheIntegrationTests.trackingClient(this.redis.node());
	}

	private void set(String key, String value) {
		this.redis.node().command("SET", key, value);
	}

	private Object get(String key) {
		return this.redis.node().command("GET", key);
	}

	private static Cache books(AssertableApplicationContext context) {
		return context.getBean(CacheManager.class).getCache("books");
	}

	private static NearCacheWriter writer(AssertableApplicationContext context) {
		return (NearCacheWriter) books(context).getNativeCache();
	}

}
