package io.github.lettucetuning.nearcache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.MaintenanceProxy;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tracking connection that goes silent without closing: the application reaches Redis
 * through a proxy that holds every reply (and so every invalidation) for a while, and a
 * client outside it changes a near-cached key directly. No read that starts later than
 * the lease after the change returns the old value; before the lease ends, the old value
 * is still served from memory, as it may be.
 */
@RedisStandaloneTest
@Timeout(60)
class NearCacheLeaseIntegrationTests {

	private static final Duration HOLD = Duration.ofSeconds(4);

	// Scheduling on a loaded 2-core machine: a read that started just within the lease
	// may finish its check a little later
	private static final Duration MARGIN = Duration.ofMillis(150);

	private final RedisStandalone redis;

	NearCacheLeaseIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void aSilentTrackingConnectionStopsLocalServingWithinTheLease() {
		try (MaintenanceProxy proxy = MaintenanceProxy.start(this.redis.port())) {
			NearCacheIntegrationTests.application()
				.withPropertyValues("spring.data.redis.port=" + proxy.port(), "lettuce.tuning.near-cache.caches=books")
				.run((context) -> {
					Cache books = context.getBean(CacheManager.class).getCache("books");
					assertThat(books).isNotNull();
					this.redis.node().command("SET", "books::lease", "v1");
					assertThat(books.get("lease", String.class)).isEqualTo("v1");
					assertThat(books.get("lease", String.class)).isEqualTo("v1");
					proxy.holdReplies(HOLD);
					this.redis.node().command("SET", "books::lease", "v2");
					long written = System.nanoTime();
					List<Read> reads = readUntil(books, written + HOLD.toNanos());
					long staleAfterLease = reads.stream()
						.filter((read) -> "v1".equals(read.value())
								&& read.startedNanos() - written > InvalidationTracking.LEASE.plus(MARGIN).toNanos())
						.count();
					assertThat(staleAfterLease).as("reads of the old value that started after the lease: %s", reads)
						.isZero();
					assertThat(reads).as("the old value served from memory before the lease ended")
						.anyMatch((read) -> "v1".equals(read.value()));
					Awaitility.await()
						.atMost(Duration.ofSeconds(10))
						.ignoreExceptions()
						.until(() -> "v2".equals(books.get("lease", String.class)));
				});
		}
	}

	// Reads as the application would, failures included (the held replies end in the
	// stall check's reconnect); only the first and last of a run of equal outcomes are
	// kept, so that the report stays short
	private static List<Read> readUntil(Cache books, long untilNanos) {
		List<Read> reads = new ArrayList<>();
		while (System.nanoTime() - untilNanos < 0) {
			long started = System.nanoTime();
			String value;
			try {
				value = books.get("lease", String.class);
			}
			catch (RuntimeException ex) {
				value = "failed: " + ex.getClass().getSimpleName();
			}
			Read read = new Read(started, value);
			if (reads.size() >= 2 && same(reads.get(reads.size() - 1), read)
					&& same(reads.get(reads.size() - 2), read)) {
				reads.set(reads.size() - 1, read);
			}
			else {
				reads.add(read);
			}
		}
		return reads;
	}

	private static boolean same(Read a, Read b) {
		return String.valueOf(a.value()).equals(String.valueOf(b.value()));
	}

	record Read(long startedNanos, @Nullable String value) {

	}

}
