package io.github.lettucetuning.nearcache;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.endpoint.LettuceTuningEndpointAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import io.github.lettucetuning.autoconfigure.nearcache.LettuceTuningNearCacheAutoConfiguration;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.protocol.ProtocolVersion;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache's meters and its part of the {@code lettuce} endpoint against a real
 * Redis: a miss then a hit, a key changed by another client, a {@code FLUSHALL}, a killed
 * tracking connection (reads bypass the near cache until tracking is back), evictions by
 * size and at the time to live, a store bounded by bytes, and a near cache that cannot
 * track (RESP2).
 */
@RedisStandaloneTest
@Timeout(120)
class NearCacheObservabilityIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(5);

	private final RedisStandalone redis;

	private final ApplicationContextRunner runner;

	NearCacheObservabilityIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, CacheAutoConfiguration.class,
					LettuceTuningNearCacheAutoConfiguration.class, LettuceTuningMetricsAutoConfiguration.class,
					LettuceTuningEndpointAutoConfiguration.class, MetricsAutoConfiguration.class,
					SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
			.withUserConfiguration(NearCacheIntegrationTests.CachingConfiguration.class)
			.withPropertyValues("spring.data.redis.port=" + redis.port(), "lettuce.tuning.near-cache.caches=books",
					"management.endpoints.web.exposure.include=lettuce");
	}

	@BeforeEach
	void flush() {
		this.redis.node().command("FLUSHALL");
	}

	@Test
	void aMissThenAHitAreCountedAndShown() {
		this.runner.run((context) -> {
			Cache books = books(context);
			set("books::k", "v1");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			assertThat(gets(context, "hit")).isEqualTo(2);
			assertThat(gets(context, "miss")).isEqualTo(1);
			assertThat(gets(context, "bypassed")).isZero();
			assertThat(gauge(context, "lettuce.tuning.near.cache.entries")).isEqualTo(1);
			assertThat(gauge(context, "lettuce.tuning.near.cache.tracking")).isEqualTo(1);
			ClientState.NearCache shown = endpoint(context);
			assertThat(shown.caches()).containsExactly("books");
			assertThat(shown.tracking()).isEqualTo("tracking");
			assertThat(shown.unsupportedReason()).isNull();
			assertThat(shown.entries()).isOne();
			assertThat(shown.bound()).isEqualTo("entries");
			assertThat(shown.maximum()).isEqualTo(10000);
			assertThat(shown.reads()).containsExactly(new ClientState.NearCacheReads("books", 2, 1, 0));
		});
	}

	@Test
	void aCacheNamedButNotReadIsShownWithNoReads() {
		this.runner.withPropertyValues("lettuce.tuning.near-cache.caches=books,authors").run((context) -> {
			assertThat(endpoint(context).reads()).containsExactly(new ClientState.NearCacheReads("books", 0, 0, 0),
					new ClientState.NearCacheReads("authors", 0, 0, 0));
			assertThat(meters(context).find("lettuce.tuning.near.cache.gets").tag("cache", "authors").meters())
				.hasSize(3);
		});
	}

	@Test
	void everyCacheIsCountedUnderOneSeries() {
		this.runner.withPropertyValues("lettuce.tuning.near-cache.caches=*").run((context) -> {
			set("books::k", "v1");
			set("authors::k", "v1");
			Cache books = books(context);
			Cache authors = context.getBean(CacheManager.class).getCache("authors");
			assertThat(books.get("k", String.class)).isEqualTo("v1");
			assertThat(authors.get("k", String.class)).isEqualTo("v1");
			assertThat(authors.get("k", String.class)).isEqualTo("v1");
			assertThat(counter(context, "lettuce.tuning.near.cache.gets", "cache", "*", "result", "miss")).isEqualTo(2);
			assertThat(counter(context, "lettuce.tuning.near.cache.gets", "cache", "*", "result", "hit")).isEqualTo(1);
			assertThat(endpoint(context).reads()).containsExactly(new ClientState.NearCacheReads("books", 0, 1, 0),
					new ClientState.NearCacheReads("authors", 1, 1, 0));
		});
	}

	@Test
	void anInvalidationFromAnotherClientIsCounted() {
		this.runner.run((context) -> {
			Cache books = books(context);
			set("books::changed", "v1");
			assertThat(books.get("changed", String.class)).isEqualTo("v1");
			assertThat(invalidatedKeys(context)).isZero();
			set("books::changed", "v2");
			Awaitility.await().atMost(BOUND).until(() -> invalidatedKeys(context) == 1);
			assertThat(gauge(context, "lettuce.tuning.near.cache.entries")).isZero();
			assertThat(books.get("changed", String.class)).isEqualTo("v2");
			assertThat(gets(context, "miss")).isEqualTo(2);
		});
	}

	@Test
	void aFlushIsCountedAsOne() {
		this.runner.run((context) -> {
			Cache books = books(context);
			set("books::flushed", "v1");
			assertThat(books.get("flushed", String.class)).isEqualTo("v1");
			this.redis.node().command("FLUSHALL");
			Awaitility.await().atMost(BOUND).until(() -> counter(context, "lettuce.tuning.near.cache.flushes") == 1);
			assertThat(gauge(context, "lettuce.tuning.near.cache.entries")).isZero();
			assertThat(endpoint(context).flushes()).isOne();
		});
	}

	// The first reconnect goes at once, so tracking is back within a round trip. The
	// kill and a pause of every client go in one transaction: Redis holds the new
	// connection's handshake, and so tracking, for the pause, and the read made
	// meanwhile reaches Redis once the pause ends.
	@Test
	void readsWhileTrackingIsDownAreCountedAsBypassed() {
		this.runner.run((context) -> {
			Cache books = books(context);
			set("books::killed", "v1");
			assertThat(books.get("killed", String.class)).isEqualTo("v1");
			assertThat(gets(context, "hit")).isZero();
			assertThat(books.get("killed", String.class)).isEqualTo("v1");
			assertThat(gets(context, "hit")).isOne();
			InvalidationTracking tracking = tracking(context);
			killAndPause(trackingClientId(), Duration.ofMillis(500));
			Awaitility.await().atMost(BOUND).until(() -> tracking.status() == InvalidationTracking.Status.INTERRUPTED);
			assertThat(books.get("killed", String.class)).isEqualTo("v1");
			assertThat(gets(context, "bypassed")).isOne();
			assertThat(gets(context, "hit")).isOne();
			assertThat(counter(context, "lettuce.tuning.near.cache.interruptions")).isOne();
			assertThat(endpoint(context).interruptions()).isOne();
			assertThat(endpoint(context).reads().get(0).bypassed()).isOne();
			Awaitility.await().atMost(BOUND).until(() -> "tracking".equals(endpoint(context).tracking()));
			assertThat(gauge(context, "lettuce.tuning.near.cache.tracking")).isEqualTo(1);
		});
	}

	private void killAndPause(long clientId, Duration pause) {
		try (RespClient admin = this.redis.node().connect()) {
			admin.command("MULTI");
			admin.command("CLIENT", "KILL", "ID", String.valueOf(clientId));
			admin.command("CLIENT", "PAUSE", String.valueOf(pause.toMillis()), "ALL");
			assertThat(admin.command("EXEC")).asList().containsExactly(1L, "OK");
		}
	}

	@Test
	void aCacheThatCannotTrackSaysWhyAndCountsEveryReadAsBypassed() {
		this.runner
			.withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> builder.protocolVersion(ProtocolVersion.RESP2))
			.run((context) -> {
				Cache books = books(context);
				set("books::resp2", "v1");
				for (int i = 0; i < 5; i++) {
					assertThat(books.get("resp2", String.class)).isEqualTo("v1");
				}
				ClientState.NearCache shown = endpoint(context);
				assertThat(shown.tracking()).isEqualTo("unsupported");
				assertThat(shown.unsupportedReason()).contains("RESP2");
				assertThat(shown.entries()).isZero();
				assertThat(gets(context, "bypassed")).isEqualTo(5);
				assertThat(gets(context, "hit")).isZero();
				assertThat(gauge(context, "lettuce.tuning.near.cache.tracking")).isZero();
			});
	}

	@Test
	void entriesPastTheMaximumSizeAreEvicted() {
		this.runner.withPropertyValues("lettuce.tuning.near-cache.maximum-size=2").run((context) -> {
			Cache books = books(context);
			// Written before tracking opens, on the first read: no invalidation of a
			// write can then remove a read's placeholder, and every read keeps its value
			for (int i = 0; i < 10; i++) {
				set("books::k" + i, "v" + i);
			}
			for (int i = 0; i < 10; i++) {
				assertThat(books.get("k" + i, String.class)).isEqualTo("v" + i);
			}
			assertThat(gauge(context, "lettuce.tuning.near.cache.entries")).isLessThanOrEqualTo(2);
			assertThat(counter(context, "lettuce.tuning.near.cache.evictions", "cause", "size"))
				.isGreaterThanOrEqualTo(8);
			assertThat(counter(context, "lettuce.tuning.near.cache.evictions", "cause", "expired")).isZero();
		});
	}

	@Test
	void anEntryDroppedAtItsTimeToLiveCountsAsExpired() {
		this.runner.run((context) -> {
			Cache books = books(context);
			// Tracking is opened by the first read: that one is made before the clock
			// starts, so the value is read well within its time to live.
			assertThat(books.get("absent")).isNull();
			this.redis.node().command("SET", "books::ttl", "v1", "PX", "1000");
			assertThat(books.get("ttl", String.class)).isEqualTo("v1");
			Awaitility.await().atMost(BOUND).until(() -> {
				books.get("ttl");
				return counter(context, "lettuce.tuning.near.cache.evictions", "cause", "expired") == 1;
			});
			assertThat(counter(context, "lettuce.tuning.near.cache.evictions", "cause", "size")).isZero();
			assertThat(endpoint(context).expired()).isOne();
		});
	}

	@Test
	void aStoreBoundedByBytesStaysWithinItsBound() {
		long maximum = 1024;
		this.runner.withPropertyValues("lettuce.tuning.near-cache.maximum-bytes=" + maximum + "B").run((context) -> {
			Cache books = books(context);
			String value = "x".repeat(100);
			for (int i = 0; i < 50; i++) {
				set("books::k" + i, value);
			}
			for (int i = 0; i < 50; i++) {
				assertThat(books.get("k" + i, String.class)).isEqualTo(value);
				ClientState.NearCache shown = endpoint(context);
				assertThat(shown.bytes()).as("bytes held after %d reads", i + 1).isLessThanOrEqualTo(maximum);
			}
			ClientState.NearCache shown = endpoint(context);
			assertThat(shown.bound()).isEqualTo("bytes");
			assertThat(shown.maximum()).isEqualTo(maximum);
			// 50 entries of about 110 bytes do not fit in 1024; some do
			assertThat(shown.entries()).isBetween(1L, 10L);
			// Each entry weighs its key (books::k0 to books::k49) and its value
			assertThat(shown.bytes()).isBetween(shown.entries() * 109, shown.entries() * 110);
			assertThat(gauge(context, "lettuce.tuning.near.cache.weight")).isEqualTo(shown.bytes().doubleValue());
			assertThat(counter(context, "lettuce.tuning.near.cache.evictions", "cause", "size"))
				.isGreaterThanOrEqualTo(40);
		});
	}

	private void set(String key, String value) {
		this.redis.node().command("SET", key, value);
	}

	private long trackingClientId() {
		return NearCacheIntegrationTests.trackingClient(this.redis.node()).id();
	}

	private static Cache books(AssertableApplicationContext context) {
		return context.getBean(CacheManager.class).getCache("books");
	}

	private static InvalidationTracking tracking(AssertableApplicationContext context) {
		return ((NearCacheWriter) books(context).getNativeCache()).tracking();
	}

	private static ClientState.NearCache endpoint(AssertableApplicationContext context) {
		ClientState.NearCache nearCache = context.getBean(LettuceEndpoint.class).lettuce().state().nearCache();
		assertThat(nearCache).isNotNull();
		return nearCache;
	}

	private static MeterRegistry meters(AssertableApplicationContext context) {
		return context.getBean(MeterRegistry.class);
	}

	private static double gets(AssertableApplicationContext context, String result) {
		return counter(context, "lettuce.tuning.near.cache.gets", "cache", "books", "result", result);
	}

	private static double invalidatedKeys(AssertableApplicationContext context) {
		return counter(context, "lettuce.tuning.near.cache.invalidated.keys");
	}

	private static double counter(AssertableApplicationContext context, String name, String... tags) {
		FunctionCounter counter = meters(context).get(name).tags(tags).functionCounter();
		return counter.count();
	}

	private static double gauge(AssertableApplicationContext context, String name) {
		Gauge gauge = meters(context).get(name).gauge();
		return gauge.value();
	}

}
