package io.github.lettucetuning.benchmarks.modes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.nearcache.NearCacheWriter;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * How long a key changed by another client stays unseen: before each invocation the near
 * cache holds the key in memory and a client outside the application changes it
 * ({@code SET}, acknowledged); the invocation reads the key through the near cache until
 * it sees the new value. So a sample is the invalidation's delivery plus the one read
 * that follows it, as an application sees it. With {@code killed=true} every connection
 * of the application (the tracking connection among them) is killed ({@code CLIENT KILL})
 * just before the change: a sample is then how long the near cache takes to stop serving
 * from memory and read the new value through the reconnected connections. The issue's
 * goal: 5 ms at p99, 50 ms at worst, on loopback. Sample mode: the percentiles and the
 * maximum are JMH's. About 1 minute.
 *
 * @since 0.1.0
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgs = { "-Xms1g", "-Xmx1g", "-XX:+UseG1GC" })
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class NearCacheInvalidationBenchmark {

	private static final String CACHE = CacheApplication.CACHE;

	private static final byte[] KEY = (CACHE + "::changed").getBytes(StandardCharsets.UTF_8);

	/**
	 * Whether the application's connections are killed before each change.
	 */
	@Param({ "false", "true" })
	public boolean killed;

	private @Nullable RedisNode node;

	private @Nullable ConfigurableApplicationContext context;

	private @Nullable NearCacheWriter writer;

	private long version;

	private byte[] expected = new byte[0];

	/**
	 * Start redis-server and the application: the starter as auto-configured, with the
	 * near cache on for the cache {@code bench}.
	 */
	@Setup(Level.Trial)
	public void start() {
		RedisNode started = new RedisServerLauncher().start();
		this.node = started;
		ConfigurableApplicationContext application = SpringSetup
			.of("lettuce.tuning.near-cache.caches=" + CacheApplication.CACHE)
			.with(CacheApplication.class)
			.start(started.host(), started.port());
		this.context = application;
		Cache cache = application.getBean(CacheManager.class).getCache(CacheApplication.CACHE);
		if (cache == null || !(cache.getNativeCache() instanceof NearCacheWriter near)) {
			throw new IllegalStateException("The cache " + CacheApplication.CACHE + " has no near cache");
		}
		this.writer = near;
		change();
	}

	/**
	 * Hold the key's current value in memory, then change it from outside (after killing
	 * the application's connections, when asked).
	 */
	@Setup(Level.Invocation)
	public void changeAHeldKey() {
		NearCacheWriter near = writer();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		// The read comes first: it is what opens the tracking and keeps the value
		while (!(seesExpected(near) && near.tracking().isTracking() && near.localSize() == 1)) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The near cache does not hold the key: " + near.tracking().status());
			}
			Thread.onSpinWait();
		}
		if (this.killed) {
			node().command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
		}
		change();
	}

	@Benchmark
	public byte[] seenChanged() {
		NearCacheWriter near = writer();
		byte[] read = near.get(CACHE, KEY);
		while (!Arrays.equals(read, this.expected)) {
			Thread.onSpinWait();
			read = readOrNull(near);
		}
		return read;
	}

	// A read while the connections reconnect may fail: the application would read again
	private static byte @Nullable [] readOrNull(NearCacheWriter near) {
		try {
			return near.get(CACHE, KEY);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	private boolean seesExpected(NearCacheWriter near) {
		return Arrays.equals(readOrNull(near), this.expected);
	}

	private void change() {
		String value = "v" + (++this.version);
		node().command("SET", new String(KEY, StandardCharsets.UTF_8), value);
		this.expected = value.getBytes(StandardCharsets.UTF_8);
	}

	@TearDown(Level.Trial)
	public void stop() {
		ConfigurableApplicationContext application = this.context;
		if (application != null) {
			application.close();
		}
		RedisNode started = this.node;
		if (started != null) {
			started.stop();
		}
	}

	private NearCacheWriter writer() {
		NearCacheWriter open = this.writer;
		if (open == null) {
			throw new IllegalStateException("No near cache open");
		}
		return open;
	}

	private RedisNode node() {
		RedisNode started = this.node;
		if (started == null) {
			throw new IllegalStateException("No redis-server started");
		}
		return started;
	}

}
