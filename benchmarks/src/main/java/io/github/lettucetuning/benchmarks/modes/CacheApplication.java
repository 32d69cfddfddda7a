package io.github.lettucetuning.benchmarks.modes;

import io.github.lettucetuning.autoconfigure.nearcache.LettuceTuningNearCacheAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the near-cache cells of {@link MatrixBenchmark} add to {@link MatrixApplication}:
 * Spring Cache ({@code @EnableCaching}) over Spring Boot's auto-configured
 * {@code RedisCacheManager} with its defaults (keys prefixed {@code bench::}, values
 * serialised by the JDK, no time to live, writes sent without waiting), the starter's
 * near-cache auto-configuration, which acts only in the setup that names the cache in
 * {@code lettuce.tuning.near-cache.caches}, and {@link CachedCatalog}, whose methods the
 * cells call. The uber-jar merges no {@code AutoConfiguration.imports} files, so the
 * auto-configurations are named here.
 */
@Configuration(proxyBeanMethods = false)
@EnableCaching
@ImportAutoConfiguration({ LettuceTuningNearCacheAutoConfiguration.class, CacheAutoConfiguration.class })
class CacheApplication {

	/**
	 * The cache the cells read and write.
	 */
	static final String CACHE = "bench";

	@Bean
	CachedCatalog cachedCatalog() {
		return new CachedCatalog();
	}

}
