package io.github.lettucetuning.state;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.lettucetuning.nearcache.InvalidationTracking;
import io.github.lettucetuning.nearcache.NearCacheWriter;
import io.github.lettucetuning.nearcache.NearCaches;

/**
 * Reads the near cache into the {@link ClientState}. Apart from {@link ClientStateReader}
 * so that the near cache's classes, and Caffeine behind them, are loaded only when the
 * near cache is on.
 */
final class NearCacheSnapshot {

	private static final String ALL = "*";

	private static final String UNUSED = "unused";

	private NearCacheSnapshot() {
	}

	static ClientState.NearCache of(NearCaches nearCaches) {
		List<String> caches = nearCaches.caches();
		NearCacheWriter writer = nearCaches.writer();
		if (writer == null) {
			return new ClientState.NearCache(caches, UNUSED,
					"Spring Boot's RedisCacheManager has not been built with it: the application defines a cache "
							+ "manager of its own, or has no unique RedisConnectionFactory",
					0, 0, unit(nearCaches.bound()), nearCaches.bound().maximum(), null, 0, 0, 0, 0,
					reads(caches, Map.of()));
		}
		InvalidationTracking tracking = writer.tracking();
		NearCacheWriter.Statistics statistics = writer.statistics();
		return new ClientState.NearCache(caches, tracking.status().name().toLowerCase(Locale.ROOT),
				tracking.unsupportedReason(), tracking.interruptions(), statistics.entries(), unit(statistics.bound()),
				statistics.bound().maximum(), statistics.weight(), statistics.invalidatedKeys(), statistics.flushes(),
				statistics.evictedBySize(), statistics.expired(), reads(caches, statistics.reads()));
	}

	private static String unit(NearCacheWriter.Bound bound) {
		return bound.unit().name().toLowerCase(Locale.ROOT);
	}

	// The caches named come first, read or not, so that their meters and the endpoint
	// show them from the start; caches that '*' covers come as they are first read.
	private static List<ClientState.NearCacheReads> reads(List<String> caches,
			Map<String, NearCacheWriter.CacheReads> counted) {
		Map<String, NearCacheWriter.CacheReads> byName = new LinkedHashMap<>();
		for (String cache : caches) {
			if (!ALL.equals(cache)) {
				byName.put(cache, new NearCacheWriter.CacheReads(0, 0, 0));
			}
		}
		byName.putAll(counted);
		List<ClientState.NearCacheReads> reads = new ArrayList<>();
		byName.forEach((name, read) -> reads
			.add(new ClientState.NearCacheReads(name, read.hits(), read.misses(), read.bypassed())));
		return reads;
	}

}
