package io.github.lettucetuning.benchmarks.modes;

import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.benchmarks.support.KeySpace;
import io.github.lettucetuning.benchmarks.support.RedisBenchmarkState;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
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

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What the command-expiry timer costs end to end: lettuce-tuning in shared mode with
 * {@code spring.data.redis.timeout=2s}, commands expired by lettuce-tuning's
 * {@code wheel} timer, by Lettuce's stock {@code netty} HashedWheelTimer, or not at all
 * ({@code off}: command timeouts switched off). Two workloads: 200 threads of SET through
 * {@code StringRedisTemplate}, and 16 threads each writing batches of {@value #BATCH}
 * async SETs on the native shared connection, awaited together (scores are per SET).
 * Differences are of the order of the noise of one fork: run several forks, ideally
 * interleaved ({@code -f 1} runs in a loop, as the run-all script does).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 3, jvmArgs = { "-Xms1g", "-Xmx1g", "-XX:+UseG1GC" })
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
public class TimerE2eBenchmark extends RedisBenchmarkState {

	/**
	 * Async SETs per batch.
	 */
	public static final int BATCH = 100;

	@Param({ "wheel", "netty", "off" })
	public String timer = "";

	private RedisOps ops = RedisOps.CLOSED;

	private @Nullable RedisAsyncCommands<byte[], byte[]> async;

	@Override
	protected void openClient(String host, int port) {
		boolean off = "off".equals(this.timer);
		SpringSetup setup = SpringSetup.of("lettuce.tuning.timer.type=" + (off ? "netty" : this.timer));
		if (off) {
			setup.with(CommandTimeoutsOff.class);
		}
		TemplateOps template = new TemplateOps(setup.start(host, port));
		this.ops = template;
		LettuceConnectionFactory factory = template.context().getBean(LettuceConnectionFactory.class);
		check(factory, template.context().getBean(ClientResources.class), off);
		this.async = sharedConnection(factory).async();
	}

	// A benchmark of the wrong setup is worse than none.
	private void check(LettuceConnectionFactory factory, ClientResources resources, boolean off) {
		boolean timeouts = factory.getClientConfiguration()
			.getClientOptions()
			.map((options) -> options.getTimeoutOptions().isTimeoutCommands())
			.orElse(false);
		String timerClass = resources.timer().getClass().getName();
		boolean wheel = timerClass.startsWith("io.github.lettucetuning.");
		if (timeouts == off || (!off && wheel != "wheel".equals(this.timer))) {
			throw new IllegalStateException(
					"Setup " + this.timer + " has command timeouts " + timeouts + " and timer " + timerClass);
		}
	}

	@SuppressWarnings("unchecked")
	private static StatefulRedisConnection<byte[], byte[]> sharedConnection(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			Object nativeCommands = ((LettuceConnection) connection).getNativeConnection();
			return ((RedisAsyncCommands<byte[], byte[]>) nativeCommands).getStatefulConnection();
		}
	}

	@Override
	protected void closeClient() throws Exception {
		RedisOps open = this.ops;
		this.ops = RedisOps.CLOSED;
		this.async = null;
		open.close();
	}

	@Benchmark
	@Threads(200)
	public String set() {
		return this.ops.set(KeySpace.randomKey(), KeySpace.VALUE);
	}

	@Benchmark
	@Threads(16)
	@OperationsPerInvocation(BATCH)
	public boolean pipelinedSet() {
		RedisAsyncCommands<byte[], byte[]> commands = this.async;
		if (commands == null) {
			throw new IllegalStateException("No client open");
		}
		RedisFuture<?>[] futures = new RedisFuture<?>[BATCH];
		for (int i = 0; i < BATCH; i++) {
			futures[i] = commands.set(KeySpace.randomKeyBytes(), KeySpace.valueBytes());
		}
		return LettuceFutures.awaitAll(BenchmarkClients.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS, futures);
	}

}
