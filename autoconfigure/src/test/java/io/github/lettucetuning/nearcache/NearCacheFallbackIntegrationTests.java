package io.github.lettucetuning.nearcache;

import java.time.Duration;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A near cache that cannot track falls back to plain Redis reads, says why, and never
 * serves a value from memory: the application's connections forced to RESP2, and a Redis
 * user not allowed {@code CLIENT TRACKING}.
 */
@RedisStandaloneTest
@Timeout(60)
class NearCacheFallbackIntegrationTests {

	private static final String USER = "near-cache-no-tracking";

	private final RedisStandalone redis;

	private final ApplicationContextRunner runner;

	NearCacheFallbackIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.runner = NearCacheIntegrationTests.application()
			.withPropertyValues("spring.data.redis.port=" + redis.port(), "lettuce.tuning.near-cache.caches=books");
	}

	@Test
	void resp2ConnectionsReadRedisEveryTime() {
		this.runner
			.withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> builder.protocolVersion(ProtocolVersion.RESP2))
			.run((context) -> {
				assertReadsGoToRedis(context, "resp2");
				assertThat(tracking(context).unsupportedReason()).contains("RESP2");
			});
	}

	@Test
	void aUserNotAllowedToTrackReadsRedisEveryTime() {
		this.redis.node()
			.command("ACL", "SETUSER", USER, "reset", "on", ">secret", "~*", "&*", "+@all", "-client|tracking");
		try {
			this.runner.withPropertyValues("spring.data.redis.username=" + USER, "spring.data.redis.password=secret")
				.run((context) -> {
					assertReadsGoToRedis(context, "noperm");
					assertThat(tracking(context).unsupportedReason()).contains("CLIENT TRACKING").contains("NOPERM");
					Awaitility.await()
						.atMost(Duration.ofSeconds(5))
						.until(() -> this.redis.node().countClients(InvalidationTracking.CLIENT_NAME) == 0);
				});
		}
		finally {
			this.redis.node().command("ACL", "DELUSER", USER);
		}
	}

	// Replies captured from the server under test. A prefix that overlaps one the
	// connection already tracks comes from an earlier attempt of the near cache's own
	// (a Sentinel fault campaign once saw one after a failover), and taking it for a
	// refusal bypassed the near cache for good.
	@Test
	void anOverlapWithPrefixesTheConnectionTracksAlreadyIsNoRefusal() {
		RedisClient client = RedisClient.create(RedisURI.create(this.redis.host(), this.redis.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			TrackingArgs books = TrackingArgs.Builder.enabled().bcast().noloop().prefixes("books::");
			assertThat(connection.sync().clientTracking(books)).isEqualTo("OK");
			assertThat(refusal(() -> connection.sync().clientTracking(books)))
				.contains("overlaps with an existing prefix")
				.matches((message) -> !InvalidationTracking.isRefusal(message));
			connection.sync().clientTracking(TrackingArgs.Builder.enabled(false));
			TrackingArgs overlapping = TrackingArgs.Builder.enabled().bcast().prefixes("books::", "books::a");
			assertThat(refusal(() -> connection.sync().clientTracking(overlapping))).startsWith("ERR")
				.matches(InvalidationTracking::isRefusal);
		}
		finally {
			client.shutdown();
		}
	}

	private static String refusal(ThrowingCallable command) {
		Throwable refused = catchThrowable(command);
		assertThat(refused).isInstanceOf(RedisCommandExecutionException.class);
		return refused.getMessage();
	}

	private void assertReadsGoToRedis(AssertableApplicationContext context, String key) {
		Cache books = context.getBean(CacheManager.class).getCache("books");
		assertThat(books).isNotNull();
		this.redis.node().command("SET", "books::" + key, "v1");
		assertThat(books.get(key, String.class)).isEqualTo("v1");
		Awaitility.await()
			.atMost(Duration.ofSeconds(5))
			.until(() -> tracking(context).status() == InvalidationTracking.Status.UNSUPPORTED);
		long reads = reads();
		for (int i = 0; i < 10; i++) {
			assertThat(books.get(key, String.class)).isEqualTo("v1");
		}
		assertThat(reads()).as("reads that reached Redis").isGreaterThanOrEqualTo(reads + 10);
		this.redis.node().command("SET", "books::" + key, "v2");
		assertThat(books.get(key, String.class)).isEqualTo("v2");
		assertThat(tracking(context).isTracking()).isFalse();
	}

	private static InvalidationTracking tracking(AssertableApplicationContext context) {
		Cache books = context.getBean(CacheManager.class).getCache("books");
		return ((NearCacheWriter) books.getNativeCache()).tracking();
	}

	private long reads() {
		return NearCacheIntegrationTests.reads(this.redis.node());
	}

}
