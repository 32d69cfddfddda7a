package io.github.lettucetuning.nearcache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.cluster.SlotHash;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache on a Redis Cluster: one tracking connection per master, hits served from
 * memory whichever master holds the key, and changes seen after a failover that keeps the
 * old master alive, after a master is killed, and after slots move to a new master.
 */
@RedisClusterTest
@Timeout(180)
class NearCacheClusterIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(1);

	private static final Duration TOPOLOGY = Duration.ofSeconds(20);

	private final RedisClusterTopology cluster;

	NearCacheClusterIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void everyMasterIsTrackedAndHitsAreServedFromMemory() {
		nearCache().run((context) -> {
			Cache books = books(context);
			List<String> keys = keysOnEveryMaster();
			for (String key : keys) {
				set(key, "v1");
			}
			// The SETs' own invalidations may still be on their way during the first
			// reads, which then keep nothing: the second pass keeps the values
			for (int pass = 0; pass < 2; pass++) {
				for (String key : keys) {
					assertThat(books.get(key, String.class)).isEqualTo("v1");
				}
			}
			for (RedisNode master : this.cluster.masters()) {
				assertThat(master.countClients(InvalidationTracking.CLIENT_NAME)).as("tracking on %s", master).isOne();
			}
			Map<RedisNode, Long> reads = reads();
			for (String key : keys) {
				assertThat(books.get(key, String.class)).isEqualTo("v1");
			}
			assertThat(reads()).isEqualTo(reads);
			for (String key : keys) {
				set(key, "v2");
			}
			for (String key : keys) {
				awaitValue(books, key, "v2", BOUND);
			}
		});
	}

	@Test
	void aFailoverThatKeepsTheOldMasterAliveIsFollowed() {
		nearCache().run((context) -> {
			Cache books = books(context);
			String key = keysOnEveryMaster().get(0);
			set(key, "v1");
			assertThat(books.get(key, String.class)).isEqualTo("v1");
			RedisNode demoted = this.cluster.masterForKey(cacheKey(key));
			RedisNode promoted = this.cluster.replicaOf(demoted);
			this.cluster.failover(promoted);
			promoted.command("SET", cacheKey(key), "v2");
			awaitValue(books, key, "v2", BOUND);
			awaitTracked(books, key, promoted);
			assertThat(books.get(key, String.class)).isEqualTo("v2");
			promoted.command("SET", cacheKey(key), "v3");
			awaitValue(books, key, "v3", BOUND);
		});
	}

	@Test
	void aKilledMasterDropsTheLocalCopiesUntilItsReplicaIsTracked() {
		nearCache().run((context) -> {
			Cache books = books(context);
			String key = keysOnEveryMaster().get(1);
			set(key, "v1");
			assertThat(books.get(key, String.class)).isEqualTo("v1");
			RedisNode killed = this.cluster.masterForKey(cacheKey(key));
			this.cluster.killMaster(killed);
			RedisNode promoted = this.cluster.awaitReplicaPromoted(killed);
			promoted.command("SET", cacheKey(key), "v2");
			Awaitility.await()
				.atMost(TOPOLOGY)
				.pollInterval(Duration.ofMillis(20))
				.ignoreExceptions()
				.until(() -> "v2".equals(books.get(key, String.class)));
			awaitTracked(books, key, promoted);
			assertThat(books.get(key, String.class)).isEqualTo("v2");
			promoted.command("SET", cacheKey(key), "v3");
			awaitValue(books, key, "v3", BOUND);
			killed.restart();
			this.cluster.awaitClusterOk();
		});
	}

	@Test
	void keysOfSlotsThatMoveToANewMasterAreInvalidatedThere() {
		nearCache().run((context) -> {
			Cache books = books(context);
			RedisNode from = this.cluster.masterForSlot(0);
			String key = keyBelowSlot(100);
			set(key, "v1");
			assertThat(books.get(key, String.class)).isEqualTo("v1");
			RedisNode added = this.cluster.addEmptyMaster();
			List<Integer> moved = this.cluster.migrateSlots(from, added, 100);
			assertThat(moved).contains(SlotHash.getSlot(cacheKey(key)));
			// Read through the move: the value may come from the new master
			assertThat(books.get(key, String.class)).isEqualTo("v1");
			added.command("SET", cacheKey(key), "v2");
			awaitValue(books, key, "v2", BOUND);
			awaitTracked(books, key, added);
			added.command("SET", cacheKey(key), "v3");
			awaitValue(books, key, "v3", BOUND);
		});
	}

	// Tracking is issued again on the masters by the reads that follow a topology change
	private static void awaitTracked(Cache books, String key, RedisNode master) {
		Awaitility.await().atMost(TOPOLOGY).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
			books.get(key, String.class);
			return master.countClients(InvalidationTracking.CLIENT_NAME) == 1;
		});
	}

	private ApplicationContextRunner nearCache() {
		String nodes = this.cluster.nodes()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return NearCacheIntegrationTests.application()
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "lettuce.tuning.near-cache.caches=books");
	}

	private static Cache books(org.springframework.context.ApplicationContext context) {
		Cache books = context.getBean(CacheManager.class).getCache("books");
		assertThat(books).isNotNull();
		return books;
	}

	// One key per master of the cluster as it is when asked
	private List<String> keysOnEveryMaster() {
		List<String> keys = new ArrayList<>();
		List<RedisNode> masters = this.cluster.masters();
		for (RedisNode master : masters) {
			for (int i = 0;; i++) {
				String key = master.port() + "-" + i;
				if (this.cluster.masterForKey(cacheKey(key)) == master) {
					keys.add(key);
					break;
				}
			}
		}
		return keys;
	}

	private static String keyBelowSlot(int slot) {
		for (int i = 0;; i++) {
			String key = "low-" + i;
			if (SlotHash.getSlot(cacheKey(key)) < slot) {
				return key;
			}
		}
	}

	private static String cacheKey(String key) {
		return "books::" + key;
	}

	private void set(String key, String value) {
		this.cluster.masterForKey(cacheKey(key)).command("SET", cacheKey(key), value);
	}

	private Map<RedisNode, Long> reads() {
		return this.cluster.masters().stream().collect(Collectors.toMap((node) -> node, (node) -> {
			Map<String, String> stats = node.info("stats");
			return Long.parseLong(stats.get("keyspace_hits")) + Long.parseLong(stats.get("keyspace_misses"));
		}));
	}

	private static void awaitValue(Cache cache, String key, String value, Duration bound) {
		Awaitility.await()
			.atMost(bound)
			.pollInterval(Duration.ofMillis(5))
			.until(() -> value.equals(cache.get(key, String.class)));
	}

}
