package io.github.lettucetuning.autoconfigure.nearcache;

import java.util.List;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.lettucetuning.autoconfigure.FailureAnalyses;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.nearcache.NearCacheWriter;
import io.github.lettucetuning.nearcache.NearCaches;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.RedisCacheManagerBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheManager.RedisCacheManagerBuilder;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Tests for {@link LettuceTuningNearCacheAutoConfiguration}: when the near cache is
 * wired, which caches it wraps, and which prefixes it tracks. Nothing here connects to
 * Redis: the tracking connection opens on the first read.
 */
class NearCacheAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, CacheAutoConfiguration.class,
				LettuceTuningNearCacheAutoConfiguration.class))
		.withUserConfiguration(CachingConfiguration.class);

	@Test
	void offByDefault() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(NearCacheManagerCustomizer.class);
			assertThat(writerOf(context, "books")).isNotInstanceOf(NearCacheWriter.class);
		});
	}

	@Test
	void emptyListIsOff() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches=")
			.run((context) -> assertThat(context).doesNotHaveBean(NearCacheManagerCustomizer.class));
	}

	@Test
	void listedCacheIsWrappedAndOthersAreNot() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches=books").run((context) -> {
			assertThat(context).hasSingleBean(NearCacheManagerCustomizer.class);
			assertThat(writerOf(context, "books")).isInstanceOf(NearCacheWriter.class);
		});
	}

	@Test
	void indexedListSwitchesItOn() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches[0]=books")
			.run((context) -> assertThat(context).hasSingleBean(NearCacheManagerCustomizer.class));
	}

	@Test
	void backsOffWithoutCaffeine() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches=books")
			.withClassLoader(new FilteredClassLoader(Caffeine.class))
			.run((context) -> assertThat(context).doesNotHaveBean(NearCacheManagerCustomizer.class));
	}

	@Test
	void backsOffWithoutSpringBootsCacheSupport() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches=books")
			.withClassLoader(new FilteredClassLoader(RedisCacheManagerBuilderCustomizer.class))
			.run((context) -> assertThat(context).doesNotHaveBean(NearCacheManagerCustomizer.class));
	}

	@Test
	void backsOffWhenTheStarterIsDisabled() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches=books", "lettuce.tuning.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(NearCacheManagerCustomizer.class));
	}

	@Test
	void storeIsBoundedByEntriesByDefault() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches=books")
			.run((context) -> assertThat(context.getBean(NearCaches.class).bound())
				.isEqualTo(NearCacheWriter.Bound.entries(10000)));
	}

	@Test
	void maximumBytesBoundsTheStoreByBytesInstead() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.near-cache.caches=books",
					"lettuce.tuning.near-cache.maximum-bytes=64MB")
			.run((context) -> {
				assertThat(context.getBean(NearCaches.class).bound())
					.isEqualTo(NearCacheWriter.Bound.bytes(64 * 1024 * 1024));
				NearCacheWriter writer = (NearCacheWriter) writerOf(context, "books");
				assertThat(writer.statistics().bound()).isEqualTo(NearCacheWriter.Bound.bytes(64 * 1024 * 1024));
				assertThat(writer.statistics().weight()).isZero();
			});
	}

	@Test
	void bothBoundsFailStartupNamingBothPropertiesTheirValuesAndTheFix() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.near-cache.caches=books", "lettuce.tuning.near-cache.maximum-size=500",
					"lettuce.tuning.near-cache.maximum-bytes=64MB")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidTuningPropertyException.class);
				FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("'lettuce.tuning.near-cache.maximum-size'")
					.contains("'500'")
					.contains("lettuce.tuning.near-cache.maximum-bytes is set too (67108864B)")
					.contains("not both");
				assertThat(analysis.getAction()).contains("Remove lettuce.tuning.near-cache.maximum-size")
					.contains("or lettuce.tuning.near-cache.maximum-bytes");
			});
	}

	@Test
	void namedCachesAreHandedToTheReadSide() {
		this.contextRunner.withPropertyValues("lettuce.tuning.near-cache.caches=books,authors").run((context) -> {
			NearCaches nearCaches = context.getBean(NearCaches.class);
			assertThat(nearCaches.caches()).containsExactly("books", "authors");
			assertThat(nearCaches.writer()).isSameAs(writerOf(context, "books"));
		});
	}

	@Test
	void prefixesAreTheCachesOwn() {
		RedisCacheManagerBuilder builder = RedisCacheManager.builder(mock(RedisConnectionFactory.class))
			.withCacheConfiguration("prefixed",
					RedisCacheConfiguration.defaultCacheConfig().prefixCacheNameWith("app:"))
			.withCacheConfiguration("bare", RedisCacheConfiguration.defaultCacheConfig().disableKeyPrefix());
		assertThat(NearCacheManagerCustomizer.prefixes(builder, List.of("books", "prefixed")))
			.containsExactly("books::", "app:prefixed::");
		assertThat(NearCacheManagerCustomizer.prefixes(builder, List.of("bare"))).containsExactly("");
		assertThat(NearCacheManagerCustomizer.prefixes(builder, List.of("*"))).contains("");
	}

	private static RedisCacheWriter writerOf(AssertableApplicationContext context, String name) {
		return (RedisCacheWriter) context.getBean(CacheManager.class).getCache(name).getNativeCache();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class CachingConfiguration {

	}

}
