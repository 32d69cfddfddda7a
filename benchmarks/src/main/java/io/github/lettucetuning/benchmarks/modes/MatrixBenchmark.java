package io.github.lettucetuning.benchmarks.modes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.benchmarks.support.KeySpace;
import io.github.lettucetuning.benchmarks.support.OpenLoopSchedule;
import io.github.lettucetuning.benchmarks.support.OperationLatencies;
import io.github.lettucetuning.benchmarks.support.RedisBenchmarkState;
import io.github.lettucetuning.benchmarks.support.ServerCounter;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.nearcache.NearCacheWriter;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.concurrent.ConcurrentMapCache;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.cache.RedisCache;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ReactiveValueOperations;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ValueOperations;

/**
 * The matrix of issue 17: every workload for stock Spring Boot (commons-pool2 on the
 * classpath, as most applications have it), lettuce-tuning's default mode and its
 * {@code multi} mode (its default size, one connection per core, round-robin), each
 * started as an application with actuator runs it (see {@link MatrixApplication}). Run it
 * with {@code -t 1}, {@code -t 16} and {@code -t 200}, one fork per setup, in paired
 * rounds ({@code scripts/matrix.sh}).
 * <p>
 * Every operation records its latency from issue to completion (see
 * {@link OperationLatencies}): the pipelined cell records each batch as one latency,
 * since its commands complete together. Scores are per command: per SET of a pipelined
 * batch, per MGET, per operation of a reactive burst, matching the server's count.
 * <p>
 * Every cell but one is closed-loop: each thread issues its next operation when the last
 * completes. The {@code openloop} cell issues SETs at a fixed rate instead (see
 * {@link OpenLoopSchedule}) and records each latency from when the operation was due, so
 * its percentiles are what callers arriving at that rate would see.
 * <p>
 * With {@code -p topology=cluster}, each fork starts a Redis Cluster of its own (three
 * masters, three replicas, see {@link RedisBenchmarkState}) and the application of every
 * setup gets {@code spring.data.redis.cluster.nodes}, so Spring Boot builds its cluster
 * connection factory, stock and lettuce-tuning's alike; the keys spread over the slots of
 * all three masters, whose command counts are summed.
 * <p>
 * The near-cache cells ({@code cacheable95}, {@code cacheable99}, {@code cacheable100},
 * {@code cachewrite}) go through Spring Cache over Spring Boot's
 * {@code RedisCacheManager} (see {@link CacheApplication}): reads of {@value #HOT_KEYS}
 * keys with 1 KB values through a {@code @Cacheable} method, 95 or 99 in 100 of them
 * hits, and writes through {@code @CachePut} and {@code @CacheEvict};
 * {@code cacheable100} reads hot keys only. A miss is a read of a key that is not in
 * Redis: the method runs and returns null, which is not cached, so every miss costs one
 * round trip on every setup, and a hit on the near cache none. Compare the setup
 * {@code tuning-near-cache} (the cache named in {@code lettuce.tuning.near-cache.caches})
 * with {@code stock} and {@code default}; their scores count operations, not commands.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgs = { "-Xms1g", "-Xmx1g", "-XX:+UseG1GC" })
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Threads(16)
public class MatrixBenchmark extends RedisBenchmarkState {

	/**
	 * Commands per {@code executePipelined} batch.
	 */
	public static final int BATCH = 100;

	/**
	 * Keys per MGET.
	 */
	public static final int MGET_KEYS = 10;

	/**
	 * Operations each reactive invocation has in flight at once.
	 */
	public static final int CONCURRENT = 1000;

	/**
	 * Virtual threads calling at once in the {@code virtual} cell, as many as Tomcat's
	 * default platform threads.
	 */
	public static final int VIRTUAL_CALLERS = 200;

	/**
	 * SETs each virtual caller issues, one after another, per invocation of the
	 * {@code virtual} cell: enough that the invocation's last replies, when fewer callers
	 * are left, are a small share of it.
	 */
	public static final int SETS_PER_VIRTUAL_CALLER = 100;

	/**
	 * Keys holding a large value, apart from the small ones; 16 MB in all.
	 */
	public static final int LARGE_KEYS = 1000;

	private static final String LARGE_VALUE = "v".repeat(16 * 1024);

	private static final String[] LARGE_KEY_NAMES = new String[LARGE_KEYS];

	/**
	 * Keys of the near-cache cells that are in Redis (hits), and as many that are not
	 * (misses).
	 */
	public static final int HOT_KEYS = 1000;

	private static final String CACHED_VALUE = "c".repeat(1024);

	private static final String[] HOT_IDS = new String[HOT_KEYS];

	private static final String[] ABSENT_IDS = new String[HOT_KEYS];

	// How long the near-cache cells read on the trial's setup thread before their
	// warm-up iterations.
	private static final Duration CACHE_WARM_UP = Duration.ofSeconds(3);

	static {
		Arrays.setAll(LARGE_KEY_NAMES, (i) -> String.format("large:%06d", i));
		Arrays.setAll(HOT_IDS, (i) -> String.format("hot:%04d", i));
		Arrays.setAll(ABSENT_IDS, (i) -> String.format("absent:%04d", i));
	}

	/**
	 * {@code stock}: Spring Boot with commons-pool2; {@code default}: lettuce-tuning's
	 * default mode; {@code multi}: its multi mode.
	 */
	@Param({ "stock", "default", "multi" })
	public String setup = "";

	/**
	 * {@code standalone}: one redis-server; {@code cluster}: three masters with one
	 * replica each.
	 */
	@Param({ "standalone" })
	public String topology = "standalone";

	private @Nullable TemplateOps ops;

	private @Nullable StringRedisTemplate template;

	private @Nullable ReactiveValueOperations<String, String> reactive;

	private @Nullable ExecutorService virtualThreads;

	private @Nullable CachedCatalog catalog;

	private @Nullable NearCacheWriter nearCache;

	static String clientSetup(String setup) {
		return switch (setup) {
			case "stock" -> "boot-lettuce-pool2";
			case "default" -> "tuning-shared";
			case "multi" -> "tuning-multi-1x";
			// Any setup of ClientSetups, to split a difference the matrix shows
			default -> setup;
		};
	}

	@Override
	protected boolean cluster() {
		return switch (this.topology) {
			case "standalone" -> false;
			case "cluster" -> true;
			default -> throw new IllegalArgumentException("Unknown topology " + this.topology);
		};
	}

	@Override
	protected void openClusterClient(List<String> nodes) throws ReflectiveOperationException {
		// Boot prefers cluster.nodes to host and port, which SpringSetup sets too; as a
		// system property it reaches only this fork's application.
		System.setProperty("spring.data.redis.cluster.nodes", String.join(",", nodes));
		String first = nodes.get(0);
		int colon = first.lastIndexOf(':');
		openClient(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
	}

	@Override
	protected void openClient(String host, int port) throws ReflectiveOperationException {
		String name = clientSetup(this.setup);
		// Each fork is a JVM of its own: the property reaches only this setup's
		// application.
		String sources = MatrixApplication.class.getName();
		if (cacheCell()) {
			// Only the near-cache cells get Spring Cache: the other cells' applications
			// stay as they were measured before.
			sources += "," + CacheApplication.class.getName();
			System.setProperty("spring.cache.type", ClientSetups.MAP_CACHE.equals(name) ? "simple" : "redis");
		}
		System.setProperty("spring.main.sources", sources);
		RedisOps opened = ClientSetups.open(name, host, port);
		this.ops = (TemplateOps) opened;
		ClientSetups.check(name, opened);
		ConfigurableApplicationContext context = this.ops.context();
		check(context);
		this.template = context.getBean(StringRedisTemplate.class);
		this.reactive = context.getBean(ReactiveStringRedisTemplate.class).opsForValue();
		ValueOperations<String, String> values = this.template.opsForValue();
		for (String key : LARGE_KEY_NAMES) {
			values.set(key, LARGE_VALUE);
		}
		if (cluster()) {
			describeCluster(context);
		}
		checkObservation(context);
		this.virtualThreads = openVirtualThreads();
		if (cacheCell()) {
			this.catalog = warmUp(prepareCache(context));
		}
	}

	private boolean cacheCell() {
		return benchmarkMethod().startsWith("cache");
	}

	// The hot keys go to Redis through the cache, so in its key format and serialisation.
	// Then the check that makes the cells worth reading: on the near cache a hit sends
	// nothing to Redis, elsewhere it sends one GET, and a miss sends one everywhere.
	private CachedCatalog prepareCache(ConfigurableApplicationContext context) {
		if (cluster()) {
			throw new IllegalStateException("The near-cache cells run on one server, not on a cluster");
		}
		Cache cache = context.getBean(CacheManager.class).getCache(CacheApplication.CACHE);
		if (ClientSetups.MAP_CACHE.equals(clientSetup(this.setup))) {
			return prepareMapCache(context, cache);
		}
		if (!(cache instanceof RedisCache redisCache)) {
			throw new IllegalStateException("Setup " + this.setup + " got cache " + cache + ", not a RedisCache");
		}
		this.nearCache = (redisCache.getNativeCache() instanceof NearCacheWriter writer) ? writer : null;
		boolean near = this.nearCache != null;
		if (near != clientSetup(this.setup).contains("near-cache")) {
			throw new IllegalStateException(
					"Setup " + this.setup + " got cache writer " + redisCache.getNativeCache().getClass().getName());
		}
		for (String id : HOT_IDS) {
			// Synchronous, unlike put, which Spring Data sends without waiting
			redisCache.putIfAbsent(id, CACHED_VALUE);
		}
		String prefix = redisCache.getCacheConfiguration().getKeyPrefixFor(CacheApplication.CACHE);
		Long present = template().countExistingKeys(Arrays.stream(HOT_IDS).map((id) -> prefix + id).toList());
		if (present == null || present != HOT_KEYS) {
			throw new IllegalStateException(present + " of " + HOT_KEYS + " hot keys are in Redis");
		}
		CachedCatalog cached = context.getBean(CachedCatalog.class);
		String hot = HOT_IDS[0];
		// The first read opens the near cache's tracking; the next one keeps the value
		for (int i = 0; i < 3; i++) {
			if (cached.find(hot) == null) {
				throw new IllegalStateException("Setup " + this.setup + " missed hot key " + hot);
			}
		}
		long hitGets = getsFor(() -> cached.find(hot));
		long loads = cached.loads();
		long missGets = getsFor(() -> cached.find(ABSENT_IDS[0]));
		if (hitGets != (near ? 0 : 1) || missGets != 1 || cached.loads() != loads + 1) {
			throw new IllegalStateException("Setup " + this.setup + ": a hit ran " + hitGets + " GETs in Redis, a miss "
					+ missGets + " and " + (cached.loads() - loads) + " loads");
		}
		System.err.printf(
				"[matrix] setup %s: %d hot keys of %d bytes in Redis; a hit runs %d GETs in Redis (%s), "
						+ "a miss %d%n",
				this.setup, HOT_KEYS, CACHED_VALUE.length(), hitGets, near ? "near cache" : "no near cache", missGets);
		return cached;
	}

	// With 16 or 200 threads reading from memory, both cores are busy and the JIT's
	// compiler threads get a small share of them: a near-cache hit, a deep call chain
	// through Spring's caching proxy, took up to 30 s of the cell to be compiled, at a
	// different point in each fork. Reads on this one thread first, for every setup of
	// the cells, the misses among them, compile it with the cores to itself.
	// The write cell then writes on this thread as long: its path (Spring's put and
	// evict, and on the near cache the invalidations Redis pushes back) was still being
	// compiled in the measurement on a slower day. The read cells write nothing here, so
	// their hits stay hits.
	private CachedCatalog warmUp(CachedCatalog cached) {
		long end = System.nanoTime() + CACHE_WARM_UP.toNanos();
		for (int i = 0; System.nanoTime() - end < 0; i++) {
			int index = i % HOT_KEYS;
			cached.find((i % 20 == 0) ? ABSENT_IDS[index] : HOT_IDS[index]);
		}
		if ("cachewrite".equals(benchmarkMethod())) {
			long writesEnd = System.nanoTime() + CACHE_WARM_UP.toNanos();
			for (int i = 0; System.nanoTime() - writesEnd < 0; i++) {
				write(cached, HOT_IDS[i % HOT_KEYS], i % 2 == 0);
			}
		}
		return cached;
	}

	// Spring's map in memory: the hot keys are put in it, and a hit must send nothing.
	private CachedCatalog prepareMapCache(ConfigurableApplicationContext context, @Nullable Cache cache) {
		if (!(cache instanceof ConcurrentMapCache)) {
			throw new IllegalStateException(
					"Setup " + this.setup + " got cache " + cache + ", not a ConcurrentMapCache");
		}
		for (String id : HOT_IDS) {
			cache.put(id, CACHED_VALUE);
		}
		CachedCatalog cached = context.getBean(CachedCatalog.class);
		long loads = cached.loads();
		long hitGets = getsFor(() -> cached.find(HOT_IDS[0]));
		if (hitGets != 0 || cached.loads() != loads) {
			throw new IllegalStateException("Setup " + this.setup + ": a hit ran " + hitGets + " GETs in Redis and "
					+ (cached.loads() - loads) + " loads");
		}
		return cached;
	}

	// GETs that Redis ran during a read: sent as such, or in the near cache's script.
	private long getsFor(Runnable read) {
		long before = getCalls();
		read.run();
		return getCalls() - before;
	}

	private long getCalls() {
		Properties stats = template()
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("commandstats"));
		return ServerCounter.calls((stats != null) ? stats.getProperty("cmdstat_get") : null);
	}

	// A benchmark of the wrong setup is worse than none: both sides run with a meter
	// registry, the starter with its own meters on.
	private void check(ConfigurableApplicationContext context) {
		boolean tuning = clientSetup(this.setup).startsWith("tuning-");
		boolean registry = context.getBeanNamesForType(MeterRegistry.class).length > 0;
		boolean tuningMeters = context.containsBean("lettuceTuningConnectionMetrics");
		if (!registry || tuningMeters != tuning) {
			throw new IllegalStateException("Setup " + this.setup + " has a MeterRegistry: " + registry
					+ ", lettuce-tuning's meters: " + tuningMeters);
		}
		RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
		boolean clusterAware = factory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
		if (clusterAware != cluster()) {
			throw new IllegalStateException("Setup " + this.setup + " on topology " + this.topology + " got "
					+ factory.getClass().getName() + (clusterAware ? ", cluster-aware" : ", not cluster-aware"));
		}
	}

	// In a cluster, which factory routes the commands and, for lettuce-tuning, over how
	// many cluster connections (multi mode's members), once the large keys were written
	// through them.
	private void describeCluster(ConfigurableApplicationContext context) {
		RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
		int masters = 0;
		try (RedisClusterConnection connection = factory.getClusterConnection()) {
			for (RedisClusterNode node : connection.clusterGetNodes()) {
				if (node.isMaster() && !node.getSlotRange().getSlots().isEmpty()) {
					masters++;
				}
			}
		}
		String shared = "one shared cluster connection";
		if (factory instanceof LettuceTuningConnectionFactory tuning) {
			shared = "mode " + tuning.getMode() + ", " + tuning.getSharedConnectionCount() + " shared connections: "
					+ tuning.getSharedConnections().stream().map((c) -> c.getClass().getSimpleName()).toList();
		}
		System.err.printf("[matrix] setup %s: %s, %d masters serving slots; %s%n", this.setup,
				factory.getClass().getSimpleName(), masters, shared);
	}

	// What the application measures per command goes to the log, to read next to the
	// results. It is read once commands have run: Lettuce's tracing is on in the
	// unobserved setups too, and only Boot's timer shows that their observation is off.
	// Those setups, and the one without long-task timers, exist to show what that costs:
	// one that still ran them would show nothing. The starter's setups record the timer
	// on
	// their fast path, without long-task timers, but for the one that keeps Boot's
	// observation.
	private void checkObservation(ConfigurableApplicationContext context) {
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		long observed = registry.find("lettuce").timers().stream().mapToLong(Timer::count).sum();
		int longTaskTimers = registry.find("lettuce.active").longTaskTimers().size();
		String name = clientSetup(this.setup);
		boolean expectObserved = !name.endsWith("-unobserved");
		boolean fastPath = name.startsWith("tuning-") && !name.endsWith("-boot-observation");
		boolean expectLongTaskTimers = expectObserved && !fastPath && !name.endsWith("-no-long-task-timers");
		CommandLatencyRecorder recorder = context.getBean(ClientResources.class).commandLatencyRecorder();
		String found = String.format(
				"the 'lettuce' timer timed %d commands (%s), with %d long-task timers; command latency "
						+ "recorder %s (%s)",
				observed, fastPath ? "lettuce-tuning's fast path" : "Spring Boot's observation", longTaskTimers,
				onOff(recorder.isEnabled()), recorder.getClass().getName());
		if ((observed > 0) != expectObserved || (longTaskTimers > 0) != expectLongTaskTimers) {
			throw new IllegalStateException("Setup " + this.setup + ": " + found);
		}
		System.err.printf("[matrix] setup %s: %s%n", this.setup, found);
	}

	// Whether the near cache served all along: each interruption sent its reads to Redis
	// until tracking was back.
	private void describeNearCache() {
		NearCacheWriter near = this.nearCache;
		this.nearCache = null;
		if (near != null) {
			System.err.printf("[matrix] setup %s: near cache %s after the trial, %d interruptions, %d entries%n",
					this.setup, near.tracking().status(), near.tracking().interruptions(), near.localSize());
		}
	}

	private static String onOff(boolean on) {
		return on ? "on" : "off";
	}

	@Override
	protected void closeClient() throws Exception {
		TemplateOps open = this.ops;
		this.ops = null;
		this.template = null;
		this.reactive = null;
		this.catalog = null;
		describeNearCache();
		ExecutorService callers = this.virtualThreads;
		this.virtualThreads = null;
		if (callers != null) {
			callers.shutdownNow();
		}
		if (open != null) {
			open.close();
		}
	}

	@Benchmark
	public String set() {
		long start = System.nanoTime();
		String reply = ops().set(KeySpace.randomKey(), KeySpace.VALUE);
		latencies().record(start);
		return reply;
	}

	/**
	 * A SET as {@link #set()} issues it, but when this thread's share of a fixed rate
	 * says, not when the last reply came; its latency counts from when it was due.
	 * @param schedule this thread's schedule
	 * @return the reply
	 */
	@Benchmark
	public String openloop(OpenLoopSchedule schedule) {
		OperationLatencies latencies = latencies();
		long due = schedule.awaitNext(latencies);
		String reply = ops().set(KeySpace.randomKey(), KeySpace.VALUE);
		latencies.recordFromIntended(due);
		return reply;
	}

	@Benchmark
	public @Nullable String get() {
		long start = System.nanoTime();
		String value = ops().get(KeySpace.randomKey());
		latencies().record(start);
		return value;
	}

	@Benchmark
	public @Nullable String mix() {
		String key = KeySpace.randomKey();
		long start = System.nanoTime();
		String reply = KeySpace.nextIsSet() ? ops().set(key, KeySpace.VALUE) : ops().get(key);
		latencies().record(start);
		return reply;
	}

	/**
	 * SET or GET (even odds) of a 16 KB value.
	 * @return the reply
	 */
	@Benchmark
	public @Nullable String large() {
		String key = LARGE_KEY_NAMES[ThreadLocalRandom.current().nextInt(LARGE_KEYS)];
		long start = System.nanoTime();
		String reply = ThreadLocalRandom.current().nextBoolean() ? ops().set(key, LARGE_VALUE) : ops().get(key);
		latencies().record(start);
		return reply;
	}

	@Benchmark
	public @Nullable List<String> mget() {
		List<String> keys = new ArrayList<>(MGET_KEYS);
		for (int i = 0; i < MGET_KEYS; i++) {
			keys.add(KeySpace.randomKey());
		}
		long start = System.nanoTime();
		List<String> values = template().opsForValue().multiGet(keys);
		latencies().record(start);
		return values;
	}

	/**
	 * A batch of {@value #BATCH} SETs through {@code executePipelined}, as an application
	 * writes a batch; the latency recorded is the batch's.
	 * @return the replies
	 */
	@Benchmark
	@OperationsPerInvocation(BATCH)
	public List<Object> pipelined() {
		long start = System.nanoTime();
		List<Object> replies = template().executePipelined((RedisCallback<Object>) this::pipelineSets);
		latencies().record(start);
		return replies;
	}

	private @Nullable Object pipelineSets(RedisConnection connection) {
		byte[] value = KeySpace.VALUE.getBytes(StandardCharsets.US_ASCII);
		for (int i = 0; i < BATCH; i++) {
			connection.stringCommands().set(KeySpace.randomKeyBytes(), value);
		}
		return null;
	}

	/**
	 * {@value #CONCURRENT} operations of the 80/20 GET/SET mix through the reactive
	 * template, all in flight at once; each records its own latency from issue to
	 * completion.
	 * @return the number of operations completed
	 */
	@Benchmark
	@OperationsPerInvocation(CONCURRENT)
	public long reactive() {
		ReactiveValueOperations<String, String> values = this.reactive;
		if (values == null) {
			throw new IllegalStateException("No client open");
		}
		OperationLatencies latencies = latencies();
		Long completed = Flux.range(0, CONCURRENT)
			.flatMap((i) -> reactiveOperation(values, latencies), CONCURRENT)
			.count()
			.block();
		return (completed != null) ? completed : 0;
	}

	private static Mono<?> reactiveOperation(ReactiveValueOperations<String, String> values,
			OperationLatencies latencies) {
		String key = KeySpace.randomKey();
		long start = System.nanoTime();
		Mono<?> operation = KeySpace.nextIsSet() ? values.set(key, KeySpace.VALUE) : values.get(key);
		return operation.doOnTerminate(() -> latencies.record(start));
	}

	/**
	 * SETs as {@link #set()} issues them, from {@value #VIRTUAL_CALLERS} virtual threads
	 * at once instead of platform threads, as an application with
	 * {@code spring.threads.virtual.enabled} serves requests on JDK 21 or later: each
	 * invocation starts the callers, each issues {@value #SETS_PER_VIRTUAL_CALLER} SETs
	 * one after another, and waits for all of them. Run it with {@code -t 1}: the JMH
	 * thread only starts and joins the callers. (JMH's own virtual-thread executor cannot
	 * run these benchmarks: its threads spin, without yielding, while one of them runs
	 * the iteration's set-up, which waits on Redis, so that one never gets a carrier
	 * back.)
	 * @param thread the JMH parameters of this thread
	 * @return the number of SETs
	 * @throws Exception if a SET failed
	 */
	@Benchmark
	@OperationsPerInvocation(VIRTUAL_CALLERS * SETS_PER_VIRTUAL_CALLER)
	public int virtual(ThreadParams thread) throws Exception {
		if (thread.getThreadCount() != 1) {
			throw new IllegalStateException("Run the virtual cell with -t 1, not -t " + thread.getThreadCount()
					+ ": each JMH thread starts " + VIRTUAL_CALLERS + " virtual callers");
		}
		ExecutorService callers = virtualThreads();
		List<Future<?>> running = new ArrayList<>(VIRTUAL_CALLERS);
		for (int i = 0; i < VIRTUAL_CALLERS; i++) {
			running.add(callers.submit(this::virtualCaller));
		}
		for (Future<?> caller : running) {
			caller.get();
		}
		return VIRTUAL_CALLERS * SETS_PER_VIRTUAL_CALLER;
	}

	private void virtualCaller() {
		for (int i = 0; i < SETS_PER_VIRTUAL_CALLER; i++) {
			set();
		}
	}

	private ExecutorService virtualThreads() {
		ExecutorService callers = this.virtualThreads;
		if (callers == null) {
			throw new IllegalStateException("The virtual cell needs JDK 21 or later, not " + Runtime.version()
					+ "; run it with JAVA=<a JDK 21+ java>");
		}
		return callers;
	}

	// The benchmarks compile for Java 17, which has no virtual threads.
	private static @Nullable ExecutorService openVirtualThreads() throws ReflectiveOperationException {
		if (Runtime.version().feature() < 21) {
			return null;
		}
		return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
	}

	/**
	 * A read through the {@code @Cacheable} method of {@link CachedCatalog}: 95 in 100
	 * reads are of a key in Redis (a hit), the others of a key that is not (a miss, a
	 * round trip on every setup).
	 * @return the value, or null on a miss
	 */
	@Benchmark
	public @Nullable String cacheable95() {
		return cacheable(95);
	}

	/**
	 * As {@link #cacheable95()}, with 99 hits in 100 reads.
	 * @return the value, or null on a miss
	 */
	@Benchmark
	public @Nullable String cacheable99() {
		return cacheable(99);
	}

	/**
	 * As {@link #cacheable95()}, every read of a key in Redis: the read throughput on
	 * hits, which on the near cache sends no command once the keys are held.
	 * @return the value
	 */
	@Benchmark
	public @Nullable String cacheable100() {
		return cacheable(100);
	}

	private @Nullable String cacheable(int hitPercent) {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int index = random.nextInt(HOT_KEYS);
		String id = (random.nextInt(100) < hitPercent) ? HOT_IDS[index] : ABSENT_IDS[index];
		long start = System.nanoTime();
		String value = catalog().find(id);
		latencies().record(start);
		return value;
	}

	/**
	 * A write through the cache of one of the hot keys, even odds: {@code @CachePut} of a
	 * 1 KB value (Spring Data sends the SET without waiting for the reply, so its latency
	 * is the caller's part only) or {@code @CacheEvict} before invocation (the caller
	 * waits for the DEL). Half the operations waiting keeps the unacknowledged SETs few.
	 * On the near cache both go on its tracking connection, whose own writes Redis does
	 * not push back as invalidations; Redis still records each write for the tracked
	 * prefix.
	 * @return the value written, or null for an eviction
	 */
	@Benchmark
	public @Nullable String cachewrite() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String id = HOT_IDS[random.nextInt(HOT_KEYS)];
		CachedCatalog cached = catalog();
		long start = System.nanoTime();
		String written = write(cached, id, random.nextBoolean());
		latencies().record(start);
		return written;
	}

	private static @Nullable String write(CachedCatalog cached, String id, boolean put) {
		if (put) {
			return cached.update(id, CACHED_VALUE);
		}
		cached.remove(id);
		return null;
	}

	private CachedCatalog catalog() {
		CachedCatalog open = this.catalog;
		if (open == null) {
			throw new IllegalStateException("No cache open");
		}
		return open;
	}

	private TemplateOps ops() {
		TemplateOps open = this.ops;
		if (open == null) {
			throw new IllegalStateException("No client open");
		}
		return open;
	}

	private StringRedisTemplate template() {
		StringRedisTemplate open = this.template;
		if (open == null) {
			throw new IllegalStateException("No client open");
		}
		return open;
	}

}
