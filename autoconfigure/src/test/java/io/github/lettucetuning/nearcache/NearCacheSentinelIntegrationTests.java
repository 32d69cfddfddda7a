package io.github.lettucetuning.nearcache;

import java.time.Duration;
import java.util.Map;

import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache behind Sentinel: its tracking connection goes to the master the
 * sentinels name, hits are served from memory, and after a failover the tracking
 * connection follows the new master.
 */
@RedisSentinelTest
@Timeout(120)
class NearCacheSentinelIntegrationTests {

	private final RedisSentinelTopology sentinel;

	NearCacheSentinelIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void tracksTheMasterAndFollowsAFailover() {
		NearCacheIntegrationTests.application()
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + this.sentinel.sentinelNodes(),
					"lettuce.tuning.near-cache.caches=books")
			.run((context) -> {
				Cache books = context.getBean(CacheManager.class).getCache("books");
				RedisNode master = this.sentinel.currentMaster();
				master.command("SET", "books::s", "v1");
				// The SET's own invalidation may still be on its way during the first
				// read
				assertThat(books.get("s", String.class)).isEqualTo("v1");
				assertThat(books.get("s", String.class)).isEqualTo("v1");
				long reads = reads(master);
				assertThat(books.get("s", String.class)).isEqualTo("v1");
				assertThat(reads(master)).isEqualTo(reads);
				assertThat(master.countClients(InvalidationTracking.CLIENT_NAME)).isOne();
				master.command("SET", "books::s", "v2");
				Awaitility.await().atMost(Duration.ofSeconds(1)).until(() -> "v2".equals(books.get("s", String.class)));

				RedisNode promoted = this.sentinel.failover();
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> promoted.countClients(InvalidationTracking.CLIENT_NAME) == 1);
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
					promoted.command("SET", "books::s", "v3");
					return "v3".equals(books.get("s", String.class));
				});
				promoted.command("SET", "books::s", "v4");
				Awaitility.await().atMost(Duration.ofSeconds(1)).until(() -> "v4".equals(books.get("s", String.class)));
			});
	}

	private static long reads(RedisNode node) {
		Map<String, String> stats = node.info("stats");
		return Long.parseLong(stats.get("keyspace_hits")) + Long.parseLong(stats.get("keyspace_misses"));
	}

}
