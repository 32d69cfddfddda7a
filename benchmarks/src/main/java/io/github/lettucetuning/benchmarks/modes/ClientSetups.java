package io.github.lettucetuning.benchmarks.modes;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.lettucetuning.socket.NativeTransports;
import io.github.lettucetuning.socket.NettyTransport;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Opens a client under test by name. Sizes are part of the name: {@code jedis-pool-50} is
 * a pool of 50, {@code lettuce-multi-2x} two connections per available processor.
 * <ul>
 * <li>{@code jedis-pool-N}: raw Jedis pool;</li>
 * <li>{@code lettuce-shared}, {@code lettuce-pool-N}, {@code lettuce-multi-Kx}: raw
 * Lettuce with one shared connection, a commons-pool2 pool, or a round-robin set;</li>
 * <li>{@code boot-lettuce}, {@code boot-lettuce-pool2}, {@code boot-lettuce-unshared-N},
 * {@code boot-jedis-N}: stock Spring Boot's {@code StringRedisTemplate} without
 * commons-pool2's pool, with it, with {@code shareNativeConnection=false}, and over
 * Jedis;</li>
 * <li>{@code tuning-shared}, {@code tuning-multi-Kx[-affinity|-lif]},
 * {@code tuning-pooled-N}: lettuce-tuning's modes through {@code StringRedisTemplate};
 * the multi suffix picks the thread-affinity or least-in-flight selection instead of
 * round-robin; the pooled mode waits up to a minute for a connection, as stock Boot waits
 * forever.</li>
 * <li>{@code lettuce-multi-Kx-io1}: the raw round-robin set on a single event loop.</li>
 * <li>{@code tuning-shared-unmerged}: lettuce-tuning's default mode with flush
 * consolidation switched off, the reference that shows what merging flushes is
 * worth.</li>
 * <li>{@code tuning-shared-netty-timer}: the default mode with Lettuce's stock timer (a
 * 100 ms tick) instead of the timing wheel, the reference that shows what the wheel's 10
 * ms tick costs at a low, steady rate.</li>
 * <li>{@code boot-lettuce-pool2-unobserved}, {@code tuning-shared-unobserved}: stock Boot
 * and the default mode with Spring Boot's {@code lettuce} observation switched off
 * ({@code management.observations.enable.lettuce=false}), the references that show what
 * timing every command through Micrometer's {@code Observation} costs each side.</li>
 * <li>{@code tuning-shared-boot-observation}: the default mode with its command-meters
 * fast path off, so that Spring Boot's observation times every command as on stock Boot,
 * the reference that shows what the fast path saves.</li>
 * <li>{@code tuning-shared-no-long-task-timers}: the default mode with the observation on
 * but without its long-task timers
 * ({@code management.metrics.observations.ignored-meters}), the reference for Boot's
 * narrower switch.</li>
 * <li>{@code tuning-shared-unguarded}: the default mode without the outage guard and with
 * Lettuce's unbounded request queue, the reference that shows what the guard costs.</li>
 * <li>{@code tuning-shared-loops-unguarded}: the default mode without the event-loop
 * guards (synchronous calls on an event loop not refused, blocked loops not watched), the
 * reference that shows what those cost.</li>
 * <li>{@code tuning-shared-role-unwatched}: the default mode without the role-change
 * handler that reads every reply batch for a {@code READONLY} error, the reference that
 * shows what following a demoted primary costs.</li>
 * <li>{@code tuning-near-cache}: the default mode with the near cache on for the cache of
 * {@link MatrixBenchmark}'s near-cache cells
 * ({@code lettuce.tuning.near-cache.caches=bench}).</li>
 * <li>{@code tuning-map-cache}: the default mode with Spring's in-memory
 * {@code ConcurrentMapCacheManager} in place of Boot's {@code RedisCacheManager}
 * ({@code spring.cache.type=simple}): for the {@code cacheable100} cell, the most any
 * cache behind Spring's {@code @Cacheable} proxy can serve on the machine, no Redis and
 * no invalidation on the way; its misses send nothing to Redis, so its other cache cells
 * mean nothing.</li>
 * <li>{@code boot-lettuce-pool2-epoll}: stock Boot with commons-pool2 and Netty's native
 * epoll transport added by hand, the reference that shows how much of a difference comes
 * from the transport.</li>
 * </ul>
 * Each setup runs on the transport its own dependencies bring, as it would in an
 * application: stock Boot, raw Lettuce and Jedis bring no native transport, so Lettuce
 * runs on NIO; the starter brings epoll. The benchmark jar holds epoll (it depends on the
 * starter), so {@link #open} switches it off for the other setups before Lettuce
 * initialises, once per fork.
 */
final class ClientSetups {

	/**
	 * The setup whose Spring Cache keeps its values in a map in memory.
	 */
	static final String MAP_CACHE = "tuning-map-cache";

	private static final Pattern SIZED = Pattern.compile("(.+)-(\\d+)(x?)(-affinity|-lif|-io1)?");

	private static final String STOCK = "lettuce.tuning.enabled=false";

	private static final String POOLED_MAX_WAIT = "1m";

	private static final String UNOBSERVED = "management.observations.enable.lettuce=false";

	private ClientSetups() {
	}

	/**
	 * Open a client.
	 * @param name the setup name
	 * @param host the server's host
	 * @param port the server's port
	 * @return the open client
	 */
	static RedisOps open(String name, String host, int port) {
		if (!bringsNativeTransport(name)) {
			System.setProperty(NativeTransports.EPOLL_PROPERTY, "false");
		}
		switch (name) {
			case "lettuce-shared":
				return new LettuceSharedOps(host, port);
			case "boot-lettuce":
				return spring(SpringSetup.of(STOCK, "spring.data.redis.lettuce.pool.enabled=false"), host, port);
			case "boot-lettuce-pool2":
			case "boot-lettuce-pool2-epoll":
				return spring(SpringSetup.of(STOCK), host, port);
			case "boot-lettuce-pool2-unobserved":
				return spring(SpringSetup.of(STOCK, UNOBSERVED), host, port);
			case "tuning-shared":
				return spring(SpringSetup.of(), host, port);
			case "tuning-shared-unobserved":
				return spring(SpringSetup.of(UNOBSERVED), host, port);
			case "tuning-shared-boot-observation":
				return spring(SpringSetup.of("lettuce.tuning.metrics.fast-path.enabled=false"), host, port);
			case "tuning-shared-no-long-task-timers":
				return spring(SpringSetup.of("management.metrics.observations.ignored-meters=long-task-timer"), host,
						port);
			case "tuning-shared-nio":
				return spring(SpringSetup.of("lettuce.tuning.socket.transport=nio"), host, port);
			case "tuning-shared-unmerged":
				return spring(SpringSetup.of("lettuce.tuning.socket.flush-consolidation.enabled=false"), host, port);
			case "tuning-shared-netty-timer":
				return spring(SpringSetup.of("lettuce.tuning.timer.type=netty"), host, port);
			case "tuning-shared-unbounded":
				return spring(SpringSetup.of("lettuce.tuning.resilience.request-queue-size=" + Integer.MAX_VALUE), host,
						port);
			case "tuning-shared-unwatched":
				return spring(SpringSetup.of("lettuce.tuning.resilience.fail-fast.enabled=false",
						"lettuce.tuning.resilience.stall-detection.enabled=false"), host, port);
			case "tuning-shared-unguarded":
				return spring(SpringSetup.of("lettuce.tuning.resilience.fail-fast.enabled=false",
						"lettuce.tuning.resilience.stall-detection.enabled=false",
						"lettuce.tuning.resilience.request-queue-size=" + Integer.MAX_VALUE), host, port);
			case "tuning-shared-role-unwatched":
				return spring(SpringSetup.of("lettuce.tuning.resilience.role-change.enabled=false"), host, port);
			case "tuning-near-cache":
				return spring(SpringSetup.of("lettuce.tuning.near-cache.caches=" + CacheApplication.CACHE), host, port);
			case MAP_CACHE:
				return spring(SpringSetup.of(), host, port);
			case "tuning-shared-loops-unguarded":
				return spring(SpringSetup.of("lettuce.tuning.resilience.blocking-call-guard.enabled=false",
						"lettuce.tuning.resilience.blocked-loop-detection.enabled=false"), host, port);
			default:
				return openSized(name, host, port);
		}
	}

	private static RedisOps openSized(String name, String host, int port) {
		Matcher matcher = SIZED.matcher(name);
		if (!matcher.matches()) {
			throw new IllegalArgumentException("Unknown setup " + name);
		}
		String kind = matcher.group(1);
		int number = Integer.parseInt(matcher.group(2));
		boolean perCore = !matcher.group(3).isEmpty();
		int size = perCore ? number * Runtime.getRuntime().availableProcessors() : number;
		String selection = selection(matcher.group(4));
		switch (kind + (perCore ? "/x" : "")) {
			case "jedis-pool":
				return new JedisPoolOps(host, port, size);
			case "lettuce-pool":
				return new LettucePoolOps(host, port, size);
			case "lettuce-multi/x":
				return new LettuceMultiOps(host, port, size, "-io1".equals(matcher.group(4)) ? 1 : 0);
			case "boot-lettuce-unshared":
				return spring(SpringSetup.of(STOCK).pool("lettuce", size).with(UnsharedNativeConnection.class), host,
						port);
			case "boot-jedis":
				return spring(SpringSetup.of(STOCK, "spring.data.redis.client-type=jedis").pool("jedis", size), host,
						port);
			case "tuning-multi/x":
				return spring(SpringSetup.of("lettuce.tuning.connection.mode=multi",
						"lettuce.tuning.connection.multi.size=" + size,
						"lettuce.tuning.connection.multi.selection=" + selection), host, port);
			case "tuning-pooled":
				// Stock Boot waits forever for a pooled connection; pooled mode waits the
				// command timeout, here 2 s, which fails borrowers that commons-pool2's
				// unfair queue starves under 200 threads.
				return spring(SpringSetup
					.of("lettuce.tuning.connection.mode=pooled",
							"spring.data.redis.lettuce.pool.max-wait=" + POOLED_MAX_WAIT)
					.pool("lettuce", size), host, port);
			default:
				throw new IllegalArgumentException("Unknown setup " + name);
		}
	}

	private static boolean bringsNativeTransport(String name) {
		return (name.startsWith("tuning-") && !name.endsWith("-nio")) || name.endsWith("-epoll");
	}

	private static String selection(@Nullable String suffix) {
		if ("-affinity".equals(suffix)) {
			return "thread-affinity";
		}
		return "-lif".equals(suffix) ? "least-in-flight" : "round-robin";
	}

	private static RedisOps spring(SpringSetup setup, String host, int port) {
		return new TemplateOps(setup.start(host, port));
	}

	/**
	 * Fail if a Spring setup did not get the connection factory its name promises: a
	 * benchmark of the wrong setup is worse than none.
	 * @param name the setup name
	 * @param ops the opened client
	 */
	static void check(String name, RedisOps ops) {
		checkTransport(name);
		if (!(ops instanceof TemplateOps template)) {
			return;
		}
		RedisConnectionFactory factory = template.context().getBean(RedisConnectionFactory.class);
		String expected = name.startsWith("tuning-") ? "LettuceTuningConnectionFactory"
				: name.startsWith("boot-jedis-") ? "JedisConnectionFactory" : "LettuceConnectionFactory";
		boolean shared = !(factory instanceof LettuceConnectionFactory lettuce) || lettuce.getShareNativeConnection();
		boolean expectShared = !name.startsWith("boot-lettuce-unshared-") && !name.startsWith("tuning-pooled-");
		if (!factory.getClass().getSimpleName().equals(expected) || shared != expectShared) {
			throw new IllegalStateException(
					"Setup " + name + " got " + factory.getClass().getName() + " with shareNativeConnection=" + shared);
		}
	}

	private static void checkTransport(String name) {
		if (name.startsWith("jedis-") || name.startsWith("boot-jedis-")) {
			return;
		}
		ClassLoader classLoader = ClientSetups.class.getClassLoader();
		boolean epollHere = NativeTransports.isAvailable(NettyTransport.EPOLL, classLoader);
		NettyTransport expected = (bringsNativeTransport(name) && epollHere) ? NettyTransport.EPOLL
				: NettyTransport.NIO;
		NettyTransport inUse = NativeTransports.inUse(classLoader);
		if (inUse == expected) {
			return;
		}
		throw new IllegalStateException("Setup " + name + " runs Lettuce on " + inUse.displayName() + ", not on "
				+ expected.displayName() + " as its dependencies would");
	}

}
