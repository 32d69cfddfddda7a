package io.github.lettucetuning.nearcache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @Cacheable} methods over the near cache in every connection mode, called from
 * several threads at once: hits are served from memory, a change by another client is
 * seen, and {@code @CachePut} and {@code @CacheEvict} through the cache are seen.
 */
@RedisStandaloneTest
@Timeout(60)
class NearCacheConnectionModesIntegrationTests {

	private static final Duration BOUND = Duration.ofSeconds(1);

	private static final int THREADS = 8;

	private static final int KEYS = 50;

	private final RedisStandalone redis;

	NearCacheConnectionModesIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@ParameterizedTest
	@ValueSource(strings = { "shared", "multi", "pooled" })
	void cacheableMethodsAreServedFromMemoryAndSeeChanges(String mode) {
		this.redis.node().command("FLUSHALL");
		NearCacheIntegrationTests.application()
			.withUserConfiguration(BooksConfiguration.class)
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "lettuce.tuning.connection.mode=" + mode,
					"lettuce.tuning.near-cache.caches=books")
			.run((context) -> {
				Books books = context.getBean(Books.class);
				assertThat(context.getBean(CacheManager.class).getCache("books").getNativeCache())
					.isInstanceOf(NearCacheWriter.class);
				// Spring Data's non-locking writer (Boot's) lets threads that miss at
				// once each load, and reads that miss at once each go to Redis: the
				// first pass loads, the second keeps the values in memory, one thread
				// each
				for (int pass = 0; pass < 2; pass++) {
					for (int key = 0; key < KEYS; key++) {
						assertThat(books.title(key)).isEqualTo("loaded " + key);
					}
				}
				assertThat(books.loads()).isEqualTo(KEYS);
				long reads = reads();
				readAll(books);
				assertThat(books.loads()).isEqualTo(KEYS);
				assertThat(reads()).as("reads that reached Redis from 8 threads").isEqualTo(reads);
				this.redis.node().command("SET", "books::7", "changed");
				Awaitility.await().atMost(BOUND).until(() -> "changed".equals(books.title(7)));
				books.rename(8, "renamed");
				Awaitility.await().atMost(BOUND).until(() -> "renamed".equals(books.title(8)));
				books.forget(9);
				Awaitility.await().atMost(BOUND).until(() -> books.title(9).startsWith("loaded"));
				assertThat(books.loads()).isEqualTo(KEYS + 1);
			});
	}

	private static void readAll(Books books) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int thread = 0; thread < THREADS; thread++) {
				futures.add(executor.submit(() -> {
					for (int key = 0; key < KEYS; key++) {
						assertThat(books.title(key)).isEqualTo("loaded " + key);
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private long reads() {
		return NearCacheIntegrationTests.reads(this.redis.node());
	}

	/**
	 * A service whose titles are cached, as an application writes one.
	 */
	static class Books {

		private final AtomicInteger loads = new AtomicInteger();

		@Cacheable(cacheNames = "books", sync = true)
		public String title(int id) {
			this.loads.incrementAndGet();
			return "loaded " + id;
		}

		@CachePut(cacheNames = "books", key = "#id")
		public String rename(int id, String title) {
			return title;
		}

		@CacheEvict(cacheNames = "books")
		public void forget(int id) {
		}

		int loads() {
			return this.loads.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(NearCacheIntegrationTests.CachingConfiguration.class)
	static class BooksConfiguration {

		@Bean
		Books books() {
			return new Books();
		}

	}

}
