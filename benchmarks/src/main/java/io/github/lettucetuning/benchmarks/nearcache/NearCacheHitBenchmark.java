package io.github.lettucetuning.benchmarks.nearcache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.lettucetuning.benchmarks.support.ServerCounter;
import io.github.lettucetuning.nearcache.InvalidationTracking;
import io.github.lettucetuning.nearcache.NearCacheWriter;
import io.github.lettucetuning.nearcache.SharedValueSerialization;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.cache.Cache.ValueWrapper;
import org.springframework.cache.concurrent.ConcurrentMapCache;
import org.springframework.data.redis.cache.RedisCache;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What a near-cache hit costs, in nanoseconds, against a real redis-server that the trial
 * starts: {@link NearCacheWriter#get(String, byte[])} of a key held in memory
 * ({@code nearCacheHit}: the tracking epoch, the lease and the Caffeine lookup), beside a
 * plain Caffeine {@code getIfPresent} of the same key ({@code caffeineGetIfPresent}, the
 * floor) and the whole of a Spring {@code Cache.get} over the near cache: as the starter
 * configures it ({@code springCacheHit}: key conversion, and the 1 KB string deserialised
 * once and shared, as every value of an immutable JDK type is), and without the shared
 * values ({@code springCacheHitDeserialized}: the JDK deserialisation of Spring Data's
 * default configuration on every read, what a value of a mutable type costs under
 * {@code store-by-value=true}), beside Spring's own in-memory {@code ConcurrentMapCache}
 * ({@code concurrentMapCacheHit}, the floor of any cache behind Spring's {@code Cache}).
 * The goal is {@code nearCacheHit} under 1 µs; what it adds is its difference to
 * {@code caffeineGetIfPresent}.
 * <p>
 * The trial checks that the near cache serves the key from memory before it measures, and
 * fails if Redis ran any GET while it measured. About 1 minute.
 *
 * @since 0.1.0
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgs = { "-Xms1g", "-Xmx1g", "-XX:+UseG1GC" })
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
public class NearCacheHitBenchmark {

	private static final String CACHE = "bench";

	private static final String ID = "hot:0000";

	private static final String VALUE = "c".repeat(1024);

	private static final int MAXIMUM_SIZE = 10_000;

	private @Nullable RedisNode node;

	private @Nullable LettuceConnectionFactory factory;

	private @Nullable NearCacheWriter writer;

	private @Nullable RedisCache cache;

	private @Nullable RedisCache deserializingCache;

	private final ConcurrentMapCache concurrentMapCache = new ConcurrentMapCache(CACHE);

	private final Cache<ByteBuffer, Object> caffeine = Caffeine.newBuilder().maximumSize(MAXIMUM_SIZE).build();

	private byte[] key = new byte[0];

	private long getsBefore;

	/**
	 * Start redis-server, the connection factory and the near cache, write the key
	 * through the cache and read it until it is served from memory.
	 */
	@Setup(Level.Trial)
	public void start() {
		RedisNode started = new RedisServerLauncher().start();
		this.node = started;
		LettuceConnectionFactory connections = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(started.host(), started.port()));
		connections.afterPropertiesSet();
		connections.start();
		this.factory = connections;
		NearCacheWriter near = NearCacheWriter.create(RedisCacheWriter.nonLockingRedisCacheWriter(connections),
				(name) -> true, MAXIMUM_SIZE, (invalidations) -> new InvalidationTracking(connections::getNativeClient,
						() -> List.of(CACHE + "::"), invalidations));
		this.writer = near;
		RedisCacheConfiguration defaults = RedisCacheConfiguration.defaultCacheConfig();
		RedisCache redisCache = (RedisCache) RedisCacheManager.builder(near)
			.cacheDefaults(defaults
				.serializeValuesWith(SharedValueSerialization.of(defaults.getValueSerializationPair(), true)))
			.build()
			.getCache(CACHE);
		this.cache = redisCache;
		this.deserializingCache = (RedisCache) RedisCacheManager.builder(near)
			.cacheDefaults(defaults)
			.build()
			.getCache(CACHE);
		this.concurrentMapCache.put(ID, VALUE);
		// Synchronous, unlike put, which Spring Data sends without waiting
		redisCache.putIfAbsent(ID, VALUE);
		this.key = (redisCache.getCacheConfiguration().getKeyPrefixFor(CACHE) + ID).getBytes(StandardCharsets.UTF_8);
		// The first read opens the tracking, the next keeps the value
		for (int i = 0; i < 3; i++) {
			requireValue(near.get(CACHE, this.key));
		}
		long before = gets(started);
		requireValue(near.get(CACHE, this.key));
		if (gets(started) != before) {
			throw new IllegalStateException("The near cache read the key from Redis again: not a hit");
		}
		byte[] value = near.get(CACHE, this.key);
		this.caffeine.put(ByteBuffer.wrap(this.key.clone()), requireValue(value));
		this.getsBefore = gets(started);
	}

	/**
	 * Fail the trial if Redis ran a GET while it measured: it measured something else
	 * than hits.
	 */
	@TearDown(Level.Trial)
	public void stop() {
		try {
			RedisNode started = this.node;
			if (started != null && gets(started) != this.getsBefore) {
				throw new IllegalStateException(
						"Redis ran " + (gets(started) - this.getsBefore) + " GETs while hits were measured");
			}
		}
		finally {
			close();
		}
	}

	private void close() {
		NearCacheWriter near = this.writer;
		if (near != null) {
			near.tracking().close();
		}
		LettuceConnectionFactory connections = this.factory;
		if (connections != null) {
			connections.destroy();
		}
		RedisNode started = this.node;
		if (started != null) {
			started.stop();
		}
	}

	@Benchmark
	public byte @Nullable [] nearCacheHit() {
		return writer().get(CACHE, this.key);
	}

	@Benchmark
	public @Nullable Object caffeineGetIfPresent() {
		return this.caffeine.getIfPresent(ByteBuffer.wrap(this.key));
	}

	@Benchmark
	public @Nullable ValueWrapper springCacheHit() {
		return open(this.cache).get(ID);
	}

	@Benchmark
	public @Nullable ValueWrapper springCacheHitDeserialized() {
		return open(this.deserializingCache).get(ID);
	}

	@Benchmark
	public @Nullable ValueWrapper concurrentMapCacheHit() {
		return this.concurrentMapCache.get(ID);
	}

	private static RedisCache open(@Nullable RedisCache cache) {
		if (cache == null) {
			throw new IllegalStateException("No cache open");
		}
		return cache;
	}

	private NearCacheWriter writer() {
		NearCacheWriter open = this.writer;
		if (open == null) {
			throw new IllegalStateException("No near cache open");
		}
		return open;
	}

	private static byte[] requireValue(byte @Nullable [] value) {
		if (value == null) {
			throw new IllegalStateException("The key " + ID + " is not in Redis");
		}
		return value;
	}

	// GETs that Redis ran, sent as such or in the near cache's read script
	private static long gets(RedisNode node) {
		return ServerCounter.calls(node.info("commandstats").get("cmdstat_get"));
	}

}
