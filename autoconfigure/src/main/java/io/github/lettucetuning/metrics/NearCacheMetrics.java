package io.github.lettucetuning.metrics;

import java.util.List;
import java.util.function.ToDoubleFunction;

import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.ClientStateReader;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the meters of the near cache of Spring Boot's RedisCacheManager:
 * {@code lettuce.tuning.near.cache.gets}, the reads of each near cache by result
 * ({@code hit}: served from memory, {@code miss}: read from Redis, {@code bypassed}: read
 * from Redis because tracking was not on); and for the one store behind all near caches
 * {@code lettuce.tuning.near.cache.entries}, {@code .evictions} (by cause: {@code size},
 * {@code expired}), {@code .invalidated.keys} and {@code .flushes} (what Redis
 * invalidated), {@code .tracking} (1 while values may be served from memory) and
 * {@code .interruptions} (tracking lost after it had been on), and {@code .weight} (bytes
 * of keys and values) when the store is bounded by bytes.
 * <p>
 * Each reads the near cache's part of the {@link ClientState} when scraped; the near
 * cache counts its reads with adders that take no lock. With {@code *} for every cache,
 * the reads of all caches are one series tagged {@code cache=*}: caches that {@code *}
 * covers are created as they are first used, after the meters were bound; the endpoint
 * lists them one by one.
 * <p>
 * Micrometer's {@code CaffeineCacheMetrics} does not fit: the store holds a placeholder
 * for each read waiting for Redis, which its hit count would count as a hit, and its
 * {@code cache.*} names are those Spring Boot gives the Spring caches themselves.
 *
 * @since 0.1.0
 */
public final class NearCacheMetrics implements MeterBinder {

	private static final String PREFIX = "lettuce.tuning.near.cache.";

	private static final String ALL = "*";

	private final ClientStateReader state;

	/**
	 * Create a binder over the given reader.
	 * @param state the reader of the running client
	 */
	public NearCacheMetrics(ClientStateReader state) {
		this.state = state;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		ClientState.NearCache nearCache = this.state.readNearCache();
		if (nearCache == null) {
			return;
		}
		for (String cache : cacheTags(nearCache.caches())) {
			gets(registry, cache, "hit", ClientState.NearCacheReads::hits);
			gets(registry, cache, "miss", ClientState.NearCacheReads::misses);
			gets(registry, cache, "bypassed", ClientState.NearCacheReads::bypassed);
		}
		Gauge.builder(PREFIX + "entries", this.state, nearCache(ClientState.NearCache::entries))
			.description("Entries the near cache holds, over all near caches")
			.register(registry);
		evictions(registry, "size", ClientState.NearCache::evictedBySize);
		evictions(registry, "expired", ClientState.NearCache::expired);
		FunctionCounter
			.builder(PREFIX + "invalidated.keys", this.state, nearCache(ClientState.NearCache::invalidatedKeys))
			.description("Keys named by the invalidations Redis sent the near cache")
			.register(registry);
		FunctionCounter.builder(PREFIX + "flushes", this.state, nearCache(ClientState.NearCache::flushes))
			.description("Invalidations of every key Redis sent the near cache (FLUSHALL, FLUSHDB)")
			.register(registry);
		Gauge
			.builder(PREFIX + "tracking", this.state, nearCache((state) -> "tracking".equals(state.tracking()) ? 1 : 0))
			.description("1 while the near cache's tracking is on and values may be served from memory, 0 otherwise")
			.register(registry);
		FunctionCounter.builder(PREFIX + "interruptions", this.state, nearCache(ClientState.NearCache::interruptions))
			.description("Times the near cache's tracking was lost after it had been on")
			.register(registry);
		if ("bytes".equals(nearCache.bound())) {
			Gauge
				.builder(PREFIX + "weight", this.state,
						nearCache((state) -> (state.bytes() != null) ? state.bytes() : 0))
				.description("Bytes of the keys and values the near cache holds, over all near caches")
				.baseUnit("bytes")
				.register(registry);
		}
	}

	private static List<String> cacheTags(List<String> caches) {
		return caches.contains(ALL) ? List.of(ALL) : caches;
	}

	private void gets(MeterRegistry registry, String cache, String result,
			ToDoubleFunction<ClientState.NearCacheReads> value) {
		FunctionCounter
			.builder(PREFIX + "gets", this.state, nearCache((state) -> value.applyAsDouble(reads(state, cache))))
			.description("Reads of a near cache: served from memory (hit), read from Redis while tracking was on "
					+ "(miss), or read from Redis because tracking was not on (bypassed)")
			.tag("cache", cache)
			.tag("result", result)
			.register(registry);
	}

	private void evictions(MeterRegistry registry, String cause, ToDoubleFunction<ClientState.NearCache> value) {
		FunctionCounter.builder(PREFIX + "evictions", this.state, nearCache(value))
			.description("Entries the near cache dropped: to stay within its bound (size) or at their time to live "
					+ "(expired)")
			.tag("cause", cause)
			.register(registry);
	}

	private static ClientState.NearCacheReads reads(ClientState.NearCache state, String cache) {
		if (ALL.equals(cache)) {
			return state.total();
		}
		for (ClientState.NearCacheReads reads : state.reads()) {
			if (reads.cache().equals(cache)) {
				return reads;
			}
		}
		return new ClientState.NearCacheReads(cache, 0, 0, 0);
	}

	private static ToDoubleFunction<ClientStateReader> nearCache(ToDoubleFunction<ClientState.NearCache> value) {
		return (reader) -> {
			ClientState.NearCache nearCache = reader.readNearCache();
			return (nearCache != null) ? value.applyAsDouble(nearCache) : 0;
		};
	}

}
