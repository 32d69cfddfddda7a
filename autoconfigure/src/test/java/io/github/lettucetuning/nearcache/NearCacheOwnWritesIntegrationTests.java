package io.github.lettucetuning.nearcache;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.cache.RedisCache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A near cache's own writes against a real Redis: {@code put}, {@code evict} and
 * {@code evictIfPresent} go on the tracking connection, whose writes Redis does not echo
 * back as invalidations, while another client's writes of the same keys still invalidate
 * them; and a write that fails there, to run later, leaves no stale copy behind.
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
			// client's, run last, comes after any echo of the cache's own
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
			holdTrackingConnection(tracking);
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

	// @CacheEvict(beforeInvocation = true) and Cache.evictIfPresent: the caller waits for
	// the DEL and learns whether the key was there, as it does without the near cache.
	@Test
	void anEvictIfPresentWaitsForRedisOnTheTrackingConnectionAndIsNotEchoedBack() {
		this.runner.run((context) -> {
			Cache books = books(context);
			NearCacheWriter writer = writer(context);
			set("books::k", "v1");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			assertThat(hits(context)).isOne();
			assertThat(books.evictIfPresent("k")).isTrue();
			assertThat(get("books::k")).isNull();
			assertThat(trackingClient().cmd()).isEqualTo("del");
			assertThat(books.evictIfPresent("k")).isFalse();
			assertThat(books.get("k")).isNull();
			set("books::k", "v2");
			Awaitility.await().atMost(BOUND).until(() -> writer.statistics().invalidatedKeys() > 0);
			assertThat(writer.statistics().invalidatedKeys()).isOne();
			assertThat(books.get("k", String.class)).isEqualTo("v2");
		});
	}

	// The DEL waits behind a BLPOP of 1.5 s on the tracking connection, past the 300 ms
	// timeout: the caller gets Spring Data's timeout exception. A read meanwhile takes
	// the value from Redis; once the DEL has run, which nothing echoes, that value must
	// not be served.
	@Test
	void anEvictIfPresentThatTimesOutFailsAsSpringDatasAndLeavesNoStaleCopy() {
		this.runner.withPropertyValues("spring.data.redis.timeout=300ms").run((context) -> {
			Cache books = books(context);
			InvalidationTracking tracking = writer(context).tracking();
			set("books::late", "v1");
			assertThat(books.get("late", String.class)).isEqualTo("v1");
			holdTrackingConnection(tracking);
			assertThatExceptionOfType(QueryTimeoutException.class).isThrownBy(() -> books.evictIfPresent("late"));
			assertThat(tracking.interruptions()).isOne();
			assertThat(books.get("late", String.class)).isEqualTo("v1");
			Awaitility.await().atMost(BOUND).until(() -> get("books::late") == null);
			// reads issue tracking again; none may serve the value the DEL removed
			AtomicReference<String> stale = new AtomicReference<>();
			Awaitility.await().atMost(BOUND).until(() -> {
				String value = books.get("late", String.class);
				if (value != null) {
					stale.set(value);
				}
				return tracking.isTracking();
			});
			assertThat(books.get("late")).isNull();
			assertThat(stale.get()).isNull();
		});
	}

	// A primary demoted in place answers every write with READONLY: such a write never
	// runs, so tracking stands and values are kept again at once. The role-change guard
	// closes the connection once (at most once a minute here), not on every write.
	@Test
	void aWriteRedisRefusesLeavesTrackingOn() {
		this.runner.withPropertyValues("lettuce.tuning.resilience.role-change.min-interval=1m").run((context) -> {
			Cache books = books(context);
			InvalidationTracking tracking = writer(context).tracking();
			set("books::k", "v1");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			assertThat(tracking.isTracking()).isTrue();
			this.redis.node().command("REPLICAOF", "127.0.0.1", "1");
			try {
				assertThatExceptionOfType(RedisSystemException.class).isThrownBy(() -> books.evictIfPresent("k"));
				Awaitility.await().atMost(BOUND).until(() -> {
					books.get("k");
					return tracking.isTracking() && hits(context) > 0;
				});
				long interruptions = tracking.interruptions();
				long hits = hits(context);
				for (int i = 0; i < 5; i++) {
					assertThatExceptionOfType(RedisSystemException.class).isThrownBy(() -> books.evictIfPresent("k"))
						.withRootCauseInstanceOf(RedisReadOnlyException.class);
					books.put("k", "v2");
				}
				// the writes drop the key when sent and when refused; read again, it is
				// kept again
				Awaitility.await().atMost(BOUND).until(() -> {
					assertThat(books.get("k", String.class)).isEqualTo("v1");
					return hits(context) > hits;
				});
				assertThat(tracking.interruptions()).isEqualTo(interruptions);
				assertThat(tracking.isTracking()).isTrue();
			}
			finally {
				this.redis.node().command("REPLICAOF", "NO", "ONE");
			}
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

	// What the tracking connection is sent next waits in Redis for 1.5 s
	private static void holdTrackingConnection(InvalidationTracking tracking) {
		StatefulRedisConnection<byte[], byte[]> trackingConnection = tracking.writeConnection();
		assertThat(trackingConnection).isNotNull();
		trackingConnection.async().blpop(1.5, "hold".getBytes(StandardCharsets.UTF_8));
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
