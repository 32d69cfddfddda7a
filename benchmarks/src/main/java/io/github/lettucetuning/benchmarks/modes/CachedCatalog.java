package io.github.lettucetuning.benchmarks.modes;

import java.util.concurrent.atomic.LongAdder;

import org.jspecify.annotations.Nullable;

import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;

/**
 * A service cached as applications cache theirs: {@link #find} is {@code @Cacheable},
 * {@link #update} {@code @CachePut}, {@link #remove} {@code @CacheEvict}, all on the
 * cache {@value CacheApplication#CACHE}, through Spring's caching proxy.
 * <p>
 * Its database holds nothing: {@link #find} returns null, which the cache does not keep
 * ({@code unless = "#result == null"}), so a read of a key that is not in Redis costs a
 * round trip every time, on every setup. The keys read as hits are written to Redis
 * before the trial and never change during the read cells.
 */
public class CachedCatalog {

	private final LongAdder loads = new LongAdder();

	/**
	 * Read an entry through the cache.
	 * @param id the entry's id, the cache key
	 * @return the cached value, or null (then the method ran) when the key is not in
	 * Redis
	 */
	@Cacheable(cacheNames = CacheApplication.CACHE, unless = "#result == null")
	public @Nullable String find(String id) {
		this.loads.increment();
		return null;
	}

	/**
	 * Write an entry through the cache; Spring Data sends the SET without waiting for
	 * Redis's reply, as it does by default.
	 * @param id the entry's id, the cache key
	 * @param value the value to cache
	 * @return the value
	 */
	@CachePut(cacheNames = CacheApplication.CACHE, key = "#id")
	public String update(String id, String value) {
		return value;
	}

	/**
	 * Evict an entry before the method runs: Spring calls {@code evictIfPresent}, which
	 * waits for Redis's reply to the DEL.
	 * @param id the entry's id, the cache key
	 */
	@CacheEvict(cacheNames = CacheApplication.CACHE, beforeInvocation = true)
	public void remove(String id) {
	}

	/**
	 * How many times {@link #find} ran: the reads that missed.
	 * @return the number of misses so far
	 */
	public long loads() {
		return this.loads.sum();
	}

}
